package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// DB is the store of a data directory, state.db.
type DB struct {
	db *bolt.DB
}

// Open opens the store at path. It fails after a short wait when another
// process holds it, and with a *CorruptError when the file is damaged.
func Open(path string) (*DB, error) {
	// A read-only open reads no freelist: it checks the size of the file
	// against its pages before the open that does, so that a truncated
	// file is named as one.
	if st, err := os.Stat(path); err == nil && st.Size() > 0 {
		db, err := openBolt(path, true)
		switch {
		case errors.Is(err, fs.ErrNotExist): // removed meanwhile: the open below creates it
		case err != nil:
			return nil, err
		default:
			err = checkSize(db, st.Size())
			if cerr := db.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return nil, err
			}
		}
	}
	db, err := openBolt(path, false)
	if err != nil {
		return nil, err
	}
	return &DB{db: db}, nil
}

// openBolt opens the bbolt file at path, and names what went wrong.
func openBolt(path string, readOnly bool) (*bolt.DB, error) {
	var db *bolt.DB
	var file *os.File // bbolt's, which holds the lock
	open := func(name string, flag int, perm os.FileMode) (*os.File, error) {
		f, err := os.OpenFile(name, flag, perm)
		file = f
		return f, err
	}
	err := Guard(path, func() error { // bbolt reads the freelist on open
		var err error
		db, err = bolt.Open(path, 0o644, &bolt.Options{Timeout: 2 * time.Second, OpenFile: open, ReadOnly: readOnly})
		return err
	})
	var ce *CorruptError
	switch {
	case err == nil:
		return db, nil
	case errors.As(err, &ce):
		if file != nil { // bbolt panicked with it open and locked
			unlock(file)
			_ = file.Close()
		}
		return nil, err
	case errors.Is(err, berrors.ErrTimeout):
		return nil, fmt.Errorf("open %s: the data dir is in use by another indexer process", path)
	case corruptOpen(err):
		return nil, &CorruptError{Path: path, Err: err}
	}
	return nil, fmt.Errorf("open %s: %w", path, err)
}

// checkSize refuses a file shorter than the pages its meta page counts: a
// truncated copy, or a file cut short by a full disk. bbolt would open
// it, and fault or panic on the first read of a page past the end.
func checkSize(db *bolt.DB, size int64) error {
	return db.View(func(tx *bolt.Tx) error {
		if need := tx.Size(); size < need {
			return &CorruptError{Path: db.Path(), Err: fmt.Errorf("truncated: the file holds %d bytes, its pages take %d", size, need)}
		}
		return nil
	})
}

// Path is the file of the store.
func (d *DB) Path() string { return d.db.Path() }

// Close closes the store.
func (d *DB) Close() error { return d.db.Close() }

// Load reads what is stored of an object type: its checkpoint, decoded as
// JSON into cp (found reports whether there is one), and the full build
// in progress, if any.
func (d *DB) Load(name string, cp any) (found bool, bs *BuildState, err error) {
	err = d.db.View(func(tx *bolt.Tx) error {
		tb, err := typeBucket(tx, name, false)
		if err != nil || tb == nil {
			return err
		}
		if found, err = readJSON(tb, keyCheckpoint, cp); err != nil {
			return err
		}
		var s BuildState
		ok, err := readJSON(tb, keyBuild, &s)
		if ok {
			bs = &s
		}
		return err
	})
	return found, bs, err
}

// PutCheckpoint stores the checkpoint of an object type (as JSON) on its
// own, for a build that changes nothing else.
func (d *DB) PutCheckpoint(name string, cp any) error {
	return d.db.Update(func(tx *bolt.Tx) error {
		tb, err := typeBucket(tx, name, true)
		if err != nil {
			return err
		}
		return putJSON(tb, keyCheckpoint, cp)
	})
}

// DropBuild forgets the full build in progress of an object type.
func (d *DB) DropBuild(name string) error {
	return d.db.Update(func(tx *bolt.Tx) error {
		tb, err := typeBucket(tx, name, false)
		if err != nil || tb == nil {
			return err
		}
		return tb.Delete(keyBuild)
	})
}

// Empty reports whether nothing is stored: no object type has a
// checkpoint, a full build in progress or a generation. The bucket of a
// type that never got that far (its first build failed) holds nothing and
// does not count.
func (d *DB) Empty() (bool, error) {
	empty := true
	err := d.db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			if !bytes.Equal(name, bucketTypes) {
				empty = false // not of this layout: keep it
				return nil
			}
			return b.ForEachBucket(func(typ []byte) error {
				if k, _ := b.Bucket(typ).Cursor().First(); k != nil {
					empty = false
				}
				return nil
			})
		})
	})
	return empty, err
}

// Generations lists the generation numbers stored for an object type.
func (d *DB) Generations(name string) ([]int, error) {
	var gens []int
	err := d.db.View(func(tx *bolt.Tx) error {
		var err error
		gens, err = generations(tx, name)
		return err
	})
	return gens, err
}

// DropGenerations deletes the generations of an object type for which
// drop is true.
func (d *DB) DropGenerations(name string, drop func(int) bool) error {
	return d.db.Update(func(tx *bolt.Tx) error {
		gens, err := generations(tx, name)
		if err != nil {
			return err
		}
		tb, err := typeBucket(tx, name, false)
		if err != nil || tb == nil {
			return err
		}
		for _, n := range gens {
			if drop(n) {
				if err := tb.DeleteBucket(genName(n)); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// ViewGen calls fn with a generation of an object type in a read
// transaction; g is valid only during fn.
func (d *DB) ViewGen(name string, n int, fn func(g *Gen) error) error {
	return d.db.View(func(tx *bolt.Tx) error {
		g, err := openGen(tx, name, n, false)
		if err != nil {
			return err
		}
		return fn(g)
	})
}

// ClearDirty forgets the dirty documents of a generation that an index
// file at version covers.
func (d *DB) ClearDirty(name string, n int, version uint64) error {
	return d.db.Update(func(tx *bolt.Tx) error {
		g, err := openGen(tx, name, n, false)
		if err != nil || g.dirty == nil {
			return err
		}
		var covered [][]byte
		c := g.dirty.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if ver, _ := binary.Uvarint(v); ver <= version {
				covered = append(covered, bytes.Clone(k))
			}
		}
		for _, k := range covered {
			if err := g.dirty.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
}

// Reader reads the objects of one generation in one read transaction,
// which it holds until Close.
type Reader struct {
	*Gen
	tx *bolt.Tx
}

// Read opens a Reader on a generation of an object type.
func (d *DB) Read(name string, n int) (*Reader, error) {
	tx, err := d.db.Begin(false)
	if err != nil {
		return nil, err
	}
	g, err := readGen(tx, name, n)
	if err != nil {
		_ = tx.Rollback()
		return nil, err
	}
	return &Reader{Gen: g, tx: tx}, nil
}

// Close ends the read transaction.
func (r *Reader) Close() { _ = r.tx.Rollback() }
