package query

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/peterstace/simplefeatures/geom"
)

func mustGeometry(t *testing.T, wkt string) geom.Geometry {
	t.Helper()
	g, err := geom.UnmarshalWKT(wkt)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// ulps moves x by n units in the last place.
func ulps(x float64, n int) float64 {
	for ; n > 0; n-- {
		x = math.Nextafter(x, math.Inf(1))
	}
	for ; n < 0; n++ {
		x = math.Nextafter(x, math.Inf(-1))
	}
	return x
}

// TestBoxClassifier_Classify checks the polygon grid's classes against
// simplefeatures itself: a box it says meets the polygon must be covered
// by it (so any geometry in the box meets it), one it says is disjoint
// must not meet it. The boxes are dense enough to split the grid to its
// finest cells, and many lie on the cells' edges, an ulp either side, or
// have no width, where a lookup that takes one cell too few would read a
// wrong class.
func TestBoxClassifier_Classify(t *testing.T) {
	tests := []struct{ name, wkt string }{
		{"bench pentagon", "POLYGON((-99 38,-97 38,-96.5 39.2,-98 40.2,-99.5 39.2,-99 38))"},
		{"notched", "POLYGON((10 10,14 10,14 13,12 11.5,10 13,10 10))"},
		{"with a hole", "POLYGON((0 0,4 0,4 4,0 4,0 0),(1 1,1 3,3 3,3 1,1 1))"},
		{"two parts", "MULTIPOLYGON(((0 0,1 0,1 1,0 1,0 0)),((2 2,3.5 2,3 3,2 2)))"},
		{"sliver", "POLYGON((0 0,5 0.01,5 0.02,0 0))"},
		// cells one degree a side; the first part's east edge an ulp west of
		// a cell's edge, its north edge on one, the second's corner on one
		{"edges an ulp off the cells'", "MULTIPOLYGON(((0 0,31.999999999999996 0,31.999999999999996 30,0 30,0 0)),((40 40,64 40,64 64,40 64,40 40)),((50 10,60 10,55 20,50 10)))"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			polygon := mustGeometry(t, tt.wkt)
			g := NewGeoPolygon(GeoIntersectsPolygon, polygon)
			e := g.Bounds()[0]
			w, h := e.MaxX-e.MinX, e.MaxY-e.MinY
			cellW, cellH := w/(1<<gridDepth), h/(1<<gridDepth)
			r := rand.New(rand.NewPCG(26, 3))
			var boxes []Bounds
			for range 20_000 { // about the cells' size, over the envelope and a margin
				x, y := e.MinX-0.1*w+r.Float64()*1.2*w, e.MinY-0.1*h+r.Float64()*1.2*h
				boxes = append(boxes, Bounds{x, y, x + r.Float64()*2*cellW, y + r.Float64()*2*cellH})
			}
			// the grid's edges, as newPolygonGrid places them
			edge := func(lo, hi float64, k int) float64 {
				if k >= 1<<gridDepth {
					return hi
				}
				return lo + (hi-lo)*float64(k)/(1<<gridDepth)
			}
			for range 4000 { // on cell edges, an ulp either side, one or more cells wide, or none
				k, l := r.IntN(1<<gridDepth+1), r.IntN(1<<gridDepth+1)
				m, n := r.IntN(3), r.IntN(3)
				x0, y0 := ulps(edge(e.MinX, e.MaxX, k), r.IntN(3)-1), ulps(edge(e.MinY, e.MaxY, l), r.IntN(3)-1)
				x1, y1 := ulps(edge(e.MinX, e.MaxX, k+m), r.IntN(3)-1), ulps(edge(e.MinY, e.MaxY, l+n), r.IntN(3)-1)
				boxes = append(boxes, Bounds{min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)})
			}
			c := g.Classifier(len(boxes), func(i int) Bounds { return boxes[i] })
			if c.grid == nil {
				t.Fatal("no grid")
			}
			counts := map[BoxClass]int{}
			for _, b := range boxes {
				class := c.Classify(b)
				counts[class]++
				if class == BoxUnknown {
					continue
				}
				switch parts := boxParts(b); {
				case class == BoxMeets && (!geom.Intersects(polygon, parts[0]) || intersectsAny(polygon.Boundary(), parts)):
					t.Fatalf("%+v: meets, but the polygon does not cover it", b)
				case class == BoxDisjoint && intersectsAny(polygon, parts):
					t.Fatalf("%+v: disjoint, but it meets the polygon", b)
				}
			}
			// The grid must decide most boxes, or it spares no test.
			if counts[BoxUnknown] > len(boxes)/2 || counts[BoxMeets] == 0 || counts[BoxDisjoint] == 0 {
				t.Fatalf("classes %v of %d boxes", counts, len(boxes))
			}
		})
	}
}

// boxParts are a box's geometries for simplefeatures: its corners, its
// edges, and the box itself where it is a valid polygon (one an ulp wide
// is not, and the library's answers about it mean nothing). A geometry in
// the box meets a region if and only if one of them does, and lies
// inside it if the first corner does and the boundary meets none.
func boxParts(b Bounds) []geom.Geometry {
	corners := []geom.XY{{X: b.MinX, Y: b.MinY}, {X: b.MaxX, Y: b.MinY}, {X: b.MaxX, Y: b.MaxY}, {X: b.MinX, Y: b.MaxY}}
	var parts []geom.Geometry
	for _, c := range corners {
		parts = append(parts, geom.NewPoint(geom.Coordinates{XY: c, Type: geom.DimXY}).AsGeometry())
	}
	for k, c := range corners {
		d := corners[(k+1)%4]
		if c != d {
			parts = append(parts, geom.NewLineString(geom.NewSequence([]float64{c.X, c.Y, d.X, d.Y}, geom.DimXY)).AsGeometry())
		}
	}
	if box := geom.NewEnvelope(corners...).AsGeometry(); box.IsPolygon() && box.Validate() == nil {
		parts = append(parts, box)
	}
	return parts
}

func intersectsAny(g geom.Geometry, parts []geom.Geometry) bool {
	for _, p := range parts {
		if geom.Intersects(g, p) {
			return true
		}
	}
	return false
}
