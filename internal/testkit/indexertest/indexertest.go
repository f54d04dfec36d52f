package indexertest

import (
	"context"
	"testing"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/objects"
)

// Config returns a config with one hadoop catalog "warehouse" over w, a
// data dir in a temporary directory, and the given object types.
func Config(tb testing.TB, w *icebergtest.Warehouse, specs ...objects.TypeSpec) *config.Config {
	tb.Helper()
	cfg := config.Default()
	cfg.DataDir = tb.TempDir()
	cfg.Catalogs = map[string]config.Catalog{"warehouse": {Type: "hadoop", Properties: map[string]string{"warehouse": w.Dir}}}
	cfg.ObjectTypes = specs
	cfg.Build.ChunkRows = 1000
	if err := cfg.Validate(); err != nil {
		tb.Fatal(err)
	}
	return cfg
}

// Open opens an indexer and closes it when the test ends.
func Open(tb testing.TB, cfg *config.Config) *indexer.Indexer {
	tb.Helper()
	ix, err := indexer.Open(context.Background(), cfg, indexer.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = ix.Close() })
	return ix
}

// Export returns every object of a type as JSON-like maps, in key order.
func Export(tb testing.TB, ix *indexer.Indexer, name string) []map[string]any {
	tb.Helper()
	v, err := ix.View(name)
	if err != nil {
		tb.Fatal(err)
	}
	defer v.Release()
	var out []map[string]any
	t := v.Type()
	if err := v.Scan(nil, func(_ []byte, o *objects.Object) bool {
		out = append(out, t.JSON(o))
		return true
	}); err != nil {
		tb.Fatal(err)
	}
	return out
}
