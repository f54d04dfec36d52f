package store

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/ontoindex/ontoindex/changelog"
)

// TestWriter_Lookup checks Lookup against a map of what was applied, on
// random inserts (ascending runs, which take the shortcut past the
// greatest key, and keys anywhere), updates and deletes (of the greatest
// key too), across commits, a rolled back transaction and a writer
// reopened on the generation.
func TestWriter_Lookup(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 7))
			db, err := Open(filepath.Join(t.TempDir(), "state.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			w, err := OpenWriter(db, "T", 1, true)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { w.Rollback() }() // before Close, which waits for the writer
			d := &docs{changed: map[uint32]string{}}
			w.Incremental(d, 2)
			model := map[string]int64{} // key -> value (its hash)
			next := 1000                // ascending runs go on from here
			check := func(step int, key string) {
				t.Helper()
				path, hash, found, err := w.Lookup([]byte(key))
				v, want := model[key]
				if err != nil || found != want || (want && (hash != uint64(v) || path != "f")) {
					t.Fatalf("step %d: Lookup(%q) = %q, %d, %v, %v; want found %v, hash %d", step, key, path, hash, found, err, want, v)
				}
			}
			for step := range 3000 {
				var key string
				switch x := r.IntN(10); {
				case x < 5: // the next key of an ascending run
					next += 1 + r.IntN(3)
					key = fmt.Sprintf("k%06d", next)
				case x < 7: // any key, present or not
					key = fmt.Sprintf("k%06d", r.IntN(next+100))
				default: // a present key, often the greatest
					key = greatest(model)
					if key == "" || r.IntN(2) == 0 {
						key = fmt.Sprintf("k%06d", r.IntN(next+1))
					}
				}
				check(step, key)
				_, present := model[key]
				switch {
				case !present:
					model[key] = int64(step)
					insert(t, w, changelog.Insert, key, "f", int64(step), int64(step))
				case r.IntN(2) == 0:
					model[key] = int64(step)
					insert(t, w, changelog.UpdateAfter, key, "f", int64(step), int64(step))
				default:
					delete(model, key)
					if err := w.Apply(&changelog.Change{Type: changelog.Delete, Key: []byte(key)}); err != nil {
						t.Fatal(err)
					}
				}
				check(step, key)
				switch {
				case step%500 == 499:
					// Reopen: commit, then a writer that starts from what
					// the store holds.
					if err := w.Commit(nil); err != nil {
						t.Fatal(err)
					}
					if w, err = OpenWriter(db, "T", 1, false); err != nil {
						t.Fatal(err)
					}
					w.Incremental(d, 2)
				case r.IntN(40) == 0: // a commit, and the next transaction
					if err := w.Commit(nil); err != nil {
						t.Fatal(err)
					}
					if err := w.Begin(); err != nil {
						t.Fatal(err)
					}
				}
			}
			// A transaction rolled back: its keys are gone, and lookups
			// after the next begin do not take them for present.
			if err := w.Commit(nil); err != nil {
				t.Fatal(err)
			}
			if err := w.Begin(); err != nil {
				t.Fatal(err)
			}
			for i := range 20 {
				insert(t, w, changelog.Insert, fmt.Sprintf("z%03d", i), "f", 0, 1)
			}
			w.Rollback()
			if err := w.Begin(); err != nil {
				t.Fatal(err)
			}
			for i := range 20 {
				check(-1, fmt.Sprintf("z%03d", i))
			}
			for k := range model {
				check(-1, k)
			}
		})
	}
}

// greatest is the greatest key of a model ("" when empty).
func greatest(m map[string]int64) string {
	var g string
	for k := range m {
		g = max(g, k)
	}
	return g
}
