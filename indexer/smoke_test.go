package indexer_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/internal/icebergtest"
	"github.com/ontoindex/ontoindex/internal/indexertest"
	"github.com/ontoindex/ontoindex/objects"
)

func TestSmoke(t *testing.T) {
	ctx := context.Background()
	w := icebergtest.MustWarehouse(t)
	sc := iceberg.NewSchemaWithIdentifiers(1, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
	)
	tb, err := w.CreateTable(ctx, "ns.t", sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		var rows []icebergtest.Row
		for j := 0; j < 5; j++ {
			rows = append(rows, icebergtest.Row{"id": i*10 + j, "name": fmt.Sprint("n", i*10+j)})
		}
		if err := tb.Append(ctx, rows); err != nil {
			t.Fatal(err)
		}
	}
	cfg := indexertest.Config(t, w, objects.TypeSpec{APIName: "T", Table: "warehouse.ns.t"})
	ix := indexertest.Open(t, cfg)
	r, err := ix.Build(ctx, "T", indexer.BuildOptions{})
	fmt.Printf("%+v %v\n", r, err)
	if err := tb.Overwrite(ctx, iceberg.EqualTo(iceberg.Reference("id"), int64(11)), []icebergtest.Row{{"id": 11, "name": "changed"}}); err != nil {
		t.Fatal(err)
	}
	r, err = ix.Build(ctx, "T", indexer.BuildOptions{})
	fmt.Printf("%+v %v\n", r, err)
	if err := tb.Delete(ctx, iceberg.EqualTo(iceberg.Reference("id"), int64(22))); err != nil {
		t.Fatal(err)
	}
	r, err = ix.Build(ctx, "T", indexer.BuildOptions{})
	fmt.Printf("%+v %v\n", r, err)
	for _, o := range indexertest.Export(t, ix, "T") {
		fmt.Println(o)
	}
	r, err = ix.Build(ctx, "T", indexer.BuildOptions{Full: true})
	fmt.Printf("%+v %v\n", r, err)
	fmt.Println(len(indexertest.Export(t, ix, "T")))
	v, _ := ix.View("T")
	n, _ := v.Index().DocCount()
	fmt.Println("docs", n)
	v.Release()
}
