package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"reflect"
	"slices"
	"testing"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/internal/testkit/apidemo"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/objects"
)

// mustPlaceEnv is mustEnv with apidemo's Place served: geo properties over
// real Iceberg struct, string and binary columns.
func mustPlaceEnv(tb testing.TB) *testEnv {
	tb.Helper()
	ctx := context.Background()
	places := func(cfg *config.Config) {
		w, err := icebergtest.NewWarehouse(cfg.Catalogs["warehouse"].Properties["warehouse"])
		if err != nil {
			tb.Fatal(err)
		}
		if err := apidemo.CreatePlaces(ctx, w); err != nil {
			tb.Fatal(err)
		}
		cfg.ObjectTypes = append(cfg.ObjectTypes, apidemo.PlaceSpecs("warehouse")...)
	}
	e := mustEnv(tb, places)
	if _, err := e.ix.Build(ctx, "Place", indexer.BuildOptions{}); err != nil {
		tb.Fatalf("build Place: %v", err)
	}
	return e
}

func TestGeo_objects(t *testing.T) {
	e := mustPlaceEnv(t)
	page, _ := e.search(t, "Place", map[string]any{"pageSize": 100})
	if len(page) != len(apidemo.Places) {
		t.Fatalf("%d places, want %d", len(page), len(apidemo.Places))
	}
	for _, p := range apidemo.Places {
		got := e.ok(t, http.MethodGet, ontologyPath+"/objects/Place/"+p.ID, nil)
		i := slices.IndexFunc(page, func(o map[string]any) bool { return o["__primaryKey"] == p.ID })
		for from, o := range map[string]map[string]any{"get": got, "search": page[i]} {
			if p.Area == "" {
				for _, k := range []string{"location", "pin", "area", "outline"} {
					if v, ok := o[k]; ok {
						t.Errorf("%s (%s): %s = %v, want none", p.ID, from, k, v)
					}
				}
				continue
			}
			point := jsonOf(t, fmt.Sprintf(`{"type":"Point","coordinates":[%g,%g]}`, p.Lon, p.Lat))
			if !reflect.DeepEqual(o["location"], point) || !reflect.DeepEqual(o["pin"], point) {
				t.Errorf("%s (%s): location %v pin %v, want %v", p.ID, from, o["location"], o["pin"], point)
			}
			shape, _ := objects.ParseGeoShape(p.Area)
			want := jsonOf(t, string(shape.GeoJSON()))
			if !reflect.DeepEqual(o["area"], want) || !reflect.DeepEqual(o["outline"], want) {
				t.Errorf("%s (%s): area %v outline %v, want %v", p.ID, from, o["area"], o["outline"], want)
			}
		}
	}
}

func TestGeo_metadata(t *testing.T) {
	e := mustPlaceEnv(t)
	props := e.ok(t, http.MethodGet, ontologyPath+"/objectTypes/Place", nil)["properties"].(map[string]any)
	for name, want := range map[string]string{"location": "geopoint", "pin": "geopoint", "area": "geoshape", "outline": "geoshape"} {
		if dt := props[name].(map[string]any)["dataType"].(map[string]any); dt["type"] != want {
			t.Errorf("%s dataType = %v, want %s", name, dt, want)
		}
	}
}

// point, box and polygon write the wire values @osdk/client sends.
func point(lon, lat float64) string {
	return fmt.Sprintf(`{"type":"Point","coordinates":[%g,%g]}`, lon, lat)
}
func box(west, north, east, south float64) string {
	return fmt.Sprintf(`{"topLeft":%s,"bottomRight":%s}`, point(west, north), point(east, south))
}
func polygon(lonLats ...float64) string {
	var ring []string
	for i := 0; i < len(lonLats); i += 2 {
		ring = append(ring, fmt.Sprintf("[%g,%g]", lonLats[i], lonLats[i+1]))
	}
	var coords []json.RawMessage
	for _, r := range ring {
		coords = append(coords, json.RawMessage(r))
	}
	b, _ := json.Marshal([][]json.RawMessage{coords})
	return `{"type":"Polygon","coordinates":` + string(b) + `}`
}
func geoWhere(typ, field, value string) string {
	return fmt.Sprintf(`{"type":%q,"field":%q,"value":%s}`, typ, field, value)
}
func distance(lon, lat, value float64, unit string) string {
	return fmt.Sprintf(`{"center":%s,"distance":{"value":%g,"unit":%q}}`, point(lon, lat), value, unit)
}

func TestGeo_where(t *testing.T) {
	e := mustPlaceEnv(t)
	europe := box(-10, 60, 20, 40)
	tests := []struct {
		name, where string
		want        []string
	}{
		{"distance from Paris", geoWhere("withinDistanceOf", "location", distance(2.3522, 48.8566, 500, "KILOMETERS")), []string{"p1", "p2", "p4"}},
		{"distance in miles", geoWhere("withinDistanceOf", "pin", distance(2.3522, 48.8566, 300, "MILES")), []string{"p1", "p2", "p4"}},
		{"distance across the antimeridian", geoWhere("withinDistanceOf", "location", distance(180, -16, 1000, "KILOMETERS")), []string{"p5", "p6"}},
		{"distance from the pole", geoWhere("withinDistanceOf", "location", distance(0, 90, 1500, "KILOMETERS")), []string{"p7"}},
		{"box", geoWhere("withinBoundingBox", "location", box(-1, 53, 5, 45)), []string{"p1", "p2", "p4"}},
		{"box across the antimeridian", geoWhere("withinBoundingBox", "pin", box(170, -10, -170, -20)), []string{"p5", "p6"}},
		{"box to the pole", geoWhere("withinBoundingBox", "location", box(-180, 90, 180, 70)), []string{"p7"}},
		{"polygon", geoWhere("withinPolygon", "location", polygon(-1, 51, 3, 48, 3, 52, -1, 51)), []string{"p1"}},
		{"shape in a box", geoWhere("intersectsBoundingBox", "area", box(13.4, 52.6, 13.45, 52.4)), []string{"p3"}},
		{"wkb in a box", geoWhere("intersectsBoundingBox", "outline", box(13.4, 52.6, 13.45, 52.4)), []string{"p3"}},
		{"shape across the antimeridian", geoWhere("intersectsBoundingBox", "area", box(179.5, -10, -171.5, -20)), []string{"p5", "p6"}},
		{"shape in a polygon", geoWhere("intersectsPolygon", "area", polygon(4.8, 45.75, 5, 45.75, 5, 46, 4.8, 46, 4.8, 45.75)), []string{"p2"}},
		{"point in a shape's polygon", geoWhere("intersectsPolygon", "location", polygon(4.8, 45.75, 5, 45.75, 5, 46, 4.8, 46, 4.8, 45.75)), []string{"p2"}},
		{"not in a box", geoWhere("doesNotIntersectBoundingBox", "area", europe), []string{"p5", "p6", "p7"}},
		{"not in a polygon", geoWhere("doesNotIntersectPolygon", "outline", polygon(-10, 40, 20, 40, 20, 60, -10, 60, -10, 40)), []string{"p5", "p6", "p7"}},
		{"and", `{"type":"and","value":[` + geoWhere("withinBoundingBox", "location", europe) + `,{"type":"eq","field":"name","value":"Paris"}]}`, []string{"p1"}},
		{"or", `{"type":"or","value":[` + geoWhere("withinBoundingBox", "location", box(170, -10, -170, -20)) + `,{"type":"eq","field":"name","value":"Paris"}]}`, []string{"p1", "p5", "p6"}},
		{"not", `{"type":"not","value":` + geoWhere("withinBoundingBox", "location", europe) + `}`, []string{"p5", "p6", "p7", "p8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, m := e.search(t, "Place", map[string]any{"where": where(tt.where), "pageSize": 100, "orderBy": map[string]any{"fields": []any{map[string]any{"field": "placeId"}}}})
			if got := ids(page); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			if fmt.Sprint(m["totalCount"]) != fmt.Sprint(len(tt.want)) {
				t.Errorf("totalCount %v, want %d", m["totalCount"], len(tt.want))
			}
			agg := e.ok(t, http.MethodPost, ontologyPath+"/objects/Place/aggregate", map[string]any{"where": where(tt.where),
				"aggregation": []any{map[string]any{"type": "count", "name": "n"}}, "groupBy": []any{}})
			data := agg["data"].([]any)
			if got := fmt.Sprint(data[0].(map[string]any)["metrics"].([]any)[0].(map[string]any)["value"]); got != fmt.Sprint(len(tt.want)) {
				t.Errorf("count %s, want %d", got, len(tt.want))
			}
		})
	}
}

func TestGeo_whereErrors(t *testing.T) {
	e := mustPlaceEnv(t)
	tests := []struct {
		name, where, error string
	}{
		{"within on a shape", geoWhere("withinBoundingBox", "area", box(0, 1, 1, 0)), "PropertyFiltersNotSupported"},
		{"geo on a keyword", geoWhere("intersectsBoundingBox", "name", box(0, 1, 1, 0)), "PropertyFiltersNotSupported"},
		{"eq on a point", `{"type":"eq","field":"location","value":"1,2"}`, "PropertiesNotSearchable"},
		{"an open polygon", geoWhere("withinPolygon", "location", polygon(0, 0, 1, 0, 1, 1)), "InvalidPropertyFilterValue"},
		{"a bow tie", geoWhere("intersectsPolygon", "area", polygon(0, 0, 1, 1, 1, 0, 0, 1, 0, 0)), "InvalidPropertyFilterValue"},
		{"not a polygon", geoWhere("intersectsPolygon", "area", point(0, 0)), "InvalidPropertyFilterValue"},
		{"a box upside down", geoWhere("withinBoundingBox", "location", box(0, 0, 1, 1)), "InvalidPropertyFilterValue"},
		{"a latitude off the earth", geoWhere("withinBoundingBox", "location", box(0, 91, 1, 0)), "InvalidPropertyFilterValue"},
		{"a unit", geoWhere("withinDistanceOf", "location", distance(0, 0, 1, "FURLONGS")), "InvalidPropertyFilterValue"},
		{"a negative distance", geoWhere("withinDistanceOf", "location", distance(0, 0, -1, "METERS")), "InvalidPropertyFilterValue"},
		{"geoShapeV2", `{"type":"geoShapeV2","field":"area","geometry":{},"spatialFilterMode":"INTERSECTS"}`, "PropertyFiltersNotSupported"},
		{"order by a point", "", "PropertiesNotSortable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := map[string]any{"where": where(tt.where)}
			if tt.where == "" {
				body = map[string]any{"orderBy": map[string]any{"fields": []any{map[string]any{"field": "location"}}}}
			}
			e.fail(t, http.MethodPost, ontologyPath+"/objects/Place/search", body, http.StatusBadRequest, tt.error)
		})
	}
}

// TestGeo_whereDifferential sends random geo filters and checks the
// answer against each place tested through the geometry library.
func TestGeo_whereDifferential(t *testing.T) {
	e := mustPlaceEnv(t)
	r := rand.New(rand.NewPCG(26, 2))
	for i := range 60 {
		lon, lat := r.Float64()*360-180, r.Float64()*180-90
		var wire string
		var g *query.Geo
		prop := "location"
		switch r.IntN(3) {
		case 0:
			km := math.Round(r.Float64() * 5000)
			wire = geoWhere("withinDistanceOf", "pin", distance(lon, lat, km, "KILOMETERS"))
			g = query.NewGeoDistance(objects.GeoPoint{Lon: lon, Lat: lat}, km*1000)
		case 1:
			w, h := math.Round(r.Float64()*100), math.Round(r.Float64()*60)
			b := query.GeoBox{West: lon, East: lon + w, South: max(-90, lat-h), North: min(90, lat+h)}
			if b.East > 180 {
				b.East -= 360
			}
			wire = geoWhere("intersectsBoundingBox", "outline", box(b.West, b.North, b.East, b.South))
			g, prop = query.NewGeoBox(query.GeoIntersectsBox, b), "area"
		default:
			w, h := 5+r.Float64()*60, 5+r.Float64()*40
			x0, x1, y0, y1 := max(-180, lon-w), min(180, lon+w), max(-90, lat-h), min(90, lat+h)
			wire = geoWhere("withinPolygon", "location", polygon(x0, y0, x1, y0, (x0+x1)/2, y1, x0, y0))
			shape, _ := objects.ParseGeoShape(fmt.Sprintf("POLYGON((%g %g,%g %g,%g %g,%g %g))", x0, y0, x1, y0, (x0+x1)/2, y1, x0, y0))
			g = query.NewGeoPolygon(query.GeoWithinPolygon, shape.Geometry)
		}
		var want []string
		for _, p := range apidemo.Places {
			if p.Area == "" {
				continue
			}
			var v any = objects.GeoPoint{Lon: p.Lon, Lat: p.Lat}
			if prop == "area" {
				v, _ = objects.ParseGeoShape(p.Area)
			}
			if g.Matches(v) {
				want = append(want, p.ID)
			}
		}
		page, _ := e.search(t, "Place", map[string]any{"where": where(wire), "pageSize": 100, "orderBy": map[string]any{"fields": []any{map[string]any{"field": "placeId"}}}})
		if got := ids(page); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("%d: %s: got %v, want %v", i, wire, got, want)
		}
	}
}
