package store

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/objects"
	bolt "go.etcd.io/bbolt"
)

// mustFullWriter opens a store in a temporary directory (closed when the
// test ends) and a writer of a full build of generation 1 of T, in chunks
// of two rows, whose documents d numbers and whose counter it stores.
func mustFullWriter(t *testing.T, d *docs) (*DB, *Writer) {
	t.Helper()
	db, err := Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	w, err := OpenWriter(db, "T", 1, true)
	if err != nil {
		t.Fatal(err)
	}
	w.Full(d, 2, &BuildState{Generation: 1})
	w.Numbered(func() uint64 { return uint64(d.next) })
	return db, w
}

// leanStore is a store whose generation 1 of T no index numbers: a full
// build of a..e (documents 0-4), then an incremental build that inserts f
// (document 5) and one that deletes it, each storing its counter. The
// records alone say 5, the counter 6.
func leanStore(t *testing.T) *DB {
	t.Helper()
	d := &docs{changed: map[uint32]string{}}
	db, w := mustFullWriter(t, d)
	for i, k := range []string{"a", "b", "c", "d", "e"} {
		insert(t, w, changelog.Insert, k, "f1", int64(i), int64(i))
	}
	w.Finish(1)
	if err := w.Commit(nil); err != nil {
		t.Fatal(err)
	}
	incremental(t, db, d, 2, func(w *Writer) { insert(t, w, changelog.Insert, "f", "f2", 0, 9) })
	incremental(t, db, d, 3, func(w *Writer) { deleteKey(t, w, "f") })
	return db
}

// incremental commits an incremental build at version that numbers from
// d's counter and stores it.
func incremental(t *testing.T, db *DB, d *docs, version uint64, apply func(*Writer)) {
	t.Helper()
	w, err := OpenWriter(db, "T", 1, false)
	if err != nil {
		t.Fatal(err)
	}
	w.Incremental(d, version)
	w.Unmarked()
	w.Numbered(func() uint64 { return uint64(d.next) })
	apply(w)
	if err := w.Commit(nil); err != nil {
		t.Fatal(err)
	}
}

func deleteKey(t *testing.T, w *Writer, key string) {
	t.Helper()
	if err := w.Apply(&changelog.Change{Type: changelog.Delete, Key: []byte(key)}); err != nil {
		t.Fatal(err)
	}
}

// scanNext is the brute-force next document: one above every stored
// record's.
func scanNext(t *testing.T, db *DB) uint64 {
	t.Helper()
	var next uint32
	err := db.ViewGen("T", 1, func(g *Gen) error {
		var err error
		next, err = g.EachDoc(context.Background(), func(uint32, []byte, *objects.Object) error { return nil })
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return uint64(next)
}

// genNext is Gen.NextDoc of generation 1 of T.
func genNext(t *testing.T, db *DB) (uint64, bool) {
	t.Helper()
	var next uint64
	var stored bool
	err := db.ViewGen("T", 1, func(g *Gen) error {
		var err error
		next, stored, err = g.NextDoc(context.Background())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return next, stored
}

func TestDB_NextDoc(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		// then changes the lean store before the open.
		then       func(t *testing.T, db *DB)
		want       uint64
		wantStored bool // stored before the open
	}{
		{name: "stored by the builds", want: 6, wantStored: true},
		{
			name: "a store from before the counter: the pass, once",
			then: func(t *testing.T, db *DB) {
				err := db.db.Update(func(tx *bolt.Tx) error {
					g, err := openGen(tx, "T", 1, false)
					if err != nil {
						return err
					}
					return g.meta.Delete(keyNextDoc)
				})
				if err != nil {
					t.Fatal(err)
				}
			},
			want: 5,
		},
		{
			name: "a later commit that numbered without the counter",
			then: func(t *testing.T, db *DB) {
				// An embedded index's free numbers (the type was moved in
				// and out of a backend without the index): document 8.
				incremental(t, db, &docs{next: 8, changed: map[uint32]string{}}, 4, func(w *Writer) {
					w.Numbered(nil)
					insert(t, w, changelog.Insert, "g", "f3", 0, 9)
				})
			},
			want: 9,
		},
		{
			name: "a build that did not commit",
			then: func(t *testing.T, db *DB) {
				w, err := OpenWriter(db, "T", 1, false)
				if err != nil {
					t.Fatal(err)
				}
				d := &docs{next: 6, changed: map[uint32]string{}}
				w.Incremental(d, 4)
				w.Numbered(func() uint64 { return uint64(d.next) })
				insert(t, w, changelog.Insert, "h", "f3", 0, 9)
				w.Rollback() // a crash before the commit
			},
			want: 6, wantStored: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := leanStore(t)
			if tt.then != nil {
				tt.then(t, db)
			}
			if _, stored := genNext(t, db); stored != tt.wantStored {
				t.Fatalf("stored before the open: %v, want %v", stored, tt.wantStored)
			}
			next, version, err := db.NextDoc(ctx, "T", 1)
			if err != nil || next != tt.want {
				t.Fatalf("NextDoc = %d, %v; want %d", next, err, tt.want)
			}
			if scan := scanNext(t, db); next < scan {
				t.Fatalf("NextDoc %d below the records' %d", next, scan)
			}
			if g, stored := genNext(t, db); !stored || g != next {
				t.Fatalf("after the open: %d (stored %v), want %d stored", g, stored, next)
			}
			var v uint64
			_ = db.ViewGen("T", 1, func(g *Gen) error { v = g.Version(); return nil })
			if version != v {
				t.Fatalf("version %d, the generation's %d", version, v)
			}
		})
	}

	t.Run("a full build's chunks store none", func(t *testing.T) {
		d := &docs{changed: map[uint32]string{}}
		db, w := mustFullWriter(t, d)
		for i, k := range []string{"a", "b", "c"} {
			insert(t, w, changelog.Insert, k, "f1", int64(i), int64(i))
		}
		w.Rollback() // a crash after the first chunk: a resume reads its records
		if next, stored := genNext(t, db); stored || next != 2 {
			t.Fatalf("resumed build's next document %d (stored %v), want 2 from the records", next, stored)
		}
	})
}
