package index

import (
	"fmt"

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
	base  *rtree.RTree
	stale *roaring.Bitmap
	fresh *rtree.RTree
	// freshItems are fresh's boxes, by document, to carry to the next
	// update; docs the documents with a value.
	freshItems map[uint32]rtree.Box
	docs       *roaring.Bitmap
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
	items := make([]rtree.BulkItem, 0, docs.GetCardinality())
	it := docs.Iterator()
	for it.HasNext() {
		d := it.Next()
		if box, ok := geoBox(pi.elementType.Kind, pi.column.get(d)); ok {
			items = append(items, rtree.BulkItem{Box: box, RecordID: int(d)})
		}
	}
	return &geoIndex{base: rtree.BulkLoad(items), stale: roaring.New(), fresh: rtree.BulkLoad(nil),
		freshItems: map[uint32]rtree.Box{}, docs: docs}
}

// with is the geo index after changes; np is the property's index after
// them (its column and nulls already updated).
func (g *geoIndex) with(np *propertyIndex, changes []Change) (*geoIndex, error) {
	n := &geoIndex{base: g.base, stale: g.stale.Clone(), docs: g.docs.Clone(),
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
	n.fresh = rtree.BulkLoad(items)
	n.stale.RunOptimize()
	return n, nil
}

// candidates are the documents whose box meets one of bounds: a superset
// of the documents whose value does.
func (g *geoIndex) candidates(bounds []query.Bounds) *roaring.Bitmap {
	out := roaring.New()
	var buf []uint32
	for _, b := range bounds {
		box := rtree.Box{MinX: b.MinX, MinY: b.MinY, MaxX: b.MaxX, MaxY: b.MaxY}
		_ = g.base.RangeSearch(box, func(id int) error {
			if !g.stale.Contains(uint32(id)) {
				buf = append(buf, uint32(id))
			}
			return nil
		})
		_ = g.fresh.RangeSearch(box, func(id int) error {
			buf = append(buf, uint32(id))
			return nil
		})
	}
	out.AddMany(buf)
	return out
}
