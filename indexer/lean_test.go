package indexer_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
	"github.com/ontoindex/ontoindex/internal/testkit/peopletest"
	"github.com/ontoindex/ontoindex/objects"
)

// TestIndexer_CheckReload_embeddedIndex: a reload may move an object type
// between backends that keep the embedded index, but not in or out of
// one that keeps none (its generation is opened one way: a restart).
func TestIndexer_CheckReload_embeddedIndex(t *testing.T) {
	w := icebergtest.MustWarehouse(t)
	peopletest.MustPeople(t, w, "ns.a", nil, 1, 3)
	cfg := indexertest.Config(t, w, objects.TypeSpec{APIName: "A", Table: "warehouse.ns.a"})
	// No cluster listens: nothing is built, and a reload's check reads none.
	cfg.Backends = map[string]config.Backend{
		"lean": {Type: config.BackendOpenSearch, URLs: []string{"http://127.0.0.1:1"}, EmbeddedIndex: config.EmbeddedIndexNone},
		"fat":  {Type: config.BackendOpenSearch, URLs: []string{"http://127.0.0.1:1"}},
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	ix := indexertest.Open(t, cfg)
	tests := []struct{ name, backend, want string }{
		{"no backend", "", ""},
		{"a backend with the index", "fat", ""},
		{"a backend without it", "lean", "objectTypes[0].backend: moves A"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := *cfg
			next.ObjectTypes = []objects.TypeSpec{{APIName: "A", Table: "warehouse.ns.a", Backend: tt.backend}}
			_, err := ix.CheckReload(context.Background(), &next)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("reload to backend %q: %v", tt.backend, err)
			case tt.want != "" && (!errors.Is(err, indexer.ErrInvalidConfig) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "restart")):
				t.Fatalf("reload to backend %q: %v, want ErrInvalidConfig naming %q and a restart", tt.backend, err, tt.want)
			}
		})
	}
}
