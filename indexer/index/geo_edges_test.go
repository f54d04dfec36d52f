package index

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
	"github.com/peterstace/simplefeatures/geom"
)

// TestSnapshot_Search_geoBoxEdges checks boxes against shapes and points
// on their edges and one ulp either side, at coordinates a float32 does
// not hold: the index keeps shapes' boxes rounded outward to take those
// inside a query's box as matches without a test, which must neither
// take one that only touches from outside nor lose one inside. The same
// values move by an ulp in an update, into the fresh R-tree.
func TestSnapshot_Search_geoBoxEdges(t *testing.T) {
	boxes := []query.GeoBox{
		{West: 10.1, South: 20.3, East: 11.7, North: 21.9},
		{West: 179.3, South: -0.7, East: -179.3, North: 0.9}, // across the antimeridian
	}
	rect := func(x0, y0, x1, y1 float64) any {
		x0, x1 = clampLon(x0), clampLon(x1)
		s, err := objects.ParseGeoShape(fmt.Sprintf("POLYGON((%v %v,%v %v,%v %v,%v %v,%v %v))", x0, y0, x1, y0, x1, y1, x0, y1, x0, y0))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	shape := func(wkt string) any {
		s, err := objects.ParseGeoShape(wkt)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// values places shapes (rectangles either side, and a line and a point
	// on the edge, whose boxes have no width to round) and points against
	// every edge of the boxes, shift ulps off.
	values := func(shift int) [][2]any {
		var out [][2]any
		for _, b := range boxes {
			midX, midY := b.West+0.2, (b.South+b.North)/2
			for _, x := range []float64{b.West, b.East} {
				for _, u := range []int{-1, 0, 1} {
					x1 := ulp(x, u+shift)
					out = append(out, [2]any{objects.GeoPoint{Lon: x1, Lat: midY}, rect(x1-0.3, midY, x1, midY+0.2)},
						[2]any{objects.GeoPoint{Lon: x1, Lat: b.South}, rect(x1, midY, x1+0.3, midY+0.2)},
						[2]any{objects.GeoPoint{Lon: x1, Lat: b.North}, shape(fmt.Sprintf("LINESTRING(%v %v,%v %v)", x1, midY, x1, midY+0.2))},
						[2]any{nil, shape(fmt.Sprintf("POINT(%v %v)", x1, midY))})
				}
			}
			// A line past each corner, outside the box though its box
			// (narrower than a float32's step) overlaps it.
			d, e := float64(1+shift)*1e-13, 1e-14
			for _, c := range [][4]float64{{b.West, b.North, -1, 1}, {b.East, b.North, 1, 1}, {b.East, b.South, 1, -1}, {b.West, b.South, -1, -1}} {
				cx, cy, sx, sy := c[0], c[1], c[2], c[3]
				out = append(out, [2]any{nil, shape(fmt.Sprintf("LINESTRING(%v %v,%v %v)", cx+sx*d, cy-sy*e, cx-sx*e, cy+sy*d))})
			}
			for _, y := range []float64{b.South, b.North} {
				for _, u := range []int{-1, 0, 1} {
					y1 := ulp(y, u+shift)
					out = append(out, [2]any{objects.GeoPoint{Lon: midX, Lat: y1}, rect(midX, y1-0.3, midX+0.2, y1)},
						[2]any{objects.GeoPoint{Lon: b.East, Lat: y1}, rect(midX, y1, midX+0.2, y1+0.3)},
						[2]any{objects.GeoPoint{Lon: b.West, Lat: y1}, shape(fmt.Sprintf("LINESTRING(%v %v,%v %v)", midX, y1, midX+0.2, y1))},
						[2]any{nil, shape(fmt.Sprintf("POINT(%v %v)", midX, y1))})
				}
			}
		}
		return out
	}
	typ := geoType()
	want := state{}
	for i, v := range values(0) {
		want[uint32(i)] = &objects.Object{Values: []any{int64(i), "a", float64(i), v[0], v[1]}}
	}
	r := rand.New(rand.NewPCG(26, 2))
	check := func(s *Snapshot, label string) {
		keys := geoKeys(t, s, want)
		for _, b := range boxes {
			for _, f := range []*query.Filter{
				query.GeoFilter("area", query.NewGeoBox(query.GeoIntersectsBox, b)),
				query.GeoFilter("area", query.NewGeoBox(query.GeoDisjointBox, b)),
				query.GeoFilter("loc", query.NewGeoBox(query.GeoWithinBox, b)),
				query.GeoFilter("loc", query.NewGeoBox(query.GeoDisjointBox, b)),
			} {
				checkGeoFilter(t, r, s, want, keys, f, nil, label)
			}
		}
	}
	s := mustBuild(t, typ, want)
	check(s, "built")
	var changes []Change
	for i, v := range values(1) {
		if i%2 == 0 {
			o := &objects.Object{Values: []any{int64(i), "a", float64(i), v[0], v[1]}}
			changes = append(changes, Change{Doc: uint32(i), Key: mustKey(t, typ, o), Object: o})
			want[uint32(i)] = o
		}
	}
	s, err := s.Apply(changes, 2)
	if err != nil {
		t.Fatal(err)
	}
	check(s, "updated")
}

// TestSnapshot_Search_geoPolygonGrid checks the polygon filters where
// the index takes shapes as matches or misses from the classes of its
// grid of the polygon's envelope (query.BoxClassifier), against the
// oracle: shapes dense enough to split the grid to its finest cells,
// placed on the cells' edges, an ulp either side, straddling two or four
// cells, and touching the polygon's boundary from outside and inside.
// The same shapes move by an ulp in an update, into the fresh R-tree.
func TestSnapshot_Search_geoPolygonGrid(t *testing.T) {
	const wkt = "POLYGON((-99 38,-97 38,-96.5 39.2,-98 40.2,-98.7 39.9,-98.4 39.3,-99.5 39.2,-99 38))"
	polygon, err := objects.ParseGeoShape(wkt)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi, _ := polygon.Geometry.Envelope().MinMaxXYs()
	const side = 64 // query's gridDepth 6; at 5 these are its edges still
	edgeX := func(k int) float64 { return lo.X + (hi.X-lo.X)*float64(k)/side }
	edgeY := func(k int) float64 { return lo.Y + (hi.Y-lo.Y)*float64(k)/side }
	cellW, cellH := (hi.X-lo.X)/side, (hi.Y-lo.Y)/side
	shape := func(wkt string) objects.GeoShape {
		s, err := objects.ParseGeoShape(wkt)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	rect := func(x0, y0, x1, y1 float64) objects.GeoShape {
		return shape(fmt.Sprintf("POLYGON((%v %v,%v %v,%v %v,%v %v,%v %v))", x0, y0, x1, y0, x1, y1, x0, y1, x0, y0))
	}
	// shapes draws them, each shift ulps off its place.
	shapes := func(r *rand.Rand, shift int) []objects.GeoShape {
		var out []objects.GeoShape
		for range 12_000 { // a rectangle from a cell's corner, up to two cells wide
			k, l := r.IntN(side+8)-4, r.IntN(side+8)-4
			x0, y0 := ulp(edgeX(k), r.IntN(3)-1+shift), ulp(edgeY(l), r.IntN(3)-1+shift)
			x1, y1 := x0+(0.3+r.Float64()*1.7)*cellW, y0+(0.3+r.Float64()*1.7)*cellH
			switch r.IntN(4) {
			case 0:
				out = append(out, shape(fmt.Sprintf("LINESTRING(%v %v,%v %v)", x0, y0, x1, y1)))
			case 1:
				out = append(out, shape(fmt.Sprintf("POINT(%v %v)", x0, y0)))
			default:
				out = append(out, rect(x0, y0, x1, y1))
			}
		}
		coords := polygon.Geometry.DumpCoordinates()
		for i := range coords.Length() - 1 { // at each vertex, and the middle of each edge
			a, b := coords.GetXY(i), coords.GetXY(i+1)
			for _, p := range []geom.XY{a, {X: (a.X + b.X) / 2, Y: (a.Y + b.Y) / 2}} {
				x, y := ulp(p.X, shift), ulp(p.Y, shift)
				out = append(out, shape(fmt.Sprintf("POINT(%v %v)", x, y)),
					rect(x, y, x+cellW/3, y+cellH/3), rect(x-cellW/3, y-cellH/3, x, y),
					shape(fmt.Sprintf("LINESTRING(%v %v,%v %v)", x, y, x+cellW, y-cellH)))
			}
		}
		return out
	}
	typ := geoType()
	want := state{}
	r := rand.New(rand.NewPCG(26, 4))
	for i, s := range shapes(r, 0) {
		want[uint32(i)] = &objects.Object{Values: []any{int64(i), "a", float64(i), nil, s}}
	}
	check := func(s *Snapshot, label string) {
		keys := geoKeys(t, s, want)
		for _, rel := range []query.GeoRelation{query.GeoIntersectsPolygon, query.GeoDisjointPolygon} {
			checkGeoFilter(t, r, s, want, keys, query.GeoFilter("area", query.NewGeoPolygon(rel, polygon.Geometry)), nil, label)
		}
	}
	s := mustBuild(t, typ, want)
	check(s, "built")
	var changes []Change
	for i, v := range shapes(rand.New(rand.NewPCG(26, 4)), 1) {
		if i%3 == 0 {
			o := &objects.Object{Values: []any{int64(i), "a", float64(i), nil, v}}
			changes = append(changes, Change{Doc: uint32(i), Key: mustKey(t, typ, o), Object: o})
			want[uint32(i)] = o
		}
	}
	if s, err = s.Apply(changes, 2); err != nil {
		t.Fatal(err)
	}
	check(s, "updated")
}

// ulp is x moved n floats up (n > 0) or down.
func ulp(x float64, n int) float64 {
	for ; n > 0; n-- {
		x = math.Nextafter(x, math.Inf(1))
	}
	for ; n < 0; n++ {
		x = math.Nextafter(x, math.Inf(-1))
	}
	return x
}
