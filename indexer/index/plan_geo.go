package index

import (
	"fmt"
	"slices"
	"unsafe"

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

// geo compiles a geo filter: the candidates of the R-tree (geo.go), those
// that are not sure matches tested exactly. A doesNotIntersect is the
// documents with a value less those that intersect.
func (c *compiler) geo(pi *propertyIndex, f *query.Filter) (node, error) {
	if pi.geo == nil || f.Geo == nil {
		return nil, fmt.Errorf("property %s is not a geopoint or geoshape", pi.property.APIName)
	}
	if f.Geo.Relation.Within() && pi.elementType.Kind != objects.KindGeoPoint {
		return nil, fmt.Errorf("%s applies to geopoint properties, %s is a %s", f.Geo.Relation, pi.property.APIName, pi.elementType.Kind)
	}
	n := &geoNode{pi: pi, g: f.Geo, cost: costGeoPoint}
	n.sure, n.maybe = pi.geo.candidates(f.Geo)
	if pi.elementType.Kind == objects.KindGeoShape {
		n.cost = costGeoShape
	}
	if !f.Geo.Relation.Disjoint() {
		return n, nil
	}
	return &geoDisjointNode{docs: pi.geo.docs, meets: n}, nil
}

// geoNode is the documents whose value meets a geo filter's region (for a
// disjoint relation, the documents that intersect it: geoDisjointNode
// takes them from the documents with a value).
type geoNode struct {
	pi *propertyIndex
	g  *query.Geo
	// sure and maybe are the candidates (their boxes meet the region's),
	// sorted: sure match without a test, maybe are tested. They stay
	// slices until a bitmap is asked for: a count or a page's walk needs
	// none.
	sure, maybe []uint32
	cost        float64
	// matches are the matches once bitmap computed them, which tests then
	// look up.
	matches *roaring.Bitmap
}

// est counts the candidates: most of them match when the region is not
// much larger than its bounding boxes.
func (n *geoNode) est() float64 { return float64(len(n.sure) + len(n.maybe)) }

func (n *geoNode) test(d uint32) bool {
	if n.matches != nil {
		return n.matches.Contains(d)
	}
	if _, ok := slices.BinarySearch(n.sure, d); ok {
		return true
	}
	if _, ok := slices.BinarySearch(n.maybe, d); !ok {
		return false
	}
	return n.meets(d)
}

// meets tests a document's value exactly. A shape's WKB is read in place
// (the WKB parser copies what it keeps and writes nothing), which spares
// a copy per candidate.
func (n *geoNode) meets(d uint32) bool {
	exact := n.pi.column.get(d).exact
	if n.pi.elementType.Kind == objects.KindGeoPoint {
		p, _ := objects.DecodeGeoPoint(unsafe.Slice(unsafe.StringData(exact), len(exact)))
		return n.g.Intersects(p)
	}
	s, err := objects.DecodeGeoShape(unsafe.Slice(unsafe.StringData(exact), len(exact)))
	return err == nil && n.g.Intersects(s)
}

// tested is the documents of maybe that meet the region, in order.
func (n *geoNode) tested(x *exec) ([]uint32, error) {
	var out []uint32
	for _, d := range n.maybe {
		if err := x.tick(); err != nil {
			return nil, err
		}
		if n.meets(d) {
			out = append(out, d)
		}
	}
	return out, nil
}

func (n *geoNode) bitmap(x *exec) (*roaring.Bitmap, error) {
	if n.matches != nil {
		return n.matches, nil
	}
	tested, err := n.tested(x)
	if err != nil {
		return nil, err
	}
	n.matches = roaring.New()
	n.matches.AddMany(n.sure)
	n.matches.AddMany(tested)
	return n.matches, nil
}

// count counts the matches without a bitmap of them.
func (n *geoNode) count(x *exec) (int64, error) {
	if n.matches != nil {
		return int64(n.matches.GetCardinality()), nil
	}
	tested, err := n.tested(x)
	return int64(len(n.sure) + len(tested)), err
}

func (n *geoNode) mcost() float64 {
	if n.matches != nil {
		return 0
	}
	return n.est()*costScan + float64(len(n.maybe))*(costColumn+n.cost)
}

func (n *geoNode) tcost() float64 {
	if n.matches != nil || len(n.maybe) == 0 {
		return 2 * costContains
	}
	return 2*costContains + costColumn + n.cost
}

// geoDisjointNode is the documents with a value that does not meet a
// region: docs less meets. Its count is docs' less meets', and a page
// walks the key order skipping meets, so neither costs more than the
// documents that meet the region (never a complement of a million).
type geoDisjointNode struct {
	docs  *roaring.Bitmap // the documents with a value
	meets *geoNode
}

func (n *geoDisjointNode) est() float64 {
	return max(0, float64(n.docs.GetCardinality())-n.meets.est())
}

func (n *geoDisjointNode) test(d uint32) bool { return n.docs.Contains(d) && !n.meets.test(d) }

func (n *geoDisjointNode) bitmap(x *exec) (*roaring.Bitmap, error) {
	bm, err := n.meets.bitmap(x)
	if err != nil {
		return nil, err
	}
	return roaring.AndNot(n.docs, bm), nil
}

// count counts the documents with a value less those that meet the region
// (a subset of them).
func (n *geoDisjointNode) count(x *exec) (int64, error) {
	c, err := n.meets.count(x)
	return int64(n.docs.GetCardinality()) - c, err
}

func (n *geoDisjointNode) mcost() float64 {
	return n.meets.mcost() + float64(n.docs.GetCardinality())/64
}

func (n *geoDisjointNode) tcost() float64 { return costContains + n.meets.tcost() }
