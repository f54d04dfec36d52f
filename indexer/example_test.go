package indexer_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/objects"
)

// Example builds an object type from an Iceberg table, applies a
// copy-on-write edit, builds again incrementally and reads an object.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "ontoindex-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// A table with 20 rows in two files, written with iceberg-go.
	w, err := icebergtest.NewWarehouse(filepath.Join(dir, "warehouse"))
	if err != nil {
		log.Fatal(err)
	}
	tbl, err := w.CreateTable(ctx, "sales.customers", customerSchema(), nil)
	if err != nil {
		log.Fatal(err)
	}
	_ = tbl.Append(ctx, customerRows(0, 10))
	_ = tbl.Append(ctx, customerRows(10, 10))

	cfg := config.Default()
	cfg.DataDir = filepath.Join(dir, "data")
	cfg.Catalogs = map[string]config.Catalog{"lake": {Type: "hadoop", Properties: map[string]string{"warehouse": w.Dir}}}
	cfg.ObjectTypes = []objects.TypeSpec{{APIName: "Customer", Table: "lake.sales.customers", TitleProperty: "name"}}
	if err := cfg.Validate(); err != nil {
		log.Fatal(err)
	}
	ix, err := indexer.Open(ctx, cfg, indexer.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer ix.Close()

	r, _ := ix.Build(ctx, "Customer", indexer.BuildOptions{})
	fmt.Println(r.Kind, r.FilesRead, r.Upserts)

	// Rename customer 12: copy-on-write rewrites its file of 10 rows.
	_ = tbl.Overwrite(ctx, iceberg.EqualTo(iceberg.Reference("id"), int64(12)),
		[]icebergtest.Row{{"id": 12, "name": "Ada", "city": "Oslo", "score": 3}})
	r, _ = ix.Build(ctx, "Customer", indexer.BuildOptions{})
	fmt.Println(r.Kind, r.RowsRead, r.Upserts, r.Deletes)

	v, _ := ix.View("Customer")
	defer v.Release()
	key, _ := v.Type().ParseKey("12")
	o, _ := v.Get(key)
	fmt.Println(v.Type().JSON(o)["__title"])
	// Output:
	// full 2 20
	// incremental 10 1 0
	// Ada
}
