//go:build integration_opensearch

package indexer_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"reflect"
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
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
	"github.com/ontoindex/ontoindex/internal/testkit/opensearchtest"
	"github.com/ontoindex/ontoindex/objects"
)

// itemSchema: id long (identifier), city and note strings, score double,
// qty long, flag boolean; every column but id nullable.
func itemSchema() *iceberg.Schema {
	return iceberg.NewSchemaWithIdentifiers(1, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "city", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "score", Type: iceberg.PrimitiveTypes.Float64},
		iceberg.NestedField{ID: 4, Name: "qty", Type: iceberg.PrimitiveTypes.Int64},
		iceberg.NestedField{ID: 5, Name: "flag", Type: iceberg.PrimitiveTypes.Bool},
		iceberg.NestedField{ID: 6, Name: "note", Type: iceberg.PrimitiveTypes.String},
	)
}

var itemCities = []string{"Lisbon", "Oslo", "Quito", "Hanoi", "Lima", "Osaka"}

// backendFixture is an object type Item with backend "cluster" over an
// Iceberg table, and the ids the table holds.
type backendFixture struct {
	ctx  context.Context
	rng  *rand.Rand
	tbl  *icebergtest.Table
	cfg  *config.Config
	ix   *indexer.Indexer
	ids  map[int64]bool
	next int64
	// maxPages bounds the pages checkBackend compares of each search (0:
	// every page).
	maxPages int
}

// newBackendFixture writes 300 rows in three files and opens an indexer
// whose type Item indexes them into the cluster at url, under prefix.
func newBackendFixture(t testing.TB, url, prefix string, seed uint64, edit ...func(*config.Config)) *backendFixture {
	t.Helper()
	f := &backendFixture{ctx: context.Background(), rng: rand.New(rand.NewPCG(seed, 30)), ids: map[int64]bool{}}
	w := icebergtest.MustWarehouse(t)
	tbl, err := w.CreateTable(f.ctx, "ns.items", itemSchema(), nil)
	if err != nil {
		t.Fatal(err)
	}
	f.tbl = tbl
	for range 3 {
		if err := tbl.Append(f.ctx, f.rows(100, "base")); err != nil {
			t.Fatal(err)
		}
	}
	f.cfg = indexertest.Config(t, w, objects.TypeSpec{APIName: "Item", Table: "warehouse.ns.items"})
	f.cfg.Backends = map[string]config.Backend{"cluster": {Type: config.BackendOpenSearch, URLs: []string{url}, IndexPrefix: prefix, Replicas: new(0)}}
	f.cfg.ObjectTypes[0].Backend = "cluster"
	for _, fn := range edit {
		fn(f.cfg)
	}
	if err := f.cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	f.ix = indexertest.Open(t, f.cfg)
	return f
}

// row is a random row of id, tagged in note.
func (f *backendFixture) row(id int64, note string) icebergtest.Row {
	r := f.rng
	row := icebergtest.Row{"id": id, "note": note}
	if r.IntN(8) > 0 {
		row["city"] = itemCities[r.IntN(len(itemCities))]
	}
	if r.IntN(8) > 0 {
		row["score"] = float64(r.IntN(80)-20) / 4 // quarters: sums are exact
	}
	if r.IntN(8) > 0 {
		row["qty"] = int64(r.IntN(30))
	}
	if r.IntN(8) > 0 {
		row["flag"] = r.IntN(2) == 0
	}
	return row
}

// rows are n new rows.
func (f *backendFixture) rows(n int, note string) []icebergtest.Row {
	out := make([]icebergtest.Row, n)
	for i := range out {
		out[i] = f.row(f.next, note)
		f.ids[f.next] = true
		f.next++
	}
	return out
}

// pick is up to n random live ids.
func (f *backendFixture) pick(n int) []int64 {
	live := slices.Sorted(func(yield func(int64) bool) {
		for id := range f.ids {
			if !yield(id) {
				return
			}
		}
	})
	f.rng.Shuffle(len(live), func(i, j int) { live[i], live[j] = live[j], live[i] })
	return live[:min(n, len(live))]
}

// edit makes one random copy-on-write commit: an append, an update of
// some rows deleting others, or a delete; note tags the rows it writes.
func (f *backendFixture) edit(t *testing.T, note string) string {
	t.Helper()
	switch op := f.rng.IntN(3); op {
	case 0:
		rows := f.rows(1+f.rng.IntN(20), note)
		if err := f.tbl.Append(f.ctx, rows); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("append %d", len(rows))
	case 1:
		keys := f.pick(1 + f.rng.IntN(12))
		var rows []icebergtest.Row
		var in []iceberg.BooleanExpression
		for _, k := range keys {
			in = append(in, id(k))
			if f.rng.IntN(4) == 0 {
				delete(f.ids, k)
				continue
			}
			rows = append(rows, f.row(k, note))
		}
		if err := f.tbl.Overwrite(f.ctx, orAll(in), rows); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("update %d of %v", len(rows), keys)
	default:
		keys := f.pick(1 + f.rng.IntN(8))
		var in []iceberg.BooleanExpression
		for _, k := range keys {
			in = append(in, id(k))
			delete(f.ids, k)
		}
		if err := f.tbl.Delete(f.ctx, orAll(in)); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("delete %v", keys)
	}
}

func (f *backendFixture) build(t *testing.T, opts indexer.BuildOptions) *indexer.BuildResult {
	t.Helper()
	res, err := f.ix.Build(f.ctx, "Item", opts)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	return res
}

// randomFilter is a random filter of Item's properties.
func randomFilter(r *rand.Rand, depth int) *query.Filter {
	if depth > 0 && r.IntN(3) == 0 {
		kids := make([]*query.Filter, r.IntN(3)+1)
		for i := range kids {
			kids[i] = randomFilter(r, depth-1)
		}
		switch r.IntN(3) {
		case 0:
			return query.And(kids...)
		case 1:
			return query.Or(kids...)
		}
		return query.Not(kids[0])
	}
	cmp := []query.Op{query.OpEq, query.OpGt, query.OpGte, query.OpLt, query.OpLte}
	switch r.IntN(8) {
	case 0:
		return query.IsNull([]string{"city", "score", "qty", "flag"}[r.IntN(4)], r.IntN(2) == 0)
	case 1:
		return query.Compare(cmp[r.IntN(len(cmp))], "city", itemCities[r.IntN(len(itemCities))])
	case 2:
		return query.In("city", itemCities[r.IntN(len(itemCities))], itemCities[r.IntN(len(itemCities))])
	case 3:
		return query.Compare(cmp[r.IntN(len(cmp))], "score", float64(r.IntN(80)-20)/4)
	case 4:
		return query.Compare(cmp[r.IntN(len(cmp))], "qty", int64(r.IntN(30)))
	case 5:
		return query.Eq("flag", r.IntN(2) == 0)
	case 6:
		return query.Text(query.OpStartsWith, "city", []string{"L", "O", "Os", "Q"}[r.IntN(4)])
	}
	return query.Compare(cmp[r.IntN(len(cmp))], "id", int64(r.IntN(400)))
}

// randomSort is zero to two sort properties.
func randomSort(r *rand.Rand) []query.Sort {
	var out []query.Sort
	for _, p := range []string{"city", "score", "qty", "flag", "id"} {
		if len(out) < 2 && r.IntN(4) == 0 {
			out = append(out, query.Sort{Property: p, Desc: r.IntN(2) == 0})
		}
	}
	return out
}

// randomAggregate is a random aggregation the backend computes.
func randomAggregate(r *rand.Rand) *query.Aggregate {
	q := &query.Aggregate{Filter: randomFilter(r, 2)}
	if r.IntN(4) == 0 {
		q.Filter = nil
	}
	pick := func(names ...string) string { return names[r.IntN(len(names))] }
	for range 1 + r.IntN(3) {
		m := query.Metric{Kind: []query.MetricKind{query.Count, query.Min, query.Max, query.Avg, query.Sum, query.ExactDistinct}[r.IntN(6)]}
		switch m.Kind {
		case query.Min, query.Max:
			m.Property = pick("id", "score", "qty", "city", "flag")
		case query.Avg, query.Sum:
			m.Property = pick("id", "score", "qty")
		case query.ExactDistinct:
			m.Property = pick("city", "qty", "flag", "score")
		}
		if r.IntN(4) == 0 {
			m.Order = []int{1, -1}[r.IntN(2)]
		}
		q.Metrics = append(q.Metrics, m)
	}
	for _, p := range []string{"city", "flag", "qty"} {
		if r.IntN(3) == 0 {
			g := query.Group{Kind: query.Exact, Property: p, IncludeNull: r.IntN(2) == 0}
			if r.IntN(3) == 0 {
				g.MaxGroupCount = 1 + r.IntN(4)
			}
			q.Groups = append(q.Groups, g)
		}
	}
	return q
}

// pageKeys are the keys of a page.
func pageKeys(p *indexer.Page) []string {
	out := make([]string, p.Len())
	for j := range out {
		out[j] = string(p.Key(j))
	}
	return out
}

// checkBackend compares the view's answers from the backend with its
// embedded index's: every page of random searches, random aggregations,
// and the count of every object. Every answer must come from the
// backend (no fallback).
func (f *backendFixture) checkBackend(t *testing.T, label string) {
	t.Helper()
	v, err := f.ix.View("Item")
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	all, err := v.Search(f.ctx, &query.Search{PageSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	if all.Total != v.Count() || v.Count() != int64(len(f.ids)) {
		t.Fatalf("%s: backend total %d, view count %d, table rows %d", label, all.Total, v.Count(), len(f.ids))
	}
	for i := range 40 {
		q := &query.Search{Filter: randomFilter(f.rng, 2), Sort: randomSort(f.rng), PageSize: 1 + f.rng.IntN(60)}
		eq := *q
		for page := 0; ; page++ {
			got, err := v.Search(f.ctx, q)
			if err != nil {
				t.Fatalf("%s: search %d %v: %v", label, i, q.Filter, err)
			}
			want, err := indexer.EmbeddedSearch(f.ctx, v, &eq)
			if err != nil {
				t.Fatalf("%s: embedded search %d %v: %v", label, i, q.Filter, err)
			}
			if g, w := pageKeys(got), pageKeys(want); !slices.Equal(g, w) || got.Total != want.Total {
				t.Fatalf("%s: search %d (filter %v, sort %v, size %d) page %d:\nbackend  %d total, keys %x\nembedded %d total, keys %x",
					label, i, q.Filter, q.Sort, q.PageSize, page, got.Total, g, want.Total, w)
			}
			if (got.Next == nil) != (want.Next == nil) {
				t.Fatalf("%s: search %d page %d: backend next %v, embedded next %v", label, i, page, got.Next != nil, want.Next != nil)
			}
			if got.Next == nil || page+1 == f.maxPages {
				break
			}
			q.After, eq.After = got.Next, want.Next
		}
	}
	for i := range 25 {
		q := randomAggregate(f.rng)
		got, err := v.Aggregate(f.ctx, q)
		if err != nil {
			t.Fatalf("%s: aggregate %d: %v", label, i, err)
		}
		want, err := indexer.EmbeddedAggregate(f.ctx, v, q)
		if err != nil {
			t.Fatalf("%s: embedded aggregate %d: %v", label, i, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: aggregate %d (filter %v, metrics %+v, groups %+v):\nbackend  %+v\nembedded %+v", label, i, q.Filter, q.Metrics, q.Groups, got, want)
		}
	}
	st, err := f.ix.Status("Item")
	if err != nil {
		t.Fatal(err)
	}
	if st.Backend == nil || st.Backend.Fallbacks != 0 {
		t.Fatalf("%s: backend status %+v, want no fallback", label, st.Backend)
	}
}

// noted is how many objects the backend finds with note.
func (f *backendFixture) noted(t *testing.T, note string) int64 {
	t.Helper()
	v, err := f.ix.View("Item")
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	p, err := v.Search(f.ctx, &query.Search{Filter: query.Eq("note", note), PageSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	return p.Total
}

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
		var mu sync.Mutex
		writes := 0
		injected := errors.New("injected")
		indexer.SetAfterBackend(f.ix, func(_, step string) error {
			mu.Lock()
			defer mu.Unlock()
			if writes++; writes == 3 {
				return injected
			}
			return nil
		})
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
		var mu sync.Mutex
		writes := 0
		injected := errors.New("injected")
		indexer.SetAfterBackend(f.ix, func(_, step string) error {
			mu.Lock()
			defer mu.Unlock()
			if writes++; writes == 4 {
				return injected
			}
			return nil
		})
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
		if res := f.build(t, indexer.BuildOptions{}); res.Kind != indexer.KindFull {
			t.Fatalf("build with the backend again: %s, want full", res.Kind)
		}
		f.checkBackend(t, "backend on again")
	})

	t.Run("cluster unreachable", func(t *testing.T) {
		p := newSwitchProxy(t, c.URL())
		f := newBackendFixture(t, p.url, "down-", 3)
		f.build(t, indexer.BuildOptions{})
		f.checkBackend(t, "full build")
		before, _ := f.ix.Checkpoint("Item")
		p.down(t)
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
		p.up(t)
		if res := f.build(t, indexer.BuildOptions{}); res.Kind != indexer.KindIncremental {
			t.Fatalf("build after the cluster returned: %s", res.Kind)
		}
		f.checkBackend(t, "after the cluster returned")
		if st, _ := f.ix.Status("Item"); st.Backend.LagSeconds != 0 || st.Backend.Writes == 0 {
			t.Fatalf("backend status after the cluster returned: %+v", st.Backend)
		}
	})
}

// switchProxy forwards a port to a cluster while it is up; down closes
// the port (connections refused), up opens it again.
type switchProxy struct {
	addr, url string
	target    *url.URL
	srv       *http.Server
}

func newSwitchProxy(t *testing.T, target string) *switchProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &switchProxy{addr: ln.Addr().String(), url: "http://" + ln.Addr().String(), target: u}
	p.serve(ln)
	t.Cleanup(func() { _ = p.srv.Close() })
	return p
}

func (p *switchProxy) serve(ln net.Listener) {
	p.srv = &http.Server{Handler: httputil.NewSingleHostReverseProxy(p.target)}
	go func() { _ = p.srv.Serve(ln) }()
}

func (p *switchProxy) down(t *testing.T) {
	t.Helper()
	if err := p.srv.Close(); err != nil {
		t.Fatal(err)
	}
}

func (p *switchProxy) up(t *testing.T) {
	t.Helper()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		t.Fatal(err)
	}
	p.serve(ln)
}
