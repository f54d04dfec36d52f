package query

import (
	"github.com/peterstace/simplefeatures/geom"
)

// BoxClass is what a filter's region is known to do with every geometry
// inside a box, without reading the geometry.
type BoxClass uint8

// Box classes.
const (
	BoxUnknown  BoxClass = iota // the geometry must be tested
	BoxMeets                    // a non-empty geometry in the box meets the region
	BoxDisjoint                 // no geometry in the box meets the region
)

// Grid parameters. A square of the polygon's envelope is split (into
// four) only where it meets the polygon's boundary and holds more than
// gridSplitItems candidate boxes: a split costs four or more of the
// library's tests of a cell against a boundary edge (~1 µs each), and
// spares the tests of the candidates that land in the quarters the
// boundary misses (~2.5 µs each: the column read, the WKB decode and the
// predicate). gridDepth bounds the splits: 64 cells a side. Below
// gridMinItems candidates, or with fewer candidates than the
// polygon has edges, there is no grid: testing them costs less.
const (
	gridDepth      = 6
	gridSplitItems = 8
	gridMinItems   = 64
)

// BoxClassifier classifies the bounding boxes of a search's candidates
// against a filter's region, so that the index tests only the candidates
// whose box it cannot decide. Make one per search with Geo.Classifier.
type BoxClassifier struct {
	g    *Geo
	grid *polygonGrid // polygon relations
}

// Classifier is the filter's BoxClassifier for n candidate boxes (box(i)
// is the i-th). A box relation decides a box its region covers. A polygon
// relation builds a grid over the polygon's envelope whose cells
// simplefeatures classifies once, as inside the polygon, outside it, or
// meeting its boundary; it refines the cells that meet the boundary where
// the boxes are dense.
func (g *Geo) Classifier(n int, box func(i int) Bounds) *BoxClassifier {
	c := &BoxClassifier{g: g}
	if g.Polygon.IsEmpty() || n == 0 {
		return c
	}
	c.grid = newPolygonGrid(g.Polygon, n, box)
	return c
}

// Classify is what the region does with every geometry inside b.
func (c *BoxClassifier) Classify(b Bounds) BoxClass {
	if c.grid != nil {
		return c.grid.classify(b)
	}
	if c.g.CoversBox(b) {
		return BoxMeets
	}
	return BoxUnknown
}

// polygonGrid is a grid of n by n cells over a polygon's envelope, the
// closed boxes between consecutive xs and ys. A cell is BoxMeets when it
// lies inside the polygon, BoxDisjoint outside it, and BoxUnknown when it
// meets the polygon's boundary (or was never classified).
//
// Why a class holds for every geometry in a cell: a closed cell that does
// not meet the polygon's boundary is connected, so it lies wholly in the
// polygon's interior or wholly outside the polygon, and any one of its
// points (a corner) says which. Both tests are simplefeatures'
// Intersects, of the cell with each edge of the boundary and of the
// corner with the polygon; the grid adds no geometry of its own.
type polygonGrid struct {
	n      int
	xs, ys []float64
	cells  []BoxClass // row-major: cells[j*n+i] spans xs[i]..xs[i+1], ys[j]..ys[j+1]
}

func newPolygonGrid(polygon geom.Geometry, n int, box func(int) Bounds) *polygonGrid {
	edges, ok := boundaryEdges(polygon)
	if !ok || n < gridMinItems || len(edges) > n {
		return nil // the first square alone would cost a test per edge
	}
	lo, hi, _ := polygon.Envelope().MinMaxXYs()
	const side = 1 << gridDepth
	p := &polygonGrid{n: side, xs: make([]float64, side+1), ys: make([]float64, side+1), cells: make([]BoxClass, side*side)}
	for k := range side + 1 {
		p.xs[k] = lo.X + (hi.X-lo.X)*float64(k)/side
		p.ys[k] = lo.Y + (hi.Y-lo.Y)*float64(k)/side
	}
	p.xs[side], p.ys[side] = hi.X, hi.Y
	c := &gridClassifier{grid: p, polygon: polygon, edges: edges, counts: make([]int32, (side+1)*(side+1))}
	// counts is a summed-area table of the boxes by the cell of their
	// center, so that a square's count costs four reads. It only steers
	// the splits: a box counted in a neighbouring square costs a test, not
	// a wrong class.
	for i := range n {
		b := box(i)
		x, y := p.cellOf(p.xs, (b.MinX+b.MaxX)/2), p.cellOf(p.ys, (b.MinY+b.MaxY)/2)
		c.counts[(y+1)*(side+1)+x+1]++
	}
	for y := 1; y <= side; y++ {
		for x := 1; x <= side; x++ {
			k := y*(side+1) + x
			c.counts[k] += c.counts[k-1] + c.counts[k-side-1] - c.counts[k-side-2]
		}
	}
	all := make([]int, len(edges))
	for i := range all {
		all[i] = i
	}
	c.classify(0, 0, side, all)
	return p
}

// boundaryEdges are the edges of a polygon's rings, each a line string of
// two points (the boundary is their union).
func boundaryEdges(polygon geom.Geometry) ([]geom.LineString, bool) {
	var rings []geom.LineString
	switch b := polygon.Boundary(); {
	case b.IsLineString():
		rings = []geom.LineString{b.MustAsLineString()}
	case b.IsMultiLineString():
		mls := b.MustAsMultiLineString()
		for i := range mls.NumLineStrings() {
			rings = append(rings, mls.LineStringN(i))
		}
	default:
		return nil, false
	}
	var edges []geom.LineString
	for _, r := range rings {
		seq := r.Coordinates()
		for k := 1; k < seq.Length(); k++ {
			a, b := seq.GetXY(k-1), seq.GetXY(k)
			if a != b { // a repeated vertex adds no point to the boundary
				edges = append(edges, geom.NewLineString(geom.NewSequence([]float64{a.X, a.Y, b.X, b.Y}, geom.DimXY)))
			}
		}
	}
	return edges, len(edges) > 0
}

// cellOf is the cell of edges that holds v, clamped to the grid; nearly
// (the arithmetic may be a cell off at an edge): the lookups that must be
// exact move on from it.
func (p *polygonGrid) cellOf(edges []float64, v float64) int {
	k := int(float64(p.n) * (v - edges[0]) / (edges[p.n] - edges[0]))
	if !(k >= 0) { // NaN from a zero-width envelope, or below
		return 0
	}
	return min(k, p.n-1)
}

// gridClassifier fills a polygonGrid's cells, a quadtree's walk.
type gridClassifier struct {
	grid    *polygonGrid
	polygon geom.Geometry
	edges   []geom.LineString
	counts  []int32 // summed-area table, (n+1) a side
}

// count is how many boxes have their center in the square.
func (c *gridClassifier) count(i, j, size int) int32 {
	w := c.grid.n + 1
	return c.counts[(j+size)*w+i+size] - c.counts[j*w+i+size] - c.counts[(j+size)*w+i] + c.counts[j*w+i]
}

// classify classifies the square of cells from (i, j), size cells a
// side; parent are the edges that meet the square that holds it (those
// that meet it are among them).
func (c *gridClassifier) classify(i, j, size int, parent []int) {
	n := c.count(i, j, size)
	if n == 0 {
		return // no lookup is likely to read its class (one that does tests its candidate)
	}
	p := c.grid
	cell := geom.NewEnvelope(geom.XY{X: p.xs[i], Y: p.ys[j]}, geom.XY{X: p.xs[i+size], Y: p.ys[j+size]})
	var cellGeom geom.Geometry
	var meets []int
	for _, e := range parent {
		if !cell.Intersects(c.edges[e].Envelope()) {
			continue
		}
		if cellGeom.IsEmpty() {
			cellGeom = cell.AsGeometry()
		}
		if geom.Intersects(c.edges[e].AsGeometry(), cellGeom) {
			meets = append(meets, e)
		}
	}
	if len(meets) == 0 {
		class := BoxDisjoint
		corner := geom.NewPoint(geom.Coordinates{XY: geom.XY{X: p.xs[i], Y: p.ys[j]}, Type: geom.DimXY}).AsGeometry()
		if geom.Intersects(corner, c.polygon) {
			class = BoxMeets
		}
		for y := j; y < j+size; y++ {
			for x := i; x < i+size; x++ {
				p.cells[y*p.n+x] = class
			}
		}
		return
	}
	if size == 1 || n <= gridSplitItems {
		return // BoxUnknown
	}
	half := size / 2
	for _, q := range [4][2]int{{i, j}, {i + half, j}, {i, j + half}, {i + half, j + half}} {
		c.classify(q[0], q[1], half, meets)
	}
}

// span is the cells whose closed span meets lo..hi (within the grid):
// from the first whose end is at or after lo to the last whose start is
// at or before hi.
func (p *polygonGrid) span(edges []float64, lo, hi float64) (first, last int) {
	first = p.cellOf(edges, lo)
	for first > 0 && edges[first] >= lo {
		first--
	}
	for first < p.n-1 && edges[first+1] < lo {
		first++
	}
	last = p.cellOf(edges, hi)
	for last < p.n-1 && edges[last+1] <= hi {
		last++
	}
	for last > 0 && edges[last] > hi {
		last--
	}
	return first, last
}

// classify is the class of every cell b meets, if they agree. A part of b
// outside the grid is outside the polygon.
func (p *polygonGrid) classify(b Bounds) BoxClass {
	if b.MaxX < p.xs[0] || b.MinX > p.xs[p.n] || b.MaxY < p.ys[0] || b.MinY > p.ys[p.n] {
		return BoxDisjoint
	}
	class := BoxUnknown
	if b.MinX < p.xs[0] || b.MaxX > p.xs[p.n] || b.MinY < p.ys[0] || b.MaxY > p.ys[p.n] {
		class = BoxDisjoint
	}
	i0, i1 := p.span(p.xs, b.MinX, b.MaxX)
	j0, j1 := p.span(p.ys, b.MinY, b.MaxY)
	for y := j0; y <= j1; y++ {
		for x := i0; x <= i1; x++ {
			c := p.cells[y*p.n+x]
			if c == BoxUnknown || (class != BoxUnknown && c != class) {
				return BoxUnknown
			}
			class = c
		}
	}
	return class
}
