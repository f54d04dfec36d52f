package opensearch

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/peterstace/simplefeatures/geom"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// geo is the query of a geo filter. On a geopoint: a box is a
// geo_bounding_box of each box of its Bounds (two when it crosses the
// antimeridian); a polygon a geo_polygon of its exterior ring and none of
// its holes; a distance a geo_distance on the arc. On a geoshape (which
// takes the intersects and disjoint relations only, as in the engine):
// geo_shape intersects of each box (an envelope) or of the polygon. A
// disjoint relation is the objects with a value none of whose values meets
// the region, as the engine has it.
func (tr translator) geo(p objects.Property, f *query.Filter) (map[string]any, error) {
	k := p.Type.Primitive().Kind
	if f.Geo == nil || k != objects.KindGeoPoint && k != objects.KindGeoShape {
		return nil, fmt.Errorf("property %s is not a geopoint or geoshape", p.APIName)
	}
	g := f.Geo
	if g.Relation.Within() && k != objects.KindGeoPoint {
		return nil, fmt.Errorf("%s applies to geopoint properties, %s is a %s", g.Relation, p.APIName, k)
	}
	field := path(p)
	var meets map[string]any
	switch {
	case k == objects.KindGeoShape:
		var err error
		if meets, err = shapeQuery(field, g); err != nil {
			return nil, fmt.Errorf("property %s: %w", p.APIName, err)
		}
	case g.Relation == query.GeoWithinDistance:
		meets = map[string]any{"geo_distance": map[string]any{
			"distance":      strconv.FormatFloat(g.Meters, 'f', -1, 64) + "m",
			"distance_type": "arc",
			field:           map[string]any{"lat": g.Center.Lat, "lon": g.Center.Lon},
		}}
	case g.Relation.Box():
		var boxes []any
		for _, b := range g.Bounds() {
			boxes = append(boxes, map[string]any{"geo_bounding_box": map[string]any{field: map[string]any{
				"top_left":     map[string]any{"lat": b.MaxY, "lon": b.MinX},
				"bottom_right": map[string]any{"lat": b.MinY, "lon": b.MaxX},
			}}})
		}
		meets = boxes[0].(map[string]any)
		if len(boxes) > 1 {
			meets = boolQuery("should", boxes)
		}
	default:
		// geo_polygon takes one ring: a point in the polygon is in its
		// exterior ring and in none of its holes.
		poly, ok := g.Polygon.AsPolygon()
		if !ok {
			return nil, fmt.Errorf("property %s: the region is no polygon", p.APIName)
		}
		meets = ringQuery(field, poly.ExteriorRing())
		if n := poly.NumInteriorRings(); n > 0 {
			holes := make([]any, n)
			for i := range n {
				holes[i] = ringQuery(field, poly.InteriorRingN(i))
			}
			meets = map[string]any{"bool": map[string]any{"filter": []any{meets}, "must_not": holes}}
		}
	}
	if !g.Relation.Disjoint() {
		return meets, nil
	}
	return map[string]any{"bool": map[string]any{
		"filter":   []any{map[string]any{"exists": map[string]any{"field": field}}},
		"must_not": []any{meets},
	}}, nil
}

// ringQuery matches the points inside a ring (a geo_polygon query).
func ringQuery(field string, ring geom.LineString) map[string]any {
	seq := ring.Coordinates()
	points := make([]any, 0, seq.Length())
	for i := range seq.Length() {
		xy := seq.GetXY(i)
		points = append(points, map[string]any{"lat": xy.Y, "lon": xy.X})
	}
	return map[string]any{"geo_polygon": map[string]any{field: map[string]any{"points": points}}}
}

// shapeQuery matches the shapes that meet a box or polygon region, edges
// included: geo_shape intersects of an envelope per box of its Bounds,
// or of the polygon with its rings wound counterclockwise (planarShape).
func shapeQuery(field string, g *query.Geo) (map[string]any, error) {
	if g.Relation.Box() {
		var boxes []any
		for _, b := range g.Bounds() {
			boxes = append(boxes, geoShapeQuery(field, map[string]any{
				"type":        "envelope",
				"coordinates": [][]float64{{b.MinX, b.MaxY}, {b.MaxX, b.MinY}},
			}))
		}
		if len(boxes) == 1 {
			return boxes[0].(map[string]any), nil
		}
		return boolQuery("should", boxes), nil
	}
	shape, err := planarShape(g.Polygon).MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("the region as GeoJSON: %w", err)
	}
	return geoShapeQuery(field, json.RawMessage(shape)), nil
}

func geoShapeQuery(field string, shape any) map[string]any {
	return map[string]any{"geo_shape": map[string]any{field: map[string]any{"relation": "intersects", "shape": shape}}}
}

// planarShape is a geometry as OpenSearch must read it to take it on the
// plane of degrees, as the engine does. OpenSearch reads a polygon wider
// than 180 degrees of longitude whose exterior ring is wound clockwise (the
// opposite of its orientation, "right" by default, RFC 7946's winding) as
// one that crosses the antimeridian, and splits it there; wound
// counterclockwise, it takes the polygon as given. Any other geometry is
// returned as it is.
func planarShape(g geom.Geometry) geom.Geometry {
	if t := g.Type(); t != geom.TypePolygon && t != geom.TypeMultiPolygon && t != geom.TypeGeometryCollection {
		return g
	}
	if lo, hi, ok := g.Envelope().MinMaxXYs(); !ok || hi.X-lo.X <= 180 {
		return g
	}
	return g.ForceCCW()
}
