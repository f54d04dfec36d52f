//go:build integration_opensearch

package indexer_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
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
	w    *icebergtest.Warehouse
	// oracle, when set (withOracle), indexes the table into the embedded
	// index alone: checkBackend compares with it.
	oracle *indexer.Indexer
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
	f.tbl, f.w = tbl, w
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
	if f.oracle != nil {
		if _, err := f.oracle.Build(f.ctx, "Item", opts); err != nil {
			t.Fatalf("build of the oracle: %v", err)
		}
	}
	return res
}

// withOracle opens the oracle: Item of the same table in the embedded
// index alone, which checkBackend compares with when the fixture's type
// keeps no index (embeddedIndex: none).
func (f *backendFixture) withOracle(t testing.TB) {
	t.Helper()
	f.oracle = indexertest.Open(t, indexertest.Config(t, f.w, objects.TypeSpec{APIName: "Item", Table: "warehouse.ns.items"}))
}

// noIndex is the fixture's edit of the config that makes its backend keep
// no embedded index.
func noIndex(cfg *config.Config) {
	b := cfg.Backends["cluster"]
	b.EmbeddedIndex = config.EmbeddedIndexNone
	cfg.Backends["cluster"] = b
}
