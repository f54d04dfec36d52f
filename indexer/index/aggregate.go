package index

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// Loader reads the stored objects of documents, for the properties the
// index keeps no values of (role none strings and arrays).
type Loader func(docs []uint32) ([]*objects.Object, error)

// Aggregations read the values of the matching documents from the
// columns, in document order, without decoding objects. A count without
// groups is a count of the filter; a count grouped by one property with a
// dict is an intersection per value, or a lookup per value in the pair
// counts when the filter is one value or range of another (pairs.go).

type metric struct {
	query.Metric
	pi *propertyIndex
}

type grouping struct {
	query.Group
	pi     *propertyIndex
	ranges []valueRange
	parts  []groupKeyPart // scratch, per document
}

type valueRange struct {
	lo, hi       valueKey
	hasLo, hasHi bool
}

// groupKeyPart is one document's value of one grouping, before it is
// known whether its group exists yet.
type groupKeyPart struct {
	kind       groupKeyKind
	value      valueKey
	start, end float64 // a fixed-width bucket
	rangeIndex int
}

// groupKeyKind is what a part of a group's key holds. Its letter starts the
// part in a group's identity, and the id that orders the groups of a
// grouping whose sort values differ in type (compareGroupAt: a default,
// "s", before the values, "v"), so the letters are part of the results'
// order.
type groupKeyKind byte

const (
	groupKeyValue      groupKeyKind = 'v' // a value of the property, or of an element of it
	groupKeyNull       groupKeyKind = 'n' // no value, in the null group
	groupKeyDefault    groupKeyKind = 's' // no value, in the group of the grouping's default
	groupKeyFixedWidth groupKeyKind = 'f' // a fixed-width bucket
	groupKeyRange      groupKeyKind = 'r' // one of the grouping's ranges
)

// groupAccumulator accumulates one group.
type groupAccumulator struct {
	keys    []query.GroupKey
	sorts   []any // per grouping: how the group orders (nil last)
	ids     []string
	count   int64
	metrics []metricAccumulator
}

type metricAccumulator struct {
	count     int64
	intSum    int64
	bigSum    *big.Int // the integer sum once it overflows int64
	floatSum  float64
	min, max  valueKey
	hasMinMax bool
	distinct  map[string]struct{}
}

// aggregation is one running aggregation.
type aggregation struct {
	x            *exec
	metrics      []metric
	groups       []*grouping
	limit        int
	accumulators map[string]*groupAccumulator
	identity     []byte
	load         Loader
	loaded       map[uint32]*objects.Object // loaded for the current batch
	valueBuf     []valueKey
}

// Aggregate computes an aggregation over the documents a filter matches.
// load may be nil when every property involved has values in the index.
func (s *Snapshot) Aggregate(ctx context.Context, q *query.Aggregate, load Loader) (*query.AggregateResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	x := &exec{ctx: ctx, s: s, aliveCount: float64(s.alive.GetCardinality())}
	defer x.release()
	root, err := (&compiler{s: s, limits: q.Limits}).compile(q.Filter)
	if err != nil {
		return nil, err
	}
	a := &aggregation{x: x, limit: q.Limits.MaxGroups, accumulators: map[string]*groupAccumulator{}, load: load}
	for _, m := range q.Metrics {
		am := metric{Metric: m}
		if m.Kind != query.Count {
			if am.pi = s.property(m.Property); am.pi == nil {
				return nil, fmt.Errorf("object type %s has no property %q", s.typ.APIName, m.Property)
			}
		}
		a.metrics = append(a.metrics, am)
	}
	for _, g := range q.Groups {
		ag := &grouping{Group: g, pi: s.property(g.Property)}
		if ag.pi == nil {
			return nil, fmt.Errorf("object type %s has no property %q", s.typ.APIName, g.Property)
		}
		for _, r := range g.Ranges {
			var vr valueRange
			if r.Start != nil {
				if vr.lo, err = valueKeyOf(ag.pi.elementType.Kind, r.Start); err != nil {
					return nil, fmt.Errorf("range of %s: %w", g.Property, err)
				}
				vr.hasLo = true
			}
			if r.End != nil {
				if vr.hi, err = valueKeyOf(ag.pi.elementType.Kind, r.End); err != nil {
					return nil, fmt.Errorf("range of %s: %w", g.Property, err)
				}
				vr.hasHi = true
			}
			ag.ranges = append(ag.ranges, vr)
		}
		a.groups = append(a.groups, ag)
	}
	if len(a.groups) == 0 {
		// One group of every matching object, even when none matches.
		a.accumulators[""] = &groupAccumulator{metrics: make([]metricAccumulator, len(a.metrics))}
		if a.countsOnly() {
			n, err := x.countNode(root)
			if err != nil {
				return nil, err
			}
			a.accumulators[""].count = n
			return a.result(), nil
		}
	}
	if ok, err := a.byPairs(root); ok || err != nil {
		if err != nil {
			return nil, err
		}
		return a.result(), nil
	}
	bm, err := root.bitmap(x)
	if err != nil {
		return nil, err
	}
	if ok, err := a.byDict(bm); ok || err != nil {
		if err != nil {
			return nil, err
		}
		return a.result(), nil
	}
	if err := a.scan(bm); err != nil {
		return nil, err
	}
	return a.result(), nil
}

func (a *aggregation) countsOnly() bool {
	for _, m := range a.metrics {
		if m.Kind != query.Count {
			return false
		}
	}
	return true
}

// byDict counts one exact grouping over a property with a dict by
// intersecting the matches with the documents of each value.
func (a *aggregation) byDict(bm *roaring.Bitmap) (bool, error) {
	if len(a.groups) != 1 || !a.countsOnly() {
		return false, nil
	}
	g := a.groups[0]
	if g.Kind != query.Exact || g.pi.dict == nil || g.pi.isList {
		return false, nil
	}
	for k, vbm := range g.pi.dict.values {
		n := int64(bm.AndCardinality(vbm))
		if n == 0 {
			continue
		}
		it := groupKeyPart{kind: groupKeyValue, value: valueKeyOfDict(k)}
		acc, err := a.group([]groupKeyPart{it})
		if err != nil {
			return true, err
		}
		acc.count += n
	}
	if g.IncludeNull || g.Default != nil {
		if err := a.addNulls(g, int64(bm.AndCardinality(g.pi.nulls))); err != nil {
			return true, err
		}
	}
	return true, nil
}

// byPairs counts one exact grouping by a property over the documents of
// one dict value or one range of another property from their pair counts
// (pairs.go), without the matches: a lookup per value of the grouping.
func (a *aggregation) byPairs(root node) (bool, error) {
	if len(a.groups) != 1 || !a.countsOnly() || a.groups[0].Kind != query.Exact {
		return false, nil
	}
	g := a.groups[0]
	var count func(ka string) int64
	switch n := root.(type) {
	case *setNode:
		t := a.x.s.pairCounts(g.pi, n.dictProperty) // nil unless n is a dict value
		if t == nil {
			return false, nil
		}
		v := valueKeyOfDict(n.dictValue)
		count = func(ka string) int64 { return int64(t.cell(ka, v)) }
	case *runsNode:
		t := a.x.s.pairCounts(g.pi, n.pi)
		if t == nil {
			return false, nil
		}
		count = func(ka string) int64 { return t.inRuns(ka, n.pi, n.runs) }
	default:
		return false, nil
	}
	var grouped int64
	for k := range g.pi.dict.values {
		c := count(k)
		if c == 0 {
			continue
		}
		grouped += c
		acc, err := a.group([]groupKeyPart{{kind: groupKeyValue, value: valueKeyOfDict(k)}})
		if err != nil {
			return true, err
		}
		acc.count += c
	}
	if g.IncludeNull || g.Default != nil {
		// The matches are counted exactly by est; those without a value
		// of the grouping are the rest.
		if err := a.addNulls(g, int64(root.est())-grouped); err != nil {
			return true, err
		}
	}
	return true, nil
}

// addNulls counts n matches without a value in the null or default group.
func (a *aggregation) addNulls(g *grouping, n int64) error {
	if n <= 0 {
		return nil
	}
	it := groupKeyPart{kind: groupKeyNull}
	if g.Default != nil {
		it.kind = groupKeyDefault
	}
	acc, err := a.group([]groupKeyPart{it})
	if err != nil {
		return err
	}
	acc.count += n
	return nil
}

// values returns the non-null values of a property of a document (array
// elements each).
func (a *aggregation) values(pi *propertyIndex, d uint32) ([]valueKey, error) {
	a.valueBuf = a.valueBuf[:0]
	if pi.nulls.Contains(d) {
		return a.valueBuf, nil
	}
	switch {
	case pi.column != nil:
		return append(a.valueBuf, pi.column.get(d)), nil
	case pi.listColumn != nil:
		a.valueBuf = pi.listColumn.get(d, a.valueBuf)
		return a.valueBuf, nil
	}
	o := a.loaded[d]
	if o == nil {
		return nil, fmt.Errorf("document %d: object not loaded", d)
	}
	v := o.Values[pi.position]
	if pi.isList {
		els, err := elementKeys(pi.elementType.Kind, v, a.valueBuf)
		a.valueBuf = els
		return els, err
	}
	vk, err := valueKeyOf(pi.elementType.Kind, v)
	return append(a.valueBuf, vk), err
}

// needsLoad reports whether some property has no values in the index.
func (a *aggregation) needsLoad() bool {
	for _, m := range a.metrics {
		if m.pi != nil && m.pi.column == nil && m.pi.listColumn == nil {
			return true
		}
	}
	for _, g := range a.groups {
		if g.pi.column == nil && g.pi.listColumn == nil {
			return true
		}
	}
	return false
}

// scan accumulates every matching document.
func (a *aggregation) scan(bm *roaring.Bitmap) error {
	load := a.needsLoad()
	if load && a.load == nil {
		return fmt.Errorf("aggregation reads a property the index keeps no values of, and no loader is set")
	}
	it := bm.ManyIterator()
	batch := make([]uint32, 512)
	for {
		n := it.NextMany(batch)
		if n == 0 {
			return nil
		}
		if err := a.x.ctx.Err(); err != nil {
			return err
		}
		docs := batch[:n]
		if load {
			objs, err := a.load(docs)
			if err != nil {
				return err
			}
			a.loaded = make(map[uint32]*objects.Object, n)
			for i, d := range docs {
				if objs[i] != nil {
					a.loaded[d] = objs[i]
				}
			}
		}
		for _, d := range docs {
			if err := a.add(d); err != nil {
				return err
			}
		}
	}
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
	}
	return nil
}

// appendPart adds a part unless the document already has it: an object
// counts once in a group however many of its elements fall in it.
func appendPart(parts []groupKeyPart, it groupKeyPart) []groupKeyPart {
	for _, x := range parts {
		if x.kind == it.kind && x.rangeIndex == it.rangeIndex && x.start == it.start && compareValueKeys(x.value, it.value) == 0 {
			return parts
		}
	}
	return append(parts, it)
}

// add accumulates one document into each group it belongs to.
func (a *aggregation) add(d uint32) error {
	combos := 1
	for _, g := range a.groups {
		if err := a.fillParts(g, d); err != nil {
			return err
		}
		combos *= len(g.parts)
	}
	if combos == 0 {
		return nil
	}
	accs := make([]*groupAccumulator, 0, combos)
	pick := make([]groupKeyPart, len(a.groups))
	var walk func(i int) error
	walk = func(i int) error {
		if i == len(a.groups) {
			acc, err := a.group(pick)
			if err != nil {
				return err
			}
			accs = append(accs, acc)
			return nil
		}
		for _, it := range a.groups[i].parts {
			pick[i] = it
			if err := walk(i + 1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(0); err != nil {
		return err
	}
	for _, acc := range accs {
		acc.count++
	}
	for i, m := range a.metrics {
		if m.Kind == query.Count {
			continue
		}
		vals, err := a.values(m.pi, d)
		if err != nil {
			return err
		}
		for _, acc := range accs {
			for _, vk := range vals {
				acc.metrics[i].add(m, vk)
			}
		}
	}
	return nil
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
		}
		acc.keys = append(acc.keys, k)
		acc.sorts = append(acc.sorts, sort)
		acc.ids = append(acc.ids, id)
	}
	a.accumulators[string(a.identity)] = acc
	return acc, nil
}

func (m *metricAccumulator) add(spec metric, vk valueKey) {
	m.count++
	et := spec.pi.elementType
	switch spec.Kind {
	case query.Min:
		if !m.hasMinMax || compareValueKeys(vk, m.min) < 0 {
			m.min = vk
		}
		m.hasMinMax = true
	case query.Max:
		if !m.hasMinMax || compareValueKeys(vk, m.max) > 0 {
			m.max = vk
		}
		m.hasMinMax = true
	case query.Sum, query.Avg:
		if et.Kind == objects.KindInteger || et.Kind == objects.KindLong {
			v := int64(vk.pre ^ signBit)
			if m.bigSum != nil {
				m.bigSum.Add(m.bigSum, big.NewInt(v))
			} else if s := m.intSum + v; (v > 0 && s < m.intSum) || (v < 0 && s > m.intSum) {
				m.bigSum = new(big.Int).Add(big.NewInt(m.intSum), big.NewInt(v))
			} else {
				m.intSum = s
			}
		}
		m.floatSum += numberOf(et, vk)
	case query.ExactDistinct, query.ApproximateDistinct:
		if m.distinct == nil {
			m.distinct = map[string]struct{}{}
		}
		m.distinct[dictKey(vk)] = struct{}{}
	}
}

func (m *metricAccumulator) value(spec metric, count int64) any {
	switch spec.Kind {
	case query.Count:
		return count
	case query.Min:
		if !m.hasMinMax {
			return nil
		}
		return valueOf(spec.pi.elementType, m.min)
	case query.Max:
		if !m.hasMinMax {
			return nil
		}
		return valueOf(spec.pi.elementType, m.max)
	case query.Sum, query.Avg:
		if m.count == 0 {
			return nil
		}
		et := spec.pi.elementType
		integer := et.Kind == objects.KindInteger || et.Kind == objects.KindLong
		if spec.Kind == query.Sum {
			switch {
			case integer && m.bigSum != nil:
				return new(big.Int).Set(m.bigSum)
			case integer:
				return m.intSum
			}
			return m.floatSum
		}
		if integer {
			sum := m.bigSum
			if sum == nil {
				sum = big.NewInt(m.intSum)
			}
			f, _ := new(big.Rat).SetFrac(sum, big.NewInt(m.count)).Float64()
			return f
		}
		return m.floatSum / float64(m.count)
	}
	return int64(len(m.distinct))
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
