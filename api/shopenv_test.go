package api_test

import (
	"context"
	"testing"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/apidemo"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

// mustShopEnv is mustEnv with the linked shop of apidemo served too:
// Customer, Order and Tag, with Order's links and the join table behind
// Order.tags, all built from real tables in the same warehouse.
func mustShopEnv(tb testing.TB, edit ...func(*config.Config)) *testEnv {
	tb.Helper()
	ctx := context.Background()
	shop := func(cfg *config.Config) {
		// The demo's warehouse: mustEnv made it, and the config holds its
		// directory.
		w, err := icebergtest.NewWarehouse(cfg.Catalogs["warehouse"].Properties["warehouse"])
		if err != nil {
			tb.Fatal(err)
		}
		if err := apidemo.CreateShop(ctx, w); err != nil {
			tb.Fatal(err)
		}
		cfg.ObjectTypes = append(cfg.ObjectTypes, apidemo.ShopSpecs("warehouse")...)
	}
	e := mustEnv(tb, append([]func(*config.Config){shop}, edit...)...)
	for _, name := range apidemo.ShopTypes() {
		if _, err := e.ix.Build(ctx, name, indexer.BuildOptions{}); err != nil {
			tb.Fatalf("build %s: %v", name, err)
		}
	}
	return e
}
