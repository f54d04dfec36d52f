//go:build integration_opensearch

package opensearch

import (
	"fmt"
	"math/rand/v2"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// The geo differential test's objects and filters, after indexer/index's
// geo oracle: places anywhere, near the antimeridian and near a pole,
// and boxes (across the antimeridian too), distances and polygons. Values
// are random doubles, never on a region's edge by design: OpenSearch
// quantizes coordinates to about 1e-7 degrees, the engine does not, so
// only a value within that of an edge could tell them apart.

func placeType() *objects.Type {
	p := func(name string, kind objects.Kind, role objects.SearchRole) objects.Property {
		return objects.Property{APIName: name, Column: name, Type: objects.DataType{Kind: kind}, Search: role}
	}
	return objects.NewType(objects.Type{APIName: "Place", PrimaryKey: []string{"id"}, TitleProperty: "id", Properties: []objects.Property{
		p("id", objects.KindLong, objects.SearchNumeric),
		p("kind", objects.KindString, objects.SearchKeyword),
		p("loc", objects.KindGeoPoint, objects.SearchNone),
		p("area", objects.KindGeoShape, objects.SearchNone),
	}})
}

func randomLonLat(r *rand.Rand) (lon, lat float64) {
	switch r.IntN(4) {
	case 0:
		lon = 178 + r.Float64()*2
		if r.IntN(2) == 0 {
			lon = -lon
		}
		return lon, r.Float64()*40 - 20
	case 1:
		return r.Float64()*360 - 180, 80 + r.Float64()*9
	case 2:
		return 10 + r.Float64()*2, 50 + r.Float64()*2
	}
	return r.Float64()*360 - 180, r.Float64()*170 - 85
}

func clampLon(x float64) float64 { return max(-180, min(180, x)) }
func clampLat(y float64) float64 { return max(-89, min(89, y)) }

// randomShape is a box, a triangle, a line, a point or two boxes around a
// place, none across the antimeridian, or a band wider than 180 degrees
// wound clockwise (which OpenSearch would take across the antimeridian
// unless rewound: planarShape).
func randomShape(r *rand.Rand) objects.GeoShape {
	for {
		lon, lat := randomLonLat(r)
		w := r.Float64()*3 + 0.01
		x0, y0, x1, y1 := clampLon(lon-w), clampLat(lat-w), clampLon(lon+w), clampLat(lat+w)
		var wkt string
		switch r.IntN(11) / 2 {
		case 5:
			x0, x1 = -175+r.Float64()*5, 170+r.Float64()*5
			wkt = fmt.Sprintf("POLYGON((%g %g,%g %g,%g %g,%g %g,%g %g))", x0, y0, x0, y1, x1, y1, x1, y0, x0, y0)
		case 0:
			wkt = fmt.Sprintf("POLYGON((%g %g,%g %g,%g %g,%g %g,%g %g))", x0, y0, x1, y0, x1, y1, x0, y1, x0, y0)
		case 1:
			wkt = fmt.Sprintf("POLYGON((%g %g,%g %g,%g %g,%g %g))", x0, y0, x1, y0, (x0+x1)/2, y1, x0, y0)
		case 2:
			wkt = fmt.Sprintf("LINESTRING(%g %g,%g %g)", x0, y0, x1, y1)
		case 3:
			wkt = fmt.Sprintf("POINT(%g %g)", lon, lat)
		default:
			m := (x0 + x1) / 2
			wkt = fmt.Sprintf("MULTIPOLYGON(((%g %g,%g %g,%g %g,%g %g,%g %g)),((%g %g,%g %g,%g %g,%g %g,%g %g)))",
				x0, y0, m-w/4, y0, m-w/4, y1, x0, y1, x0, y0, m+w/4, y0, x1, y0, x1, y1, m+w/4, y1, m+w/4, y0)
		}
		if s, err := objects.ParseGeoShape(wkt); err == nil && x0 < x1 && y0 < y1 {
			return s
		}
	}
}

func randomPlace(r *rand.Rand, id int64) *objects.Object {
	v := []any{id, []string{"a", "b", "c"}[r.IntN(3)], nil, nil}
	if r.IntN(8) != 0 {
		lon, lat := randomLonLat(r)
		v[2] = objects.GeoPoint{Lon: lon, Lat: lat}
	}
	if r.IntN(8) != 0 {
		v[3] = randomShape(r)
	}
	return &objects.Object{Values: v}
}

// randomPolygon is a polygon relation of relations: a pentagon with a
// notch around a place, or one in ten times a notched band wider than 180
// degrees wound clockwise.
func randomPolygon(r *rand.Rand, relations ...query.GeoRelation) *query.Geo {
	for {
		lon, lat := randomLonLat(r)
		w, h := r.Float64()*30+0.1, r.Float64()*30+0.1
		x0, y0, x1, y1 := clampLon(lon-w), clampLat(lat-h), clampLon(lon+w), clampLat(lat+h)
		// a pentagon with a notch, so that it is not its bounding box
		wkt := fmt.Sprintf("POLYGON((%g %g,%g %g,%g %g,%g %g,%g %g,%g %g))", x0, y0, x1, y0, x1, y1, (x0+x1)/2, (y0+y1)/2, x0, y1, x0, y0)
		if r.IntN(10) == 0 {
			x0, x1 = -175+r.Float64()*5, 170+r.Float64()*5
			wkt = fmt.Sprintf("POLYGON((%g %g,%g %g,%g %g,%g %g,%g %g,%g %g))", x0, y0, x0, y1, x1, y1, x1, y0, (x0+x1)/2, (y0+y1)/2, x0, y0)
		}
		if s, err := objects.ParseGeoShape(wkt); err == nil && x0 < x1 && y0 < y1 {
			return query.NewGeoPolygon(relations[r.IntN(len(relations))], s.Geometry)
		}
	}
}

func randomGeoFilter(r *rand.Rand) *query.Filter {
	switch n := r.IntN(11); n {
	case 0, 1:
		lon, lat := randomLonLat(r)
		meters := []float64{1000, 50_000, 300_000, 2_000_000, 15_000_000}[r.IntN(5)]
		return query.GeoFilter("loc", query.NewGeoDistance(objects.GeoPoint{Lon: lon, Lat: lat}, meters))
	case 2, 3, 4:
		lon, lat := randomLonLat(r)
		w, h := r.Float64()*40, r.Float64()*30
		box := query.GeoBox{West: lon, South: clampLat(lat - h), East: lon + w, North: clampLat(lat + h)}
		if box.East > 180 {
			box.East -= 360 // across the antimeridian: west > east
		}
		rel := []query.GeoRelation{query.GeoWithinBox, query.GeoIntersectsBox, query.GeoDisjointBox}[n-2]
		return query.GeoFilter("loc", query.NewGeoBox(rel, box))
	case 5, 6:
		return query.GeoFilter("loc", randomPolygon(r, query.GeoWithinPolygon, query.GeoIntersectsPolygon, query.GeoDisjointPolygon))
	}
	return randomShapeFilter(r)
}

// randomShapeFilter is a geo filter on the geoshapes: intersects or
// disjoint with a box or a polygon, and now and then one that the engine
// refuses on a geoshape (within, distance).
func randomShapeFilter(r *rand.Rand) *query.Filter {
	switch r.IntN(20) {
	case 0:
		return query.GeoFilter("area", randomPolygon(r, query.GeoWithinPolygon))
	case 1:
		return query.GeoFilter("area", query.NewGeoDistance(objects.GeoPoint{Lon: 1, Lat: 2}, 1000))
	}
	if r.IntN(2) == 0 {
		return query.GeoFilter("area", randomPolygon(r, query.GeoIntersectsPolygon, query.GeoDisjointPolygon))
	}
	lon, lat := randomLonLat(r)
	w, h := r.Float64()*20, r.Float64()*15
	box := query.GeoBox{West: lon, South: clampLat(lat - h), East: lon + w, North: clampLat(lat + h)}
	if box.East > 180 {
		box.East -= 360
	}
	rel := []query.GeoRelation{query.GeoIntersectsBox, query.GeoDisjointBox}[r.IntN(2)]
	return query.GeoFilter("area", query.NewGeoBox(rel, box))
}

// randomGeoQuery combines a geo filter with others.
func randomGeoQuery(r *rand.Rand) *query.Filter {
	f := randomGeoFilter(r)
	switch r.IntN(5) {
	case 0:
		return query.And(f, query.Eq("kind", "a"))
	case 1:
		return query.Or(f, query.IsNull("loc", true))
	case 2:
		return query.Not(f)
	case 3:
		return query.And(f, randomGeoFilter(r))
	}
	return f
}
