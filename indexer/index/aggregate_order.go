package index

import (
	"slices"

	"github.com/ontoindex/ontoindex/indexer/query"
)

// A count of the objects by duration bucket or by range, over all of a
// type or a range of the grouped property itself, needs no object at
// all: the property's order holds its values sorted, so a bucket's count
// is the distance between the positions of its start and its end, found
// by search. It costs a search or two a group where the column walk
// (byDuration, scan) reads every object: the month histogram of a
// million orders went from ~12 ms to ~40 µs. OpenSearch answers a date
// histogram or a range aggregation over all documents the same way, from
// its points tree.

// orderRuns returns the aggregation's one grouping, when it is of kind
// and only counts are asked, with the runs of its property's order that
// the filter matches: all of it, or the runs of a filter on the grouped
// property; ok is false for any other query.
func (a *aggregation) orderRuns(root node, kind query.GroupKind) (g *grouping, runs []run, ok bool) {
	if len(a.groups) != 1 || !a.countsOnly() {
		return nil, nil, false
	}
	g = a.groups[0]
	if g.Kind != kind || g.pi.isList || g.pi.order == nil {
		return nil, nil, false
	}
	switch n := root.(type) {
	case allNode:
		return g, []run{{0, g.pi.order.len()}}, true
	case *runsNode:
		return g, n.runs, n.pi == g.pi
	}
	return nil, nil, false
}

// byDurationOrder counts one duration grouping from the grouped
// property's order (see orderRuns). It reports false when the query is
// not of that shape, or when its buckets are so many that reading every
// value costs less.
func (a *aggregation) byDurationOrder(root node) (bool, error) {
	g, runs, ok := a.orderRuns(root, query.Duration)
	if !ok {
		return false, nil
	}
	runs = slices.DeleteFunc(slices.Clone(runs), func(r run) bool { return r.hi <= r.lo })
	if len(runs) == 0 {
		return true, nil // no values: no groups
	}
	o := g.pi.order
	// A search a bucket beats reading every value only while buckets hold
	// many values each: at most one bucket for every 16 values here, or
	// the column walk counts them.
	var values int
	for _, r := range runs {
		values += r.hi - r.lo
	}
	first, last := g.bucketer.ordinal(o.pre(runs[0].lo)), g.bucketer.ordinal(o.pre(runs[len(runs)-1].hi-1))
	if uint64(last-first) >= uint64(values/16) {
		return false, nil
	}
	buckets := newDurationGroups(a, g)
	for _, r := range runs {
		for p := r.lo; p < r.hi; {
			if err := a.x.ctx.Err(); err != nil {
				return true, err
			}
			bi, j := o.locate(p)
			pre := o.blocks[bi].pre[j]
			ord := g.bucketer.ordinal(pre)
			end := r.hi
			// The next bucket starts at the pre of its start; a start past
			// the values' range (overflow) leaves the rest in this one.
			if next := g.bucketer.startOf(ord + 1); next > int64(pre^signBit) {
				_, _, end = o.seekFrom(bi, j, uint64(next)^signBit)
				end = min(end, r.hi)
			}
			acc, err := buckets.of(ord)
			if err != nil {
				return true, err
			}
			acc.count += int64(end - p)
			p = end
		}
	}
	return true, nil
}

// byRangesOrder counts one ranges grouping from the grouped property's
// order (see orderRuns): two searches a range.
func (a *aggregation) byRangesOrder(root node) (bool, error) {
	g, runs, ok := a.orderRuns(root, query.Ranges)
	if !ok {
		return false, nil
	}
	o, t := g.pi.order, a.x.s.ties(g.pi)
	for i, vr := range g.ranges {
		lo, hi := 0, o.len()
		if vr.hasLo {
			lo = o.lowerBound(t, vr.lo, false)
		}
		if vr.hasHi {
			hi = o.lowerBound(t, vr.hi, false)
		}
		var n int64
		for _, r := range runs {
			n += int64(max(min(hi, r.hi)-max(lo, r.lo), 0))
		}
		if n == 0 {
			continue
		}
		acc, err := a.group([]groupKeyPart{{kind: groupKeyRange, rangeIndex: i}})
		if err != nil {
			return true, err
		}
		acc.count += n
	}
	return true, nil
}

// maxDenseBuckets bounds the slice durationGroups indexes by bucket
// ordinal; a query whose buckets spread wider goes through a map.
const maxDenseBuckets = 1 << 16

// durationGroups finds the accumulator of a duration bucket by its
// ordinal: a slice indexed by ordinal (a map past maxDenseBuckets), each
// made on first sight by the aggregation's group.
type durationGroups struct {
	a      *aggregation
	g      *grouping
	dense  []*groupAccumulator // by ordinal - base
	base   int64
	sparse map[int64]*groupAccumulator
	part   []groupKeyPart
}

func newDurationGroups(a *aggregation, g *grouping) *durationGroups {
	return &durationGroups{a: a, g: g, part: []groupKeyPart{{kind: groupKeyDuration}}}
}

// of is the accumulator of bucket ord.
func (b *durationGroups) of(ord int64) (*groupAccumulator, error) {
	if b.sparse == nil {
		if b.dense == nil {
			b.base = ord
		}
		if i := ord - b.base; i >= 0 && i < int64(len(b.dense)) && b.dense[i] != nil {
			return b.dense[i], nil
		}
	} else if acc := b.sparse[ord]; acc != nil {
		return acc, nil
	}
	b.part[0].bucket = b.g.bucketer.startOf(ord)
	acc, err := b.a.group(b.part)
	if err != nil {
		return nil, err
	}
	switch lo, hi := min(b.base, ord), max(b.base+int64(len(b.dense))-1, ord); {
	case b.sparse != nil:
		b.sparse[ord] = acc
	case hi-lo < maxDenseBuckets:
		if ord < b.base || ord >= b.base+int64(len(b.dense)) {
			// Grow at least twofold towards ord, so that filling the
			// slice bucket by bucket costs linear time.
			size := min(max(hi-lo+1, 2*int64(len(b.dense))), maxDenseBuckets)
			at := lo
			if ord < b.base {
				at = hi - size + 1
			}
			grown := make([]*groupAccumulator, size)
			copy(grown[b.base-at:], b.dense)
			b.dense, b.base = grown, at
		}
		b.dense[ord-b.base] = acc
	default:
		b.sparse = map[int64]*groupAccumulator{ord: acc}
		for i, x := range b.dense {
			if x != nil {
				b.sparse[b.base+int64(i)] = x
			}
		}
	}
	return acc, nil
}
