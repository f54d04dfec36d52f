// Package benchdata writes the Iceberg tables of the benchmarks: items
// (a long key, two strings, a double, a timestamp and a boolean) for the
// build benchmark, and customers (customers.go) and their orders (orders.go)
// for the search benchmark.
package benchdata

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/hadoop"
	"github.com/apache/iceberg-go/table"
)

// Ident is the table the benchmarks use, in catalog "warehouse".
const Ident = "ns.items"

// Warehouse is the hadoop warehouse directory under dir.
func Warehouse(dir string) string { return filepath.Join(dir, "warehouse") }

// WriteTable writes table ns.items with rows rows in files data files, in
// one snapshot, into the hadoop warehouse under dir.
func WriteTable(ctx context.Context, dir string, rows, files int) (*table.Table, error) {
	cat, err := hadoop.NewCatalog("warehouse", Warehouse(dir), iceberg.Properties{})
	if err != nil {
		return nil, err
	}
	return WriteTableTo(ctx, cat, rows, files)
}

// WriteTableTo writes table ns.items as WriteTable does, through any
// catalog (the bench's S3 warehouse is a sql catalog's).
func WriteTableTo(ctx context.Context, cat catalog.Catalog, rows, files int) (*table.Table, error) {
	if err := cat.CreateNamespace(ctx, catalog.ToIdentifier("ns"), nil); err != nil {
		return nil, err
	}
	sc := iceberg.NewSchemaWithIdentifiers(1, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "category", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 4, Name: "price", Type: iceberg.PrimitiveTypes.Float64},
		iceberg.NestedField{ID: 5, Name: "created", Type: iceberg.PrimitiveTypes.TimestampTz},
		iceberg.NestedField{ID: 6, Name: "active", Type: iceberg.PrimitiveTypes.Bool})
	tbl, err := cat.CreateTable(ctx, catalog.ToIdentifier("ns", "items"), sc)
	if err != nil {
		return nil, err
	}
	per := (rows + files - 1) / files
	tx := tbl.NewTransaction()
	for from := 0; from < rows; from += per {
		rdr, err := Records(tbl.Schema(), from, min(per, rows-from), "item")
		if err != nil {
			return nil, err
		}
		err = tx.Append(ctx, rdr, nil)
		rdr.Release()
		if err != nil {
			return nil, err
		}
	}
	return tx.Commit(ctx)
}

var words = strings.Fields("amber basalt cedar delta ember fjord granite harbor indigo juniper kestrel lagoon meadow nectar onyx prairie quartz raven sierra tundra")

// Records returns rows from..from+n of the table, names prefixed.
func Records(sc *iceberg.Schema, from, n int, prefix string) (array.RecordReader, error) {
	asc, err := table.SchemaToArrowSchema(sc, nil, false, false)
	if err != nil {
		return nil, err
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, asc)
	defer b.Release()
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := from; i < from+n; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("%s %s %s %d", prefix, words[i%len(words)], words[(i/7)%len(words)], i))
		b.Field(2).(*array.StringBuilder).Append(words[(i/13)%len(words)])
		b.Field(3).(*array.Float64Builder).Append(float64(i%100000) / 100)
		b.Field(4).(*array.TimestampBuilder).Append(arrow.Timestamp(base.Add(time.Duration(i) * time.Minute).UnixMicro()))
		b.Field(5).(*array.BooleanBuilder).Append(i%3 != 0)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return array.NewRecordReader(asc, []arrow.RecordBatch{rec})
}
