package indexer_test

import (
	"context"
	"flag"
	"fmt"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/benchdata"
	"github.com/ontoindex/ontoindex/internal/icebergwrite"
	"github.com/ontoindex/ontoindex/objects"
)

var (
	benchRows = flag.Int("indexer.bench-rows", 50_000, "rows of the table BenchmarkIndexer_Build builds")
	benchFile = flag.Int("indexer.bench-file-rows", 25_000, "rows per data file of that table")
)

// BenchmarkIndexer_Build measures a full build (objects/s) and, as the
// baseline of the same run, iceberg-go reading the same rows; and the
// incremental build of a one-row copy-on-write edit, which rewrites a
// data file of -indexer.bench-file-rows rows (the commit is not timed).
func BenchmarkIndexer_Build(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	tbl, err := benchdata.WriteTable(ctx, dir, *benchRows, max(1, *benchRows / *benchFile))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			_, it, err := tbl.Scan().ToArrowRecords(ctx)
			if err != nil {
				b.Fatal(err)
			}
			for rec, err := range it {
				if err != nil {
					b.Fatal(err)
				}
				rec.Release()
			}
		}
		b.ReportMetric(float64(*benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	open := func(b *testing.B) *indexer.Indexer {
		cfg := config.Default()
		cfg.DataDir = b.TempDir()
		cfg.Catalogs = map[string]config.Catalog{"warehouse": {Type: "hadoop", Properties: map[string]string{"warehouse": benchdata.Warehouse(dir)}}}
		cfg.ObjectTypes = []objects.TypeSpec{{APIName: "Item", Table: "warehouse." + benchdata.Ident}}
		if err := cfg.Validate(); err != nil {
			b.Fatal(err)
		}
		ix, err := indexer.Open(ctx, cfg, indexer.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = ix.Close() })
		return ix
	}
	b.Run("full", func(b *testing.B) {
		ix := open(b)
		for b.Loop() {
			if _, err := ix.Build(ctx, "Item", indexer.BuildOptions{Full: true}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(*benchRows)*float64(b.N)/b.Elapsed().Seconds(), "objects/s")
	})
	b.Run("edit", func(b *testing.B) {
		ix := open(b)
		if _, err := ix.Build(ctx, "Item", indexer.BuildOptions{Full: true}); err != nil {
			b.Fatal(err)
		}
		edited := tbl
		for i := 0; b.Loop(); i++ {
			b.StopTimer()
			key := int64(i) * 7919 % int64(*benchRows)
			var err error
			edited, err = icebergwrite.Overwrite(ctx, edited, iceberg.EqualTo(iceberg.Reference("id"), key), benchdata.Items(int(key), 1, fmt.Sprintf("edit%d", i)))
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			res, err := ix.Build(ctx, "Item", indexer.BuildOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if res.Upserts != 1 || res.Deletes != 0 {
				b.Fatalf("edit %d: %d upserts, %d deletes; want one upsert", i, res.Upserts, res.Deletes)
			}
		}
	})
}
