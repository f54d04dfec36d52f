package indexer_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
	"github.com/ontoindex/ontoindex/objects"
)

func TestIndexer_Build_vector(t *testing.T) {
	ctx := context.Background()
	w := icebergtest.MustWarehouse(t)
	sc := iceberg.NewSchema(1,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "emb", Type: &iceberg.ListType{ElementID: 3, Element: iceberg.PrimitiveTypes.Float32, ElementRequired: false}})
	tb, err := w.CreateTable(ctx, "ns.docs", sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.Append(ctx, []icebergtest.Row{{"id": 1, "emb": []float64{1, 0, 0}}, {"id": 2, "emb": []float64{1, 0}}, {"id": 3, "emb": nil}}); err != nil {
		t.Fatal(err)
	}
	ix := indexertest.Open(t, indexertest.Config(t, w, objects.TypeSpec{APIName: "Doc", Table: "warehouse.ns.docs", PrimaryKey: []string{"id"},
		Properties: map[string]objects.PropertySpec{"id": {Column: "id"}, "embedding": {Column: "emb", Type: "vector", Dimension: 3}}}))
	r, err := ix.Build(ctx, "Doc", indexer.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.SkippedRows != 1 || r.Upserts != 2 {
		t.Errorf("result = %+v, want the 2-element vector skipped", r)
	}
	cp, _ := ix.Checkpoint("Doc")
	if len(cp.InvalidRows.Samples) != 1 {
		t.Fatalf("invalid rows = %+v", cp.InvalidRows)
	}
	s := cp.InvalidRows.Samples[0]
	if !strings.HasSuffix(s.File, ".parquet") || s.Key != "2" || !strings.Contains(s.Reason, "embedding") || !strings.Contains(s.Reason, "dimension is 3") {
		t.Errorf("sample = %+v, want the file, key 2 and the dimension named", s)
	}
	v, err := ix.View("Doc")
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	o, err := v.Get(mustKey(t, cp.Type, "1"))
	if err != nil || o == nil {
		t.Fatalf("get 1: %v, %v", o, err)
	}
	if got, ok := o.Values[cp.Type.PropertyIndex("embedding")].(objects.Vector); !ok || len(got) != 3 || got[0] != 1 {
		t.Errorf("embedding = %#v", o.Values[1])
	}
	v.Release()

	// An incremental build: id 1's vector changes, id 4 is added with the
	// old one, id 3 is deleted. The nearest to (1, 0, 0) follow.
	if err := tb.Overwrite(ctx, id(1), []icebergtest.Row{{"id": 1, "emb": []float64{0, 0, 1}}}); err != nil {
		t.Fatal(err)
	}
	if err := tb.Append(ctx, []icebergtest.Row{{"id": 4, "emb": []float64{1, 0.1, 0}}, {"id": 5, "emb": []float64{0.1, 1, 0}}}); err != nil {
		t.Fatal(err)
	}
	if err := tb.Delete(ctx, id(3)); err != nil {
		t.Fatal(err)
	}
	if r, err := ix.Build(ctx, "Doc", indexer.BuildOptions{}); err != nil || r.Kind != indexer.KindIncremental {
		t.Fatalf("incremental build: %+v, %v", r, err)
	}
	v, err = ix.View("Doc")
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	hits, err := v.Nearest(ctx, "embedding", []float32{1, 0, 0}, 10, nil, query.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range hits {
		o, err := v.Get(h.Key)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, cp.Type.KeyString(o))
	}
	if want := []string{"4", "5", "1"}; !slices.Equal(got, want) {
		t.Errorf("nearest after the edit = %v, want %v", got, want)
	}
}
