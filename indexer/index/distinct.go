package index

import (
	"context"
	"fmt"
	"slices"

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
	vks := make([]valueKey, 0, bm.GetCardinality())
	it := bm.Iterator()
	for n := 0; it.HasNext(); n++ {
		if n&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		d := it.Next()
		if !pi.nulls.Contains(d) {
			vks = append(vks, pi.column.get(d))
		}
	}
	slices.SortFunc(vks, compareValueKeys)
	vks = slices.CompactFunc(vks, func(a, b valueKey) bool { return compareValueKeys(a, b) == 0 })
	out := make([]any, len(vks))
	for i, vk := range vks {
		out[i] = valueOf(pi.elementType, vk)
	}
	return out, nil
}
