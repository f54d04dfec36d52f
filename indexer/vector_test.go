package indexer_test

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/indexer"
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
}
