package indexer

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ontoindex/ontoindex/indexer/index"
	"github.com/ontoindex/ontoindex/objects"
	bolt "go.etcd.io/bbolt"
)

// The index of a generation lives in memory; its file lets a restart load
// it instead of rebuilding it from the store. The file is written after a
// full build, after incremental builds once enough documents changed, and
// when the indexer closes. Documents changed since the file are listed in
// the generation's dirty bucket (with the version that changed them), in
// the same transaction as the change, so a start loads the file and
// re-reads only those documents from the store. A missing, damaged or
// outdated file is rebuilt from the store, which is the source of truth.

// saveEvery is how many changed documents make an incremental build write
// the index file, at least (a sixteenth of the objects for large types).
const saveEvery = 20_000

// openGeneration opens a generation and its index.
func (ix *Indexer) openGeneration(ctx context.Context, name string, n int, t *objects.Type) (*generation, error) {
	g := &generation{ix: ix, name: name, n: n}
	s, dirty, err := ix.loadIndex(ctx, name, n, t)
	if err != nil {
		return nil, err
	}
	g.cur, g.dirty = s, dirty
	return g, nil
}

// loadIndex loads the index file of a generation and brings it to the
// store's version, or rebuilds the index from the store.
func (ix *Indexer) loadIndex(ctx context.Context, name string, n int, t *objects.Type) (*index.Snapshot, int, error) {
	// A write a crash interrupted leaves its temporary file.
	if tmps, _ := filepath.Glob(ix.indexFile(name, n) + ".tmp-*"); len(tmps) > 0 {
		for _, p := range tmps {
			_ = os.Remove(p)
		}
	}
	s, err := ix.readIndexFile(name, n, t)
	if err == nil {
		var dirty int
		if s, dirty, err = ix.catchUp(ctx, name, n, s); err == nil {
			return s, dirty, nil
		}
	}
	if !errors.Is(err, fs.ErrNotExist) {
		ix.log.Warn("rebuilding the index from the store", "objectType", name, "generation", n, "error", err)
	}
	s, layout, err := ix.rebuildIndex(ctx, name, n, t)
	if err != nil {
		return nil, 0, err
	}
	if layout < storeLayout {
		return s, 0, nil // served read-only until a full build replaces it
	}
	if err := ix.saveIndexFile(name, n, s); err != nil {
		ix.log.Warn("save index file", "objectType", name, "generation", n, "error", err)
		return s, 1, nil
	}
	return s, 0, nil
}

func (ix *Indexer) readIndexFile(name string, n int, t *objects.Type) (*index.Snapshot, error) {
	f, err := os.Open(ix.indexFile(name, n))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := index.Read(f, t)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", f.Name(), err)
	}
	return s, nil
}

// catchUp applies the documents changed since the file was written.
func (ix *Indexer) catchUp(ctx context.Context, name string, n int, s *index.Snapshot) (*index.Snapshot, int, error) {
	var changes []index.Change
	var version uint64
	dirty := 0
	err := ix.db.View(func(tx *bolt.Tx) error {
		b, err := openGen(tx, name, n, false)
		if err != nil {
			return err
		}
		if version = b.version(); version < s.Version() || b.dirty == nil {
			return fmt.Errorf("index file is at version %d, the store at %d", s.Version(), version)
		}
		c := b.dirty.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			dirty++
			if err := ctx.Err(); err != nil {
				return err
			}
			ver, m := binary.Uvarint(v)
			if len(k) != 4 || m <= 0 {
				return fmt.Errorf("dirty document %x: %w", k, objects.ErrCorrupt)
			}
			if ver <= s.Version() {
				continue // in the file already
			}
			ch := index.Change{Doc: binary.BigEndian.Uint32(k)}
			if key := v[m:]; len(key) > 0 {
				// A later delete or reuse of the document would have
				// rewritten its entry: the key is there, at this document.
				rv := b.objects.Get(key)
				if rv == nil {
					return fmt.Errorf("dirty document %d: key %x is not in the store", ch.Doc, key)
				}
				r, err := b.record(rv)
				if err != nil {
					return err
				}
				if r.doc != ch.Doc {
					return fmt.Errorf("dirty document %d: key %x is document %d in the store", ch.Doc, key, r.doc)
				}
				if ch.Object, err = objects.DecodeObject(r.encoded); err != nil {
					return fmt.Errorf("object %x: %w", key, err)
				}
				ch.Key = bytes.Clone(key)
			}
			changes = append(changes, ch)
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	if len(changes) == 0 && version == s.Version() {
		return s, dirty, nil
	}
	next, err := s.Apply(changes, version)
	return next, dirty, err
}

// rebuildIndex builds the index of a generation from its store.
func (ix *Indexer) rebuildIndex(ctx context.Context, name string, n int, t *objects.Type) (*index.Snapshot, uint64, error) {
	b := index.NewBuilder(t)
	var version, layout uint64
	err := ix.db.View(func(tx *bolt.Tx) error {
		g, err := openGen(tx, name, n, false)
		if err != nil {
			return err
		}
		version, layout = g.version(), g.layout
		_, err = fillBuilder(ctx, g, b)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("object type %s: rebuild index of generation %d: %w", name, n, err)
	}
	return b.Finish(version), layout, nil
}

// fillBuilder adds every stored object of a generation to b and returns
// the first document number no object holds. Generations of an older
// layout number their objects in key order.
func fillBuilder(ctx context.Context, g *genBuckets, b *index.Builder) (uint32, error) {
	var next uint32
	c := g.objects.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if next&0xfff == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		r, err := g.record(v)
		if err != nil {
			return 0, fmt.Errorf("object %x: %w", k, err)
		}
		if g.layout < storeLayout {
			r.doc = next
		}
		o, err := objects.DecodeObject(r.encoded)
		if err != nil {
			return 0, fmt.Errorf("object %x: %w", k, err)
		}
		if err := b.Add(r.doc, k, o); err != nil {
			return 0, fmt.Errorf("object %x: %w", k, err)
		}
		next = max(next, r.doc+1)
	}
	return next, nil
}

// saveIndexFile writes the index file of a snapshot and forgets the dirty
// documents it covers.
func (ix *Indexer) saveIndexFile(name string, n int, s *index.Snapshot) error {
	err := writeFile(ix.indexFile(name, n), func(f *os.File) error {
		_, err := s.WriteTo(f)
		return err
	})
	if err != nil {
		return fmt.Errorf("write index file: %w", err)
	}
	return ix.db.Update(func(tx *bolt.Tx) error {
		b, err := openGen(tx, name, n, false)
		if err != nil || b.dirty == nil {
			return err
		}
		var covered [][]byte
		c := b.dirty.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if ver, _ := binary.Uvarint(v); ver <= s.Version() {
				covered = append(covered, bytes.Clone(k))
			}
		}
		for _, k := range covered {
			if err := b.dirty.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
}

// saveIndex writes the index file of a generation's snapshot.
func (ix *Indexer) saveIndex(g *generation, s *index.Snapshot) error {
	if err := ix.saveIndexFile(g.name, g.n, s); err != nil {
		return fmt.Errorf("object type %s: generation %d: %w", g.name, g.n, err)
	}
	g.snapMu.Lock()
	if g.cur == s {
		g.dirty = 0
	}
	g.snapMu.Unlock()
	return nil
}

// needsSave reports whether a generation's file is missing or enough
// documents changed since it was written.
func (g *generation) needsSave() (*index.Snapshot, bool) {
	g.snapMu.RLock()
	defer g.snapMu.RUnlock()
	if g.cur == nil || g.dirty == 0 {
		return nil, false
	}
	return g.cur, g.dirty < 0 || g.dirty >= max(saveEvery, int(g.cur.Objects()/16))
}

// saver writes index files in the background, so that a build is served
// as soon as it commits. It is owned by the Indexer: started by Open,
// stopped (and waited for) by Close, which then saves what is left.
type saver struct {
	kick   chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
}

func (sv *saver) start(ix *Indexer) {
	ctx, cancel := context.WithCancel(context.Background())
	sv.kick, sv.cancel, sv.done = make(chan struct{}, 1), cancel, make(chan struct{})
	go func() {
		defer close(sv.done)
		for {
			select {
			case <-ctx.Done():
				return
			case <-sv.kick:
			}
			for _, g := range ix.servedGenerations() {
				if ctx.Err() != nil {
					g.release()
					continue
				}
				if s, ok := g.needsSave(); ok {
					if err := ix.saveIndex(g, s); err != nil {
						// The store stays the truth; a start rebuilds what it must.
						ix.log.Warn("save index file", "objectType", g.name, "generation", g.n, "error", err)
					}
				}
				g.release()
			}
		}
	}()
}

// poke asks the saver to look for generations to save.
func (sv *saver) poke() {
	if sv.kick != nil {
		select {
		case sv.kick <- struct{}{}:
		default:
		}
	}
}

func (sv *saver) stop() {
	if sv.cancel != nil {
		sv.cancel()
		<-sv.done
		sv.cancel = nil
	}
}

// servedGenerations returns the serving generations, acquired: the caller
// releases each.
func (ix *Indexer) servedGenerations() []*generation {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	var out []*generation
	for _, ts := range ix.types {
		ts.mu.RLock()
		g := ts.gen
		ts.mu.RUnlock()
		if g != nil && g.acquire() {
			out = append(out, g)
		}
	}
	return out
}
