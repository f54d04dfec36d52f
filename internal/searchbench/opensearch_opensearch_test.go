//go:build integration_opensearch

package searchbench

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/internal/testkit/commandtest"
	"github.com/ontoindex/ontoindex/internal/testkit/jvmtest"
)

// TestRun_openSearch runs a small bench with the OpenSearch side, after
// a warm-up whose builds indexed both tables: the backend server answers every query as the embedded one does (Run fails
// otherwise), the rows the backend sends OpenSearch are measured both ways
// with the straight DSL replayed without an error, and the rows the
// embedded index answers say so.
func TestRun_openSearch(t *testing.T) {
	indexer := commandtest.MustBuild(t, "indexer")
	rep, err := Run(context.Background(), Options{Rows: 5000, Files: 4, Clients: 2, Duration: 300 * time.Millisecond,
		Warmup: 50 * time.Millisecond, Rounds: 1, Seed: 1, ServeBin: indexer, OpenSearch: true, OpenSearchWarmUp: true})
	if errors.Is(err, jvmtest.ErrNotInstalled) {
		jvmtest.SkipUnlessInstalled(t, "OpenSearch", err) // fails on CI
	}
	if err != nil {
		t.Fatal(err)
	}
	f := rep.OpenSearch
	if f == nil || f.Objects != 5000 || f.Orders != 5000 || f.SearchableSeconds <= 0 || len(f.Builds) != 2 || f.Ingest == nil ||
		f.Ingest.Documents != 10000 || f.Ingest.Ratio <= 0 || f.WarmUp == nil || len(f.WarmUp.Builds) != 2 || f.WarmUp.Indexed() != 10000 {
		t.Fatalf("OpenSearch figures %+v", f)
	}
	embedded := map[string]bool{"get": true, "relevance": true, "derived": true}
	for _, q := range rep.Queries {
		if q.Ontoindex == nil {
			continue
		}
		switch {
		case embedded[q.ID]:
			if q.OpenSearchSearches != 0 || q.Backend != nil || q.OpenSearchNote == "" {
				t.Errorf("%s: %d searches, backend %+v, note %q: want the embedded index's answer, said so", q.ID, q.OpenSearchSearches, q.Backend, q.OpenSearchNote)
			}
		case q.ID == "around":
			// Its DSL holds the keys of the customers found.
			if q.Backend == nil || q.Straight != nil || q.OpenSearchNote == "" {
				t.Errorf("%s: backend %+v, straight %+v, note %q", q.ID, q.Backend, q.Straight, q.OpenSearchNote)
			}
		default:
			if q.OpenSearchSearches < 1 || q.Backend == nil || q.Straight == nil || q.Backend.Errors > 0 || q.Straight.Errors > 0 ||
				q.Backend.Requests == 0 || q.Straight.Requests == 0 {
				t.Errorf("%s: %d searches, backend %+v, straight %+v (%s)", q.ID, q.OpenSearchSearches, q.Backend, q.Straight, q.OpenSearchNote)
			}
		}
	}
}
