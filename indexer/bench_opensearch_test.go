//go:build integration_opensearch

package indexer_test

import (
	"testing"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
	"github.com/ontoindex/ontoindex/internal/testkit/opensearchtest"
)

// BenchmarkIndexer_Build_openSearch times full builds of 100,300 objects
// of six properties into the embedded index alone and into it and an
// OpenSearch node (one node, on the same machine), alternating, from the
// same table.
const backendBenchRows = 300 + 10*10000

func BenchmarkIndexer_Build_openSearch(b *testing.B) {
	c := opensearchtest.Must(b, opensearchtest.Options{})
	f := newBackendFixture(b, c.URL(), "bench-", 7)
	for range (backendBenchRows - 300) / 10000 {
		if err := f.tbl.Append(f.ctx, f.rows(10000, "bench")); err != nil {
			b.Fatal(err)
		}
	}
	embedded := *f.cfg
	embedded.ObjectTypes = append(embedded.ObjectTypes[:0:0], f.cfg.ObjectTypes...)
	embedded.ObjectTypes[0].Backend = ""
	embedded.DataDir = b.TempDir()
	if err := embedded.Validate(); err != nil {
		b.Fatal(err)
	}
	ixs := map[string]*indexer.Indexer{"embedded": indexertest.Open(b, &embedded), "opensearch": f.ix}
	for _, name := range []string{"embedded", "opensearch"} {
		b.Run(name, func(b *testing.B) {
			ix := ixs[name]
			for b.Loop() {
				if _, err := ix.Build(f.ctx, "Item", indexer.BuildOptions{Full: true}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(backendBenchRows)*float64(b.N)/b.Elapsed().Seconds(), "objects/s")
		})
	}
}
