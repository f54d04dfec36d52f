package indexer_test

import (
	"context"
	"flag"
	"testing"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/benchdata"
	"github.com/ontoindex/ontoindex/objects"
)

var benchRows = flag.Int("indexer.bench-rows", 50_000, "rows of the table BenchmarkIndexer_Build builds")

// BenchmarkIndexer_Build measures a full build (objects/s) and, as the
// baseline of the same run, iceberg-go reading the same rows.
func BenchmarkIndexer_Build(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	tbl, err := benchdata.WriteTable(ctx, dir, *benchRows, max(1, *benchRows/25_000))
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
	b.Run("full", func(b *testing.B) {
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
		defer ix.Close()
		for b.Loop() {
			if _, err := ix.Build(ctx, "Item", indexer.BuildOptions{Full: true}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(*benchRows)*float64(b.N)/b.Elapsed().Seconds(), "objects/s")
	})
}
