package geobench

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/internal/pgserver"
)

// requirePostGIS skips the test where PostgreSQL or PostGIS is missing,
// except on CI, which installs both (.ci/run, .ci/install-postgis).
func requirePostGIS(t *testing.T) {
	t.Helper()
	bin, err := pgserver.FindBinDir("")
	if err == nil {
		// bin is .../postgresql/15/bin; its extensions are in share/postgresql/15/extension
		controls, _ := filepath.Glob(filepath.Join("/usr/share/postgresql", filepath.Base(filepath.Dir(bin)), "extension", "postgis.control"))
		if len(controls) == 0 {
			err = errors.New("PostGIS is not installed (.ci/install-postgis installs it)")
		}
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI installs PostgreSQL and PostGIS (.ci/run): %v", err)
		}
		t.Skip(err)
	}
}

// TestRun runs the bench small: the engine and PostGIS must find the same
// page and count for every filter, in each form PostGIS is asked (Run
// fails otherwise), which checks the engine's geo semantics against
// PostGIS's on 20,000 rows.
func TestRun(t *testing.T) {
	requirePostGIS(t)
	rep, err := Run(t.Context(), Options{Rows: 20_000, Seed: 1, Duration: 20 * time.Millisecond})
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
		if pageCount := r.PGPageCountQPS > 0 && r.PGPageCountForm != ""; pageCount == r.Count {
			t.Errorf("%+v: a page, and only a page, has PostGIS's page with its count", r)
		}
	}
}
