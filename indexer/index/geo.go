package index

import (
	"fmt"
	"math"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
	"github.com/peterstace/simplefeatures/rtree"
)

// A geopoint or geoshape property keeps its values in its column (a
// point's 16 bytes or a shape's WKB as the exact part of its valueKey, so
// the column renders, saves and loads them as any other) and a geoIndex:
// the bounding box of every value in an R-tree
// (github.com/peterstace/simplefeatures/rtree, bulk-loaded and read-only,
// so snapshots share it without locks).
//
// An R-tree that is never modified stays exact under updates this way:
// base holds the boxes as of its last bulk load, stale the documents whose
// box in base is no longer theirs (changed, null or deleted since), and
// fresh the boxes of the documents changed since, a small R-tree loaded
// again by each update. A search asks both, drops stale hits of base,
// and tests each candidate's value exactly (query.Geo.Intersects), so an
// out-of-date box costs a test, never a wrong answer. When fresh grows
// past freshLimit, the update loads base again from the column.
type geoIndex struct {
	base  *geoTree
	stale *roaring.Bitmap
	fresh *geoTree
	// freshItems are fresh's boxes, by document, to carry to the next
	// update; docs the documents with a value.
	freshItems map[uint32]rtree.Box
	docs       *roaring.Bitmap
	shapes     bool // geoshape values: the trees keep their boxes
}

// geoTree is an R-tree whose record ids index docs (and boxes), so that a
// search yields each hit's document and, for shapes, its bounding box
// without reading and decoding its value: a shape whose box lies inside a
// query's box is a match without a test.
type geoTree struct {
	tree *rtree.RTree
	docs []uint32
	// boxes are the shapes' boxes in float32, rounded outward (each holds
	// its shape's box, so "inside the query's box" stays exact); nil for
	// points, whose tests read their exact values.
	boxes []box32
}

type box32 struct{ minX, minY, maxX, maxY float32 }

// down32 and up32 round a float64 to a float32 at most and at least it.
func down32(x float64) float32 {
	f := float32(x)
	if float64(f) > x {
		f = math.Nextafter32(f, float32(math.Inf(-1)))
	}
	return f
}

func up32(x float64) float32 {
	f := float32(x)
	if float64(f) < x {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

func (b box32) bounds() query.Bounds {
	return query.Bounds{MinX: float64(b.minX), MinY: float64(b.minY), MaxX: float64(b.maxX), MaxY: float64(b.maxY)}
}

// newGeoTree bulk-loads items (their record ids are documents).
func newGeoTree(items []rtree.BulkItem, shapes bool) *geoTree {
	t := &geoTree{docs: make([]uint32, len(items))}
	if shapes {
		t.boxes = make([]box32, len(items))
	}
	for i := range items {
		t.docs[i] = uint32(items[i].RecordID)
		if shapes {
			b := items[i].Box
			t.boxes[i] = box32{down32(b.MinX), down32(b.MinY), up32(b.MaxX), up32(b.MaxY)}
		}
		items[i].RecordID = i
	}
	t.tree = rtree.BulkLoad(items)
	return t
}

// search calls fn with the document of each entry whose box meets box,
// and the position of its box.
func (t *geoTree) search(box rtree.Box, fn func(i int, d uint32)) {
	_ = t.tree.RangeSearch(box, func(i int) error {
		fn(i, t.docs[i])
		return nil
	})
}

// freshLimit is how many changed boxes an update carries before it loads
// base again: a load costs every value, a fresh R-tree its entries per
// update and search.
func freshLimit(values uint64) int { return max(1024, int(values/64)) }

// isGeo reports whether a property is indexed as a geometry.
func isGeo(p objects.Property) bool {
	return p.Type.Kind == objects.KindGeoPoint || p.Type.Kind == objects.KindGeoShape
}

// geoBox is the bounding box of a stored geo value.
func geoBox(k objects.Kind, vk valueKey) (rtree.Box, bool) {
	if k == objects.KindGeoPoint {
		p, ok := objects.DecodeGeoPoint([]byte(vk.exact))
		return rtree.Box{MinX: p.Lon, MinY: p.Lat, MaxX: p.Lon, MaxY: p.Lat}, ok
	}
	s, err := objects.DecodeGeoShape([]byte(vk.exact))
	if err != nil {
		return rtree.Box{}, false
	}
	return s.Geometry.Envelope().AsBox()
}

// buildGeo bulk-loads the geo index of pi from its column: the values of
// the alive documents that are not null.
func buildGeo(pi *propertyIndex, alive *roaring.Bitmap) *geoIndex {
	docs := roaring.AndNot(alive, pi.nulls)
	shapes := pi.elementType.Kind == objects.KindGeoShape
	items := make([]rtree.BulkItem, 0, docs.GetCardinality())
	it := docs.Iterator()
	for it.HasNext() {
		d := it.Next()
		if box, ok := geoBox(pi.elementType.Kind, pi.column.get(d)); ok {
			items = append(items, rtree.BulkItem{Box: box, RecordID: int(d)})
		}
	}
	return &geoIndex{base: newGeoTree(items, shapes), stale: roaring.New(), fresh: newGeoTree(nil, shapes),
		freshItems: map[uint32]rtree.Box{}, docs: docs, shapes: shapes}
}

// with is the geo index after changes; np is the property's index after
// them (its column and nulls already updated).
func (g *geoIndex) with(np *propertyIndex, changes []Change) (*geoIndex, error) {
	n := &geoIndex{base: g.base, stale: g.stale.Clone(), docs: g.docs.Clone(), shapes: g.shapes,
		freshItems: make(map[uint32]rtree.Box, len(g.freshItems)+len(changes))}
	for d, box := range g.freshItems {
		n.freshItems[d] = box
	}
	for _, c := range changes {
		d := c.Doc
		if g.docs.Contains(d) {
			n.stale.Add(d) // base may hold its old box; fresh will hold the new one
		}
		delete(n.freshItems, d)
		n.docs.Remove(d)
		if c.Object == nil || c.Object.Values[np.position] == nil {
			continue
		}
		box, ok := geoBox(np.elementType.Kind, np.column.get(d))
		if !ok {
			return nil, fmt.Errorf("document %d: a %s value that does not decode", d, np.elementType.Kind)
		}
		n.freshItems[d] = box
		n.docs.Add(d)
	}
	if len(n.freshItems) > freshLimit(n.docs.GetCardinality()) {
		return buildGeo(np, n.docs), nil
	}
	items := make([]rtree.BulkItem, 0, len(n.freshItems))
	for d, box := range n.freshItems {
		items = append(items, rtree.BulkItem{Box: box, RecordID: int(d)})
	}
	n.fresh = newGeoTree(items, n.shapes)
	n.stale.RunOptimize()
	return n, nil
}

// candidates are the documents whose box meets one of a filter's bounds
// (a superset of those whose value does), split in two: sure match
// without a test (points in a box, since a point's box is the point and
// the R-tree's overlap test, like the predicate, includes the edges;
// shapes whose box the filter's query.BoxClassifier decides meets the
// region), maybe must be tested; shapes whose box it decides misses the
// region are neither. Both are sorted and without duplicates (a document
// may meet two bounds).
func (g *geoIndex) candidates(f *query.Geo) (sure, maybe []uint32) {
	sure, maybe = make([]uint32, 0, 1024), make([]uint32, 0, 1024)
	var hits []geoHit // shapes, classified once all are found
	pointsInBox := !g.shapes && f.Relation.Box()
	checkStale := !g.stale.IsEmpty()
	for _, b := range f.Bounds() {
		box := rtree.Box{MinX: b.MinX, MinY: b.MinY, MaxX: b.MaxX, MaxY: b.MaxY}
		for _, t := range []*geoTree{g.base, g.fresh} {
			t.search(box, func(i int, d uint32) {
				switch {
				case t == g.base && checkStale && g.stale.Contains(d):
				case pointsInBox:
					sure = append(sure, d)
				case !g.shapes:
					maybe = append(maybe, d)
				default:
					hits = append(hits, geoHit{doc: d, box: t.boxes[i]})
				}
			})
		}
	}
	if len(hits) > 0 {
		c := f.Classifier(len(hits), func(i int) query.Bounds { return hits[i].box.bounds() })
		for _, h := range hits {
			switch c.Classify(h.box.bounds()) {
			case query.BoxMeets:
				sure = append(sure, h.doc)
			case query.BoxUnknown:
				maybe = append(maybe, h.doc)
			}
		}
	}
	slices.Sort(sure)
	slices.Sort(maybe)
	return slices.Compact(sure), slices.Compact(maybe)
}

// geoHit is a document the R-tree found and, for a shape, its box.
type geoHit struct {
	doc uint32
	box box32
}
