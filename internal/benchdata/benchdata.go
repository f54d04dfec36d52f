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

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/hadoop"
	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/internal/icebergwrite"
)

// Ident is the table the benchmarks use, in catalog "warehouse".
const Ident = "ns.items"

// Warehouse is the hadoop warehouse directory under dir.
func Warehouse(dir string) string { return filepath.Join(dir, "warehouse") }

// WriteTable writes table ns.items with rows rows in files data files, in
// one snapshot, into the hadoop warehouse under dir.
func WriteTable(ctx context.Context, dir string, rows, files int) (*table.Table, error) {
	cat, err := OpenWarehouse(dir)
	if err != nil {
		return nil, err
	}
	return WriteTableTo(ctx, cat, rows, files)
}

// WriteTableTo writes table ns.items as WriteTable does, through any
// catalog (the bench's S3 warehouse is a sql catalog's).
func WriteTableTo(ctx context.Context, cat catalog.Catalog, rows, files int) (*table.Table, error) {
	sc := iceberg.NewSchemaWithIdentifiers(1, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "category", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 4, Name: "price", Type: iceberg.PrimitiveTypes.Float64},
		iceberg.NestedField{ID: 5, Name: "created", Type: iceberg.PrimitiveTypes.TimestampTz},
		iceberg.NestedField{ID: 6, Name: "active", Type: iceberg.PrimitiveTypes.Bool})
	return writeTable(ctx, cat, Ident, sc, rows, files, func(from, n int) icebergwrite.Rows { return Items(from, n, "item") })
}

// OpenWarehouse opens the hadoop catalog "warehouse" of the warehouse
// under dir.
func OpenWarehouse(dir string) (catalog.Catalog, error) {
	cat, err := hadoop.NewCatalog("warehouse", Warehouse(dir), iceberg.Properties{})
	if err != nil {
		return nil, fmt.Errorf("open hadoop catalog %s: %w", Warehouse(dir), err)
	}
	return cat, nil
}

// writeTable creates table ident in cat (and its namespace, unless it
// exists) and commits rows 0..rows-1, made by chunk, in files data files,
// in one snapshot.
func writeTable(ctx context.Context, cat catalog.Catalog, ident string, sc *iceberg.Schema, rows, files int, chunk func(from, n int) icebergwrite.Rows) (*table.Table, error) {
	tbl, err := icebergwrite.CreateTable(ctx, cat, ident, sc)
	if err != nil {
		return nil, err
	}
	// One append per file, in one transaction: each append writes its own
	// data file.
	per := (rows + files - 1) / files
	tx := tbl.NewTransaction()
	for from := 0; from < rows; from += per {
		rdr, err := chunk(from, min(per, rows-from))(tbl.Schema())
		if err != nil {
			return nil, fmt.Errorf("rows of %s: %w", ident, err)
		}
		err = tx.Append(ctx, rdr, nil)
		rdr.Release()
		if err != nil {
			return nil, fmt.Errorf("append %s %d..%d: %w", ident, from, from+per, err)
		}
	}
	tbl, err = tx.Commit(ctx)
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", ident, err)
	}
	return tbl, nil
}

var words = strings.Fields("amber basalt cedar delta ember fjord granite harbor indigo juniper kestrel lagoon meadow nectar onyx prairie quartz raven sierra tundra")

// Items is rows from..from+n of the table, names prefixed, for
// icebergwrite's commits (the bench's one-row edits among them).
func Items(from, n int, prefix string) icebergwrite.Rows {
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	return icebergwrite.Build(func(b *icebergwrite.Builder) {
		for i := from; i < from+n; i++ {
			b.Add(int64(i), fmt.Sprintf("%s %s %s %d", prefix, words[i%len(words)], words[(i/7)%len(words)], i),
				words[(i/13)%len(words)], float64(i%100000)/100, base.Add(time.Duration(i)*time.Minute), i%3 != 0)
		}
	})
}
