package geobench

import (
	"fmt"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// Query is one geo filter, for both sides: the engine's filter and the
// WHERE condition PostGIS runs, with the same meaning (planar boxes and
// polygons, spherical distance on the same radius).
type Query struct {
	Name   string
	Filter *query.Filter
	Where  string
}

const (
	centerLon, centerLat = -98.0, 39.0
	pentagon             = "POLYGON((-99 38,-97 38,-96.5 39.2,-98 40.2,-99.5 39.2,-99 38))"
)

func envelope(w, s, e, n float64) string {
	return fmt.Sprintf("ST_MakeEnvelope(%g, %g, %g, %g, 4326)", w, s, e, n)
}

// Queries are the bench's filters: every geo relation of the API.
func Queries() []Query {
	polygon, err := objects.ParseGeoShape(pentagon)
	if err != nil {
		panic(err)
	}
	box := query.GeoBox{West: -98.5, South: 38.5, East: -97.5, North: 39.5}
	env := envelope(box.West, box.South, box.East, box.North)
	poly := fmt.Sprintf("ST_GeomFromText('%s', 4326)", pentagon)
	return []Query{
		{"withinDistanceOf 50 km", query.GeoFilter("location", query.NewGeoDistance(objects.GeoPoint{Lon: centerLon, Lat: centerLat}, 50_000)),
			// on the sphere of PostGIS's mean radius, 6371008.7714 m, as the engine's
			fmt.Sprintf("ST_DWithin(location::geography, ST_MakePoint(%g, %g)::geography, 50000, false)", centerLon, centerLat)},
		{"withinBoundingBox 1°", query.GeoFilter("location", query.NewGeoBox(query.GeoWithinBox, box)), "ST_Intersects(location, " + env + ")"},
		{"withinPolygon", query.GeoFilter("location", query.NewGeoPolygon(query.GeoWithinPolygon, polygon.Geometry)), "ST_Intersects(location, " + poly + ")"},
		{"intersectsBoundingBox 1°", query.GeoFilter("area", query.NewGeoBox(query.GeoIntersectsBox, box)), "ST_Intersects(area, " + env + ")"},
		{"intersectsPolygon", query.GeoFilter("area", query.NewGeoPolygon(query.GeoIntersectsPolygon, polygon.Geometry)), "ST_Intersects(area, " + poly + ")"},
		{"doesNotIntersectBoundingBox 1°", query.GeoFilter("area", query.NewGeoBox(query.GeoDisjointBox, box)), "NOT ST_Intersects(area, " + env + ")"},
		{"doesNotIntersectPolygon", query.GeoFilter("area", query.NewGeoPolygon(query.GeoDisjointPolygon, polygon.Geometry)), "NOT ST_Intersects(area, " + poly + ")"},
	}
}
