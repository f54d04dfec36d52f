package geobench

import (
	"errors"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/internal/pgserver"
)

// TestRun runs the bench small: the engine and PostGIS must find the same
// page and count for every filter (Run fails otherwise), which checks the
// engine's geo semantics against PostGIS's on 20,000 rows.
func TestRun(t *testing.T) {
	rep, err := Run(t.Context(), Options{Rows: 20_000, Seed: 1, Duration: 20 * time.Millisecond})
	if errors.Is(err, pgserver.ErrNotFound) {
		t.Fatalf("PostgreSQL is not installed (.ci/run installs it): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 2*len(Queries()) {
		t.Fatalf("%d results", len(rep.Results))
	}
	for _, r := range rep.Results {
		if r.Matches == 0 || r.EngineQPS <= 0 || r.PGQPS <= 0 {
			t.Errorf("%+v", r)
		}
	}
}
