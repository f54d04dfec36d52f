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
	if !pi.column.exact {
		return distinctPres(ctx, pi, bm)
	}
	vks := make([]valueKey, 0, bm.GetCardinality())
	eachDocs(bm, func(docs []uint32) bool {
		for _, d := range docs {
			vks = append(vks, pi.column.get(d))
		}
		err = ctx.Err()
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(vks, compareValueKeys)
	vks = slices.CompactFunc(vks, func(a, b valueKey) bool { return compareValueKeys(a, b) == 0 })
	out := make([]any, len(vks))
	for i, vk := range vks {
		out[i] = valueOf(pi.elementType, vk)
	}
	return out, nil
}

// distinctPres is Distinct of a property whose values are their pres
// alone (numbers, dates). A link from a hundred thousand customers reads
// as many cold lines in the column: the loop that reads them does nothing
// else, so that the processor overlaps the misses; the pres are then
// sorted by radix and made unique in place (16 bytes a document at most,
// with the output).
func distinctPres(ctx context.Context, pi *propertyIndex, bm *roaring.Bitmap) ([]any, error) {
	ps := make([]rankedPair, 0, bm.GetCardinality())
	var err error
	eachDocs(bm, func(docs []uint32) bool {
		for _, d := range docs {
			ps = append(ps, rankedPair{pre: pi.column.get(d).pre, rank: uint32(len(ps))})
		}
		err = ctx.Err()
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	sortRanked(ps)
	n := 0
	for _, p := range ps {
		if n == 0 || p.pre != ps[n-1].pre {
			ps[n] = p
			n++
		}
	}
	out := make([]any, n)
	for i, p := range ps[:n] {
		out[i] = valueOf(pi.elementType, valueKey{pre: p.pre})
	}
	return out, nil
}
