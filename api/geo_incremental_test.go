package api_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

// TestGeo_incremental moves a point and reshapes a polygon in the Iceberg
// table, adds a place and a row whose pin does not parse, and checks after
// the incremental build that the geo filters follow, and that the bad row
// is skipped and named with its file and key.
func TestGeo_incremental(t *testing.T) {
	e := mustPlaceEnv(t)
	ctx := context.Background()
	w, err := icebergtest.NewWarehouse(e.cfg.Catalogs["warehouse"].Properties["warehouse"])
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := w.LoadTable(ctx, "demo.places")
	if err != nil {
		t.Fatal(err)
	}
	// Paris moves to Berlin, and its area becomes a box around Berlin.
	moved := icebergtest.Row{"place_id": "p1", "name": "Paris", "loc": map[string]any{"lat": 52.5, "lon": 13.4}, "pin": "52.5,13.4",
		"area": "POLYGON((13.35 52.45,13.45 52.45,13.45 52.55,13.35 52.55,13.35 52.45))", "outline": nil}
	if err := tbl.Overwrite(ctx, iceberg.EqualTo(iceberg.Reference("place_id"), "p1"), []icebergtest.Row{moved}); err != nil {
		t.Fatal(err)
	}
	added := []icebergtest.Row{
		{"place_id": "p9", "name": "Broken", "loc": nil, "pin": "north of here", "area": nil, "outline": nil},
		{"place_id": "p10", "name": "Pago Pago", "loc": map[string]any{"lat": -14.28, "lon": -170.7}, "pin": `{"type":"Point","coordinates":[-170.7,-14.28]}`,
			"area": `{"type":"Point","coordinates":[-170.7,-14.28]}`, "outline": nil},
	}
	if err := tbl.Append(ctx, added); err != nil {
		t.Fatal(err)
	}
	res, err := e.ix.Build(ctx, "Place", indexer.BuildOptions{})
	if err != nil || res.Kind != indexer.KindIncremental || res.SkippedRows != 1 {
		t.Fatalf("build: %+v, %v; want incremental with one row skipped", res, err)
	}
	cp, err := e.ix.Checkpoint("Place")
	if err != nil {
		t.Fatal(err)
	}
	if s := cp.InvalidRows.Samples; len(s) != 1 || s[0].File == "" || !strings.Contains(s[0].Key, "p9") || !strings.Contains(s[0].Reason, "pin") {
		t.Errorf("invalid rows = %+v, want p9's pin with its file", cp.InvalidRows)
	}
	tests := []struct {
		name, where string
		want        []string
	}{
		{"Paris is no longer near Paris", geoWhere("withinDistanceOf", "location", distance(2.3522, 48.8566, 500, "KILOMETERS")), []string{"p2", "p4"}},
		{"it is near Berlin", geoWhere("withinDistanceOf", "pin", distance(13.405, 52.52, 20, "KILOMETERS")), []string{"p1", "p3"}},
		{"its new area", geoWhere("intersectsBoundingBox", "area", box(13.36, 52.48, 13.37, 52.46)), []string{"p1"}},
		{"its outline is gone", geoWhere("intersectsBoundingBox", "outline", box(2, 49, 3, 48)), nil},
		{"the new place", geoWhere("withinBoundingBox", "location", box(170, -10, -170, -20)), []string{"p10", "p5", "p6"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, _ := e.search(t, "Place", map[string]any{"where": where(tt.where), "pageSize": 100, "orderBy": map[string]any{"fields": []any{map[string]any{"field": "placeId"}}}})
			if got := ids(page); !slices.Equal(got, tt.want) && (len(got) != 0 || len(tt.want) != 0) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	e.fail(t, http.MethodGet, ontologyPath+"/objects/Place/p9", nil, http.StatusNotFound, "ObjectNotFound")
}
