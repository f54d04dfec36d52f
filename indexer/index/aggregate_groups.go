package index

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// groupKeyKind is what a part of a group's key holds. Its letter starts the
// part in a group's identity, and the id that orders the groups of a
// grouping whose sort values differ in type (query.CompareGroupValues: a default,
// "s", before the values, "v"), so the letters are part of the results'
// order.
type groupKeyKind byte

const (
	groupKeyValue      groupKeyKind = 'v' // a value of the property, or of an element of it
	groupKeyNull       groupKeyKind = 'n' // no value, in the null group
	groupKeyDefault    groupKeyKind = 's' // no value, in the group of the grouping's default
	groupKeyFixedWidth groupKeyKind = 'f' // a fixed-width bucket
	groupKeyRange      groupKeyKind = 'r' // one of the grouping's ranges
	groupKeyDuration   groupKeyKind = 'd' // a duration bucket
)

// groupKeyPart is one document's value of one grouping, before it is
// known whether its group exists yet.
type groupKeyPart struct {
	kind       groupKeyKind
	value      valueKey
	start, end float64 // a fixed-width bucket
	rangeIndex int
	bucket     int64 // a duration bucket's start
}

// groupAccumulator accumulates one group.
type groupAccumulator struct {
	keys    []query.GroupKey
	sorts   []any // per grouping: how the group orders (nil last)
	ids     []string
	count   int64
	metrics []metricAccumulator
}

// group returns the accumulator of a combination of group values.
func (a *aggregation) group(parts []groupKeyPart) (*groupAccumulator, error) {
	a.identity = a.identity[:0]
	for _, it := range parts {
		a.identity = append(a.identity, byte(it.kind))
		switch it.kind {
		case groupKeyValue:
			a.identity = binary.BigEndian.AppendUint64(a.identity, it.value.pre)
			a.identity = binary.AppendUvarint(a.identity, uint64(len(it.value.exact)))
			a.identity = append(a.identity, it.value.exact...)
		case groupKeyFixedWidth:
			a.identity = binary.BigEndian.AppendUint64(a.identity, math.Float64bits(it.start))
		case groupKeyRange:
			a.identity = binary.AppendUvarint(a.identity, uint64(it.rangeIndex))
		case groupKeyDuration:
			a.identity = binary.BigEndian.AppendUint64(a.identity, uint64(it.bucket))
		}
	}
	if acc := a.accumulators[string(a.identity)]; acc != nil {
		return acc, nil
	}
	if a.limit > 0 && len(a.accumulators) >= a.limit {
		return nil, &query.TooManyGroupsError{Groups: len(a.accumulators) + 1, Limit: a.limit}
	}
	acc := &groupAccumulator{metrics: make([]metricAccumulator, len(a.metrics))}
	for i, it := range parts {
		g := a.groups[i]
		var k query.GroupKey
		var sort any
		var id string
		switch it.kind {
		case groupKeyValue:
			k.Value = valueOf(g.pi.elementType, it.value)
			sort, id = k.Value, "v"+objects.TextOf(k.Value)
		case groupKeyNull:
			id = "n"
		case groupKeyDefault:
			k.IsDefault = true
			sort, id = *g.Default, "s"+*g.Default
		case groupKeyFixedWidth:
			k.Start, k.End = it.start, it.end
			sort, id = it.start, fmt.Sprintf("f%v", it.start)
		case groupKeyRange:
			k.Range = it.rangeIndex
			sort, id = it.rangeIndex, fmt.Sprintf("r%d", it.rangeIndex)
		case groupKeyDuration:
			k.Value = g.bucketer.value(it.bucket)
			sort, id = k.Value, fmt.Sprintf("d%d", it.bucket)
		}
		acc.keys = append(acc.keys, k)
		acc.sorts = append(acc.sorts, sort)
		acc.ids = append(acc.ids, id)
	}
	a.accumulators[string(a.identity)] = acc
	return acc, nil
}

// fillParts fills the group key parts of one grouping for a document; none
// means the document is in no group.
func (a *aggregation) fillParts(g *grouping, d uint32) error {
	g.parts = g.parts[:0]
	vals, err := a.values(g.pi, d)
	if err != nil {
		return err
	}
	switch g.Kind {
	case query.Exact:
		if len(vals) == 0 {
			switch {
			case g.Default != nil:
				g.parts = append(g.parts, groupKeyPart{kind: groupKeyDefault})
			case g.IncludeNull:
				g.parts = append(g.parts, groupKeyPart{kind: groupKeyNull})
			}
			return nil
		}
		for _, vk := range vals {
			g.parts = appendPart(g.parts, groupKeyPart{kind: groupKeyValue, value: vk})
		}
	case query.FixedWidth:
		for _, vk := range vals {
			if lo, hi, ok := fixedBucket(g.pi.elementType, vk, g.Width); ok {
				g.parts = appendPart(g.parts, groupKeyPart{kind: groupKeyFixedWidth, start: lo, end: hi})
			}
		}
	case query.Ranges:
		for _, vk := range vals {
			for i, r := range g.ranges {
				if (r.hasLo && compareValueKeys(vk, r.lo) < 0) || (r.hasHi && compareValueKeys(vk, r.hi) >= 0) {
					continue
				}
				g.parts = appendPart(g.parts, groupKeyPart{kind: groupKeyRange, rangeIndex: i})
			}
		}
	case query.Duration:
		for _, vk := range vals {
			g.parts = appendPart(g.parts, groupKeyPart{kind: groupKeyDuration, bucket: g.bucketer.start(vk.pre)})
		}
	}
	return nil
}

// appendPart adds a part unless the document already has it: an object
// counts once in a group however many of its elements fall in it.
func appendPart(parts []groupKeyPart, it groupKeyPart) []groupKeyPart {
	for _, x := range parts {
		if x.kind == it.kind && x.rangeIndex == it.rangeIndex && x.start == it.start && x.bucket == it.bucket && compareValueKeys(x.value, it.value) == 0 {
			return parts
		}
	}
	return append(parts, it)
}

// fixedBucket is the bucket of a value: its start k*w, k = floor(v/w),
// computed exactly (a float quotient misplaces large longs and values at
// bucket edges) and rounded to float64 at the end, and its end, start + w.
// Buckets whose starts round alike are one. NaN and infinities have no
// bucket.
func fixedBucket(t objects.DataType, vk valueKey, w float64) (lo, hi float64, ok bool) {
	lo, ok = bucketStart(t, vk, w)
	return lo, lo + w, ok
}

func bucketStart(t objects.DataType, vk valueKey, w float64) (float64, bool) {
	var v *big.Rat
	switch t.Kind {
	case objects.KindInteger, objects.KindLong:
		x := int64(vk.pre ^ signBit)
		// Integer widths: floor division in int64 when nothing overflows.
		if iw := int64(w); float64(iw) == w && iw > 0 && iw < 1<<40 && x > math.MinInt64/2 && x < math.MaxInt64/2 {
			k := x / iw
			if x%iw != 0 && x < 0 {
				k--
			}
			return float64(k * iw), true
		}
		v = new(big.Rat).SetInt64(x)
	case objects.KindFloat, objects.KindDouble:
		f := floatOfKey(vk.pre)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, false
		}
		q := f / w
		if fl := math.Floor(q); q-fl > 1e-6 && fl+1-q > 1e-6 && math.Abs(q) < 1<<52 {
			// Far from an edge, the float floor is exact, and products of
			// floats round like the exact ones.
			return fl * w, true
		}
		v = new(big.Rat).SetFloat64(f)
	case objects.KindDecimal:
		v = valueOf(t, vk).(objects.Decimal).Rat()
	default:
		return 0, false
	}
	rw := new(big.Rat).SetFloat64(w)
	q := new(big.Rat).Quo(v, rw)
	k := new(big.Int).Div(q.Num(), q.Denom()) // floor: the denominator is positive
	lo, _ := new(big.Rat).Mul(new(big.Rat).SetInt(k), rw).Float64()
	return lo, true
}
