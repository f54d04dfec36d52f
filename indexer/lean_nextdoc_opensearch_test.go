//go:build integration_opensearch

package indexer_test

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
	"github.com/ontoindex/ontoindex/internal/testkit/opensearchtest"
	bolt "go.etcd.io/bbolt"
)

// numbered follows the documents a type without the embedded index gave
// its objects: every number ever stored, seen after each build.
type numbered struct {
	f    *backendFixture
	ever map[uint32]bool
}

// see adds the stored documents, and returns them.
func (n *numbered) see(t *testing.T) []uint32 {
	t.Helper()
	docs, err := indexer.StoredDocs(n.f.ctx, n.f.ix, "Item")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		n.ever[d] = true
	}
	return docs
}

// check checks that the next document is past every number ever stored
// (checkNext), and the store's documents (checkNoIndex).
func (n *numbered) check(t *testing.T, label string) {
	t.Helper()
	n.checkNext(t, label)
	n.f.checkNoIndex(t, label)
}

// checkNext checks that the next document is past every number ever
// stored, and so past the brute-force scan of the records.
func (n *numbered) checkNext(t *testing.T, label string) {
	t.Helper()
	next, err := indexer.NextDoc(n.f.ix, "Item")
	if err != nil {
		t.Fatal(err)
	}
	scan := uint64(0)
	for _, d := range n.see(t) {
		scan = max(scan, uint64(d)+1)
	}
	for d := range n.ever {
		if uint64(d) >= next {
			t.Fatalf("%s: next document %d, at or below %d, a number given before (the records' scan: %d)", label, next, d, scan)
		}
	}
}

// restart closes the fixture's indexer and opens it again.
func (n *numbered) restart(t *testing.T) {
	t.Helper()
	if err := n.f.ix.Close(); err != nil {
		t.Fatal(err)
	}
	n.f.ix = indexertest.Open(t, n.f.cfg)
}

// dropStoredNext removes the stored next document of the generation Item
// serves, as a store written before it was stored; the indexer is closed.
func (n *numbered) dropStoredNext(t *testing.T) {
	t.Helper()
	cp, err := n.f.ix.Checkpoint("Item")
	if err != nil {
		t.Fatal(err)
	}
	if err := n.f.ix.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(filepath.Join(n.f.cfg.Path(n.f.cfg.DataDir), "state.db"), 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		meta := tx.Bucket([]byte("types")).Bucket([]byte("Item")).Bucket(fmt.Appendf(nil, "gen-%08d", cp.Generation)).Bucket([]byte("meta"))
		if meta.Get([]byte("nextDoc")) == nil {
			return errors.New("no stored next document")
		}
		return meta.Delete([]byte("nextDoc"))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestIndexer_Open_nextDoc: a type without the embedded index numbers new
// objects past every number it gave, across restarts (the builds store
// the counter), failed builds, resumed full builds, and stores written
// before the counter was stored (the pass over the records, once).
func TestIndexer_Open_nextDoc(t *testing.T) {
	c := opensearchtest.Must(t, opensearchtest.Options{})
	newNumbered := func(t *testing.T, prefix string, seed uint64, edit ...func(*config.Config)) *numbered {
		f := newBackendFixture(t, c.URL(), prefix, seed, append([]func(*config.Config){noIndex}, edit...)...)
		return &numbered{f: f, ever: map[uint32]bool{}}
	}
	// appendDelete appends rows, builds, deletes them again and builds:
	// the largest numbers leave the records.
	appendDelete := func(t *testing.T, n *numbered, rows int) {
		t.Helper()
		before := slices.Collect(maps.Keys(n.f.ids))
		if err := n.f.tbl.Append(n.f.ctx, n.f.rows(rows, "top")); err != nil {
			t.Fatal(err)
		}
		n.f.build(t, indexer.BuildOptions{})
		n.see(t)
		var in []int64
		for id := range n.f.ids {
			if !slices.Contains(before, id) {
				in = append(in, id)
			}
		}
		n.deleteIDs(t, in)
		n.f.build(t, indexer.BuildOptions{})
	}

	t.Run("builds, deletes and restarts", func(t *testing.T) {
		n := newNumbered(t, "next-", 31)
		n.f.build(t, indexer.BuildOptions{})
		n.check(t, "full build")
		for step := range 6 {
			what := n.f.edit(t, fmt.Sprintf("step%d", step))
			n.f.build(t, indexer.BuildOptions{})
			n.check(t, what)
		}
		appendDelete(t, n, 7)
		n.check(t, "appended and deleted")
		n.restart(t)
		n.check(t, "restart")
		appendDelete(t, n, 3)
		n.restart(t)
		n.check(t, "second restart")
		n.f.build(t, indexer.BuildOptions{Full: true})
		n.ever = map[uint32]bool{} // a new generation numbers afresh
		n.check(t, "full build")
		n.restart(t)
		n.check(t, "restart after the full build")
	})

	t.Run("a build that failed before its commit", func(t *testing.T) {
		n := newNumbered(t, "nextfail-", 32)
		n.f.build(t, indexer.BuildOptions{})
		n.see(t)
		if err := n.f.tbl.Append(n.f.ctx, n.f.rows(5, "failed")); err != nil {
			t.Fatal(err)
		}
		injected := errors.New("injected")
		indexer.SetAfterBackend(n.f.ix, func(_, step string) error { return injected })
		if _, err := n.f.ix.Build(n.f.ctx, "Item", indexer.BuildOptions{}); !errors.Is(err, injected) {
			t.Fatalf("build: %v, want the injected failure", err)
		}
		indexer.SetAfterBackend(n.f.ix, nil)
		// Closed without the commit that would store the numbers; the
		// table is ahead of the store.
		n.restart(t)
		n.checkNext(t, "restart after the failed build")
		n.f.build(t, indexer.BuildOptions{})
		n.check(t, "the build again")
	})

	t.Run("a full build resumed", func(t *testing.T) {
		n := newNumbered(t, "nextresume-", 33, func(cfg *config.Config) { cfg.Build.ChunkRows = 50 })
		injected := failAtWrite(n.f.ix, 3)
		if _, err := n.f.ix.Build(n.f.ctx, "Item", indexer.BuildOptions{}); !errors.Is(err, injected) {
			t.Fatalf("build: %v, want the injected failure", err)
		}
		indexer.SetAfterBackend(n.f.ix, nil)
		n.restart(t)
		if res := n.f.build(t, indexer.BuildOptions{}); res.Kind != indexer.KindFull || res.RowsRead >= 300 {
			t.Fatalf("build after the failure: %s, %d rows read, want the first build resumed", res.Kind, res.RowsRead)
		}
		n.check(t, "resumed full build")
		appendDelete(t, n, 4)
		n.restart(t)
		n.check(t, "restart")
	})

	t.Run("a store from before the counter", func(t *testing.T) {
		n := newNumbered(t, "nextold-", 34)
		n.f.build(t, indexer.BuildOptions{})
		for step := range 4 {
			n.f.edit(t, fmt.Sprintf("old%d", step))
			n.f.build(t, indexer.BuildOptions{})
		}
		n.dropStoredNext(t)
		n.f.ix = indexertest.Open(t, n.f.cfg)
		// The pass finds the number above the records, as before.
		n.ever = map[uint32]bool{}
		n.check(t, "open of the old store")
		n.dropStoredNext(t) // stored by the open's pass
		n.f.ix = indexertest.Open(t, n.f.cfg)
		n.check(t, "second open of the old store")
		for step := range 3 {
			n.f.edit(t, fmt.Sprintf("new%d", step))
			n.f.build(t, indexer.BuildOptions{})
			n.check(t, fmt.Sprintf("build %d after the upgrade", step))
		}
		appendDelete(t, n, 5)
		n.restart(t)
		n.check(t, "restart after the upgrade")
		n.dropStoredNext(t) // stored by the builds since
	})
}

// deleteIDs deletes the rows of ids from the fixture's table.
func (n *numbered) deleteIDs(t *testing.T, ids []int64) {
	t.Helper()
	if len(ids) == 0 {
		return
	}
	var in []iceberg.BooleanExpression
	for _, k := range ids {
		in = append(in, id(k))
		delete(n.f.ids, k)
	}
	if err := n.f.tbl.Delete(n.f.ctx, orAll(in)); err != nil {
		t.Fatal(err)
	}
}
