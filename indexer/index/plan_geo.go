package index

import (
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// Costs of testing a geo value exactly: a point decodes 16 bytes, a
// shape its WKB, before the library's predicate.
const (
	costGeoPoint = 150
	costGeoShape = 2500
)

// geo compiles a geo filter: the candidates of the R-tree (geo.go),
// tested exactly. A doesNotIntersect is the documents with a value less
// those that intersect.
func (c *compiler) geo(pi *propertyIndex, f *query.Filter) (node, error) {
	if pi.geo == nil || f.Geo == nil {
		return nil, fmt.Errorf("property %s is not a geopoint or geoshape", pi.property.APIName)
	}
	if f.Geo.Relation.Within() && pi.elementType.Kind != objects.KindGeoPoint {
		return nil, fmt.Errorf("%s applies to geopoint properties, %s is a %s", f.Geo.Relation, pi.property.APIName, pi.elementType.Kind)
	}
	n := &geoNode{pi: pi, g: f.Geo, cand: pi.geo.candidates(f.Geo.Bounds()), cost: costGeoPoint}
	switch {
	case pi.elementType.Kind == objects.KindGeoShape:
		n.cost = costGeoShape
	case f.Geo.Relation.Box():
		// A point's box is the point, and the R-tree's overlap test, like
		// the predicate, includes the edges: its hits are the matches.
		n.exact = true
	}
	if !f.Geo.Relation.Disjoint() {
		return n, nil
	}
	return newAnd(c.s, []node{&setNode{bm: pi.geo.docs}, &notNode{s: c.s, kid: n}}), nil
}

// geoNode is the documents whose value meets a geo filter's region (for a
// disjoint relation, the documents that intersect it: the compiler
// negates it).
type geoNode struct {
	pi   *propertyIndex
	g    *query.Geo
	cand *roaring.Bitmap // the documents whose box meets the region's
	cost float64
	// exact: the candidates are the matches (points in a box).
	exact bool
}

// est counts the candidates: most of them match when the region is not
// much larger than its bounding boxes.
func (n *geoNode) est() float64 { return float64(n.cand.GetCardinality()) }

func (n *geoNode) test(d uint32) bool {
	if !n.cand.Contains(d) {
		return false
	}
	return n.exact || n.g.Intersects(valueOf(n.pi.elementType, n.pi.column.get(d)))
}

func (n *geoNode) bitmap(x *exec) (*roaring.Bitmap, error) {
	if n.exact {
		return n.cand, nil
	}
	return x.filter(n.cand, n.test)
}

func (n *geoNode) mcost() float64 {
	if n.exact {
		return 0
	}
	return n.est() * (costScan + n.tcost())
}

func (n *geoNode) tcost() float64 {
	if n.exact {
		return costContains
	}
	return costContains + costColumn + n.cost
}
