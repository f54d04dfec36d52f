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
func (s *Snapshot) Distinct(ctx context.Context, f *query.Filter, limits query.Limits, property string) (query.ValueSet, error) {
	pi := s.property(property)
	switch {
	case pi == nil:
		return nil, fmt.Errorf("object type %s has no property %q", s.typ.APIName, property)
	case pi.column == nil:
		return nil, fmt.Errorf("property %s of %s has no values in the index (an array, or a string of search role none)", property, s.typ.APIName)
	}
	x := &exec{ctx: ctx, s: s}
	defer x.release()
	root, err := (&compiler{ctx: ctx, s: s, limits: limits}).compile(f)
	if err != nil {
		return nil, err
	}
	m, err := matchesOf(x, root, pi)
	if err != nil {
		return nil, err
	}
	if s.isKey(pi) && !pi.column.exact && m.whole() && lazyKeys(s, m.count) {
		return &valueSet{elementType: pi.elementType, keys: &keyDocs{s: s, pi: pi, docs: m.bitmap(), count: m.count}}, nil
	}
	if !pi.column.exact {
		pres, err := distinctPres(ctx, pi, m)
		if err != nil {
			return nil, err
		}
		return &valueSet{elementType: pi.elementType, pres: pres}, nil
	}
	vks := make([]valueKey, 0, m.count)
	m.each(func(docs []uint32) bool {
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
	return &valueSet{elementType: pi.elementType, vks: vks}, nil
}

// matches are the documents whose values Distinct reads: how many, and
// a batch at a time in document order.
type matches struct {
	count int
	each  func(fn func(docs []uint32) bool)
	// bits or bm is the documents, when they are all of them (nil
	// both when each skips some).
	bits dense // the query's: copy to keep
	bm   *roaring.Bitmap
}

func (m matches) whole() bool { return m.bits != nil || m.bm != nil }

// bitmap is the documents, all of m's, as a bitmap to keep: a copy of
// the query's bitset is a fresh allocation of maxDoc/8 bytes (at ten
// million documents its page faults cost more than the link's join),
// where a bitmap of a few hundred thousand documents is their containers.
// A node's bitmap may share the words of the query's bitsets, which go
// back to the pool when the query ends: it is copied too.
func (m matches) bitmap() *roaring.Bitmap {
	if m.bits != nil {
		return roaring.FromDense(m.bits, true)
	}
	return m.bm.Clone()
}

// denseMatches are the documents of w not in skip (nil: none); count is
// w's.
func denseMatches(w dense, count int, skip *roaring.Bitmap) matches {
	m := matches{count: count}
	if skip == nil {
		m.bits = w
	}
	m.each = func(fn func(docs []uint32) bool) {
		buf := make([]uint32, 0, 4096)
		w.each(func(d uint32) bool {
			if skip != nil && skip.Contains(d) {
				return true
			}
			if buf = append(buf, d); len(buf) < cap(buf) {
				return true
			}
			more := fn(buf)
			buf = buf[:0]
			return more
		})
		if len(buf) > 0 {
			fn(buf)
		}
	}
	return m
}

// matchesOf is the documents root matches that have a value of pi. An
// intersection made as a dense bitset is read from it, where its bitmap
// would first copy it into a roaring bitmap to be read from that.
func matchesOf(x *exec, root node, pi *propertyIndex) (matches, error) {
	if a, ok := root.(*andNode); ok && !x.sparse && a.useDense() {
		w, err := a.dense(x)
		if err != nil {
			return matches{}, err
		}
		nulls := pi.nulls
		if nulls.IsEmpty() {
			nulls = nil
		}
		return denseMatches(w, int(w.count()), nulls), nil
	}
	bm, err := root.bitmap(x) // may be shared: only read
	if err != nil {
		return matches{}, err
	}
	if !pi.nulls.IsEmpty() && bm.Intersects(pi.nulls) {
		bm = roaring.AndNot(bm, pi.nulls)
	}
	return bitmapMatches(bm, int(bm.GetCardinality())), nil
}

// bitmapMatches are the count documents of bm.
func bitmapMatches(bm *roaring.Bitmap, count int) matches {
	return matches{count: count, bm: bm, each: func(fn func(docs []uint32) bool) { eachDocs(bm, fn) }}
}

// distinctPres is Distinct of a property whose values are their pres
// alone (numbers, dates). A link from a hundred thousand customers reads
// as many cold lines in the column: the loop that reads them does nothing
// else, so that the processor overlaps the misses; the pres are then
// sorted by radix and made unique in place (16 bytes a document at most,
// with the output).
func distinctPres(ctx context.Context, pi *propertyIndex, m matches) ([]uint64, error) {
	ps := make([]rankedPair, 0, m.count)
	var err error
	m.each(func(docs []uint32) bool {
		for _, d := range docs {
			ps = append(ps, rankedPair{pre: pi.column.preOf(d), rank: uint32(len(ps))})
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
	out := make([]uint64, n)
	for i, p := range ps[:n] {
		out[i] = p.pre
	}
	return out, nil
}
