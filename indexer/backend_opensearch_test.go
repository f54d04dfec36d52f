//go:build integration_opensearch

package indexer_test

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/backend/opensearch"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/opensearchtest"
)

func TestIndexer_Build_openSearch(t *testing.T) {
	c := opensearchtest.Must(t, opensearchtest.Options{})

	t.Run("copy-on-write edits", func(t *testing.T) {
		f := newBackendFixture(t, c.URL(), "cow-", 1)
		if res := f.build(t, indexer.BuildOptions{}); res.Kind != indexer.KindFull {
			t.Fatalf("first build: %s", res.Kind)
		}
		f.checkBackend(t, "full build")
		for step := range 8 {
			what := f.edit(t, fmt.Sprintf("step%d", step))
			if res := f.build(t, indexer.BuildOptions{}); res.Kind != indexer.KindIncremental {
				t.Fatalf("step %d (%s): build %s, want incremental", step, what, res.Kind)
			}
			f.checkBackend(t, fmt.Sprintf("step %d (%s)", step, what))
		}
		res := f.build(t, indexer.BuildOptions{Full: true})
		f.checkBackend(t, "second full build")
		cl, err := opensearch.New(opensearch.Options{Name: "cluster", URLs: []string{c.URL()}, IndexPrefix: "cow-"}, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		cp, _ := f.ix.Checkpoint("Item")
		gen, ok, err := cl.Writer(cp.Type).Published(f.ctx)
		if err != nil || !ok || gen != uint64(res.Generation) || res.Generation != 2 {
			t.Fatalf("published generation %d (%v, %v), build's %d, want 2", gen, ok, err, res.Generation)
		}
	})

	t.Run("failure after the write", func(t *testing.T) {
		f := newBackendFixture(t, c.URL(), "crash-", 2)
		f.build(t, indexer.BuildOptions{})
		before, _ := f.ix.Checkpoint("Item")
		for _, then := range []string{"another change", "no change"} {
			// Change A reaches the backend, then the build fails before
			// its store commit; the table rolls back to before A.
			base := f.tbl.Snapshot()
			ids := maps.Clone(f.ids)
			keys := f.pick(10)
			var rows []icebergtest.Row
			var in []iceberg.BooleanExpression
			for _, k := range keys {
				in = append(in, id(k))
				rows = append(rows, f.row(k, "A"))
			}
			if err := f.tbl.Overwrite(f.ctx, orAll(in), rows[:7]); err != nil { // 3 deleted
				t.Fatal(err)
			}
			injected := errors.New("injected")
			indexer.SetAfterBackend(f.ix, func(_, step string) error { return injected })
			if _, err := f.ix.Build(f.ctx, "Item", indexer.BuildOptions{}); !errors.Is(err, injected) {
				t.Fatalf("build: %v, want the injected failure", err)
			}
			indexer.SetAfterBackend(f.ix, nil)
			if cp, _ := f.ix.Checkpoint("Item"); cp.SnapshotID != before.SnapshotID {
				t.Fatalf("checkpoint moved to %d after a failed build", cp.SnapshotID)
			}
			if _, err := os.Stat(indexer.PendingPath(f.ix, "Item")); err != nil {
				t.Fatalf("no backend journal after the failure: %v", err)
			}
			if err := f.tbl.Rollback(f.ctx, base); err != nil {
				t.Fatal(err)
			}
			f.ids = ids
			if then == "another change" {
				f.edit(t, "B")
			}
			f.build(t, indexer.BuildOptions{})
			if n := f.noted(t, "A"); n != 0 {
				t.Fatalf("%s: the backend holds %d objects of the failed build", then, n)
			}
			f.checkBackend(t, "after a failed build and "+then)
			if _, err := os.Stat(indexer.PendingPath(f.ix, "Item")); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("backend journal left after the commit: %v", err)
			}
			before, _ = f.ix.Checkpoint("Item")
		}
	})

	t.Run("full build resumed", func(t *testing.T) {
		// Chunks of 50 rows: the build fails after the backend took the
		// third chunk's objects, before the store committed it.
		f := newBackendFixture(t, c.URL(), "resume-", 4, func(cfg *config.Config) { cfg.Build.ChunkRows = 50 })
		injected := failAtWrite(f.ix, 3)
		if _, err := f.ix.Build(f.ctx, "Item", indexer.BuildOptions{}); !errors.Is(err, injected) {
			t.Fatalf("build: %v, want the injected failure", err)
		}
		indexer.SetAfterBackend(f.ix, nil)
		res := f.build(t, indexer.BuildOptions{})
		if res.Kind != indexer.KindFull || res.RowsRead >= 300 || res.Generation != 1 {
			t.Fatalf("build after the failure: %s of generation %d, %d rows read, want the first build resumed", res.Kind, res.Generation, res.RowsRead)
		}
		f.checkBackend(t, "resumed full build")
	})

	t.Run("full build of several batches", func(t *testing.T) {
		// 20,000 rows in chunks of 9,000: the backend takes a chunk's
		// objects in batches written side by side, and a failure in the
		// second chunk leaves the first committed.
		f := newBackendFixture(t, c.URL(), "batches-", 6, func(cfg *config.Config) { cfg.Build.ChunkRows = 9000 })
		f.maxPages = 20
		if err := f.tbl.Append(f.ctx, f.rows(19700, "more")); err != nil {
			t.Fatal(err)
		}
		injected := failAtWrite(f.ix, 4)
		if _, err := f.ix.Build(f.ctx, "Item", indexer.BuildOptions{}); !errors.Is(err, injected) {
			t.Fatalf("build: %v, want the injected failure", err)
		}
		indexer.SetAfterBackend(f.ix, nil)
		res := f.build(t, indexer.BuildOptions{})
		if res.Kind != indexer.KindFull || res.RowsRead >= 20000 || res.RowsRead < 5000 {
			t.Fatalf("build after the failure: %s, %d rows read, want the first build resumed after its first chunk", res.Kind, res.RowsRead)
		}
		f.checkBackend(t, "full build of several batches")
		f.edit(t, "after")
		f.build(t, indexer.BuildOptions{})
		f.checkBackend(t, "incremental build after it")
	})

	t.Run("failure after the publish", func(t *testing.T) {
		// A full build published its generation in the backend, then
		// failed before its store commit: the alias points at a
		// generation the checkpoint does not, whose predecessor the
		// publish dropped. The next build finishes it.
		f := newBackendFixture(t, c.URL(), "publish-", 5)
		f.build(t, indexer.BuildOptions{})
		f.edit(t, "next")
		injected := errors.New("injected")
		indexer.SetAfterBackend(f.ix, func(_, step string) error {
			if step == "publish" {
				return injected
			}
			return nil
		})
		if _, err := f.ix.Build(f.ctx, "Item", indexer.BuildOptions{Full: true}); !errors.Is(err, injected) {
			t.Fatalf("build: %v, want the injected failure", err)
		}
		indexer.SetAfterBackend(f.ix, nil)
		if cp, _ := f.ix.Checkpoint("Item"); cp.Generation != 1 {
			t.Fatalf("checkpoint of generation %d after the failed build", cp.Generation)
		}
		res := f.build(t, indexer.BuildOptions{})
		if res.Kind != indexer.KindFull || res.Generation != 2 {
			t.Fatalf("build after the failure: %s of generation %d, want generation 2 finished", res.Kind, res.Generation)
		}
		f.checkBackend(t, "after the failed publish")
	})

	t.Run("alias moved", func(t *testing.T) {
		// The alias points at another index than the checkpoint's
		// generation (a crash between a publish's swap and its drop of
		// the old generation): opening the indexer points it back.
		f := newBackendFixture(t, c.URL(), "alias-", 8)
		f.build(t, indexer.BuildOptions{})
		c.MustDoNode(t, 0, http.MethodPut, "/alias-item-g7", nil, http.StatusOK, nil)
		c.MustDoNode(t, 0, http.MethodPost, "/_aliases", map[string]any{"actions": []any{
			map[string]any{"remove": map[string]any{"index": "alias-item-g1", "alias": "alias-item"}},
			map[string]any{"add": map[string]any{"index": "alias-item-g7", "alias": "alias-item"}},
		}}, http.StatusOK, nil)
		if err := f.ix.Close(); err != nil {
			t.Fatal(err)
		}
		ix, err := indexer.Open(f.ctx, f.cfg, indexer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ix.Close() })
		f.ix = ix
		f.checkBackend(t, "reopened")
	})

	t.Run("backend off and on again", func(t *testing.T) {
		// Builds without the backend leave its index behind: the first
		// build with it again is full.
		f := newBackendFixture(t, c.URL(), "switch-", 9)
		f.build(t, indexer.BuildOptions{})
		reopen := func(backend string) {
			t.Helper()
			if err := f.ix.Close(); err != nil {
				t.Fatal(err)
			}
			cfg := *f.cfg
			cfg.ObjectTypes = slices.Clone(f.cfg.ObjectTypes)
			cfg.ObjectTypes[0].Backend = backend
			ix, err := indexer.Open(f.ctx, &cfg, indexer.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = ix.Close() })
			f.ix = ix
		}
		reopen("")
		f.edit(t, "unseen")
		if res := f.build(t, indexer.BuildOptions{}); res.Kind != indexer.KindIncremental {
			t.Fatalf("build without the backend: %s", res.Kind)
		}
		reopen("cluster")
		if res := f.build(t, indexer.BuildOptions{}); res.Kind != indexer.KindFull || !strings.Contains(res.Reason, "not built into backend cluster") {
			t.Fatalf("build with the backend again: %s (%s), want full", res.Kind, res.Reason)
		}
		f.checkBackend(t, "backend on again")
	})

	t.Run("cluster unreachable", func(t *testing.T) {
		p := opensearchtest.NewProxy(t, c)
		f := newBackendFixture(t, p.URL(), "down-", 3)
		f.build(t, indexer.BuildOptions{})
		f.checkBackend(t, "full build")
		before, _ := f.ix.Checkpoint("Item")
		p.Down(t)
		f.edit(t, "while down")
		_, err := f.ix.Build(f.ctx, "Item", indexer.BuildOptions{})
		var ue *opensearch.UnreachableError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), `"cluster"`) {
			t.Fatalf("build with the cluster down: %v, want an unreachable error naming the cluster", err)
		}
		if cp, _ := f.ix.Checkpoint("Item"); cp.SnapshotID != before.SnapshotID {
			t.Fatalf("checkpoint moved with the cluster down")
		}
		if st, _ := f.ix.Status("Item"); st.Backend.Failures != 1 || st.Backend.LagSeconds <= 0 || st.Backend.LastError == nil {
			t.Fatalf("backend status with the cluster down: %+v", st.Backend)
		}
		p.Up(t)
		if res := f.build(t, indexer.BuildOptions{}); res.Kind != indexer.KindIncremental {
			t.Fatalf("build after the cluster returned: %s", res.Kind)
		}
		f.checkBackend(t, "after the cluster returned")
		if st, _ := f.ix.Status("Item"); st.Backend.LagSeconds != 0 || st.Backend.Writes == 0 {
			t.Fatalf("backend status after the cluster returned: %+v", st.Backend)
		}
	})

	t.Run("a later page the backend fails", func(t *testing.T) {
		// The embedded index cannot go on from the backend's cursor: the
		// read fails with the backend's error, not a bad cursor's.
		f := newBackendFixture(t, c.URL(), "later-", 9)
		res := f.build(t, indexer.BuildOptions{})
		v, err := f.ix.View("Item")
		if err != nil {
			t.Fatal(err)
		}
		defer v.Release()
		q := &query.Search{PageSize: 5}
		p, err := v.Search(f.ctx, q)
		if err != nil || p.Next == nil {
			t.Fatalf("first page: %v", err)
		}
		cl, err := opensearch.New(opensearch.Options{Name: "cluster", URLs: []string{c.URL()}, IndexPrefix: "later-"}, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		if err := cl.Writer(v.Type()).Drop(f.ctx, uint64(res.Generation)); err != nil {
			t.Fatal(err)
		}
		q.After = p.Next
		if _, err := v.Search(f.ctx, q); err == nil || errors.Is(err, query.ErrBadCursor) || !namesCluster(err) {
			t.Fatalf("the next page without the backend's index: %v, want the backend's error", err)
		}
	})
}

// failAtWrite makes the n-th write of ix to its backend (counting from 1)
// fail with the error it returns, once the backend took it.
func failAtWrite(ix *indexer.Indexer, n int) error {
	var mu sync.Mutex
	writes := 0
	injected := errors.New("injected")
	indexer.SetAfterBackend(ix, func(_, step string) error {
		mu.Lock()
		defer mu.Unlock()
		if writes++; writes == n {
			return injected
		}
		return nil
	})
	return injected
}
