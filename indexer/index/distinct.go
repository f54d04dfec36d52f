package index

import (
	"context"
	"fmt"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/ontoindex/ontoindex/indexer/query"
)

// Distinct returns the distinct non-null values of a scalar property among
// the documents f matches, in value order. They are what a link follows
// from a set of objects to another type: the foreign keys the set holds,
// or its primary keys, to match against the other type's.
func (s *Snapshot) Distinct(ctx context.Context, f *query.Filter, limits query.Limits, property string) ([]any, error) {
	pi := s.property(property)
	switch {
	case pi == nil:
		return nil, fmt.Errorf("object type %s has no property %q", s.typ.APIName, property)
	case pi.column == nil:
		return nil, fmt.Errorf("property %s of %s has no values in the index (an array, or a string of search role none)", property, s.typ.APIName)
	}
	x := &exec{ctx: ctx, s: s, aliveCount: float64(s.alive.GetCardinality())}
	defer x.release()
	root, err := (&compiler{s: s, limits: limits}).compile(f)
	if err != nil {
		return nil, err
	}
	bm, err := root.bitmap(x) // may be shared: only read
	if err != nil {
		return nil, err
	}
	if !pi.nulls.IsEmpty() && bm.Intersects(pi.nulls) {
		bm = roaring.AndNot(bm, pi.nulls)
	}
	docs := bm.ToArray()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var vks []valueKey
	if pi.column.exact {
		vks = make([]valueKey, len(docs))
		for i, d := range docs {
			vks[i] = pi.column.get(d)
		}
		slices.SortFunc(vks, compareValueKeys)
	} else {
		vks = distinctPres(pi.column, docs)
	}
	vks = slices.CompactFunc(vks, func(a, b valueKey) bool { return compareValueKeys(a, b) == 0 })
	out := make([]any, len(vks))
	for i, vk := range vks {
		out[i] = valueOf(pi.elementType, vk)
	}
	return out, nil
}

// distinctPres is the values of a column without exact parts at docs, in
// order. A link from a hundred thousand customers reads as many cold
// lines: the loop that reads them does nothing else, so that the
// processor overlaps the misses, and the pres are sorted by radix.
func distinctPres(c *column, docs []uint32) []valueKey {
	ps := make([]rankedPair, len(docs))
	for i, d := range docs {
		ps[i] = rankedPair{pre: c.get(d).pre, rank: uint32(i)}
	}
	sortRanked(ps)
	vks := make([]valueKey, len(ps))
	for i, p := range ps {
		vks[i].pre = p.pre
	}
	return vks
}
