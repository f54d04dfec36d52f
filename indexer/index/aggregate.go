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

type aggMetric struct {
	query.Metric
	pi *propIndex
}

type aggGroup struct {
	query.Group
	pi     *propIndex
	ranges []vkeyRange
	items  []gitem // scratch, per document
}

type vkeyRange struct {
	lo, hi       vkey
	hasLo, hasHi bool
}

// gitem is one group value of one document before it is known whether
// its group exists yet.
type gitem struct {
	kind  byte // 'v' value, 'n' null, 's' default, 'f' fixed width, 'r' range
	vk    vkey
	f, hi float64 // a fixed-width bucket
	ri    int
}

// gacc accumulates one group.
type gacc struct {
	keys  []query.GroupKey
	sorts []any // per grouping: how the group orders (nil last)
	ids   []string
	count int64
	m     []macc
}

type macc struct {
	n        int64
	sumI     int64
	big      *big.Int // the integer sum once it overflows int64
	sumF     float64
	min, max vkey
	has      bool
	distinct map[string]struct{}
}

// aggregation is one running aggregation.
type aggregation struct {
	x       *exec
	metrics []aggMetric
	groups  []*aggGroup
	limit   int
	acc     map[string]*gacc
	id      []byte
	load    Loader
	objs    map[uint32]*objects.Object // loaded for the current batch
	buf     []vkey
}

// Aggregate computes an aggregation over the documents a filter matches.
// load may be nil when every property involved has values in the index.
func (s *Snapshot) Aggregate(ctx context.Context, q *query.Aggregate, load Loader) (*query.AggregateResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	x := &exec{ctx: ctx, s: s, n: float64(s.alive.GetCardinality())}
	defer x.release()
	root, err := (&compiler{s: s, limits: q.Limits}).compile(q.Filter)
	if err != nil {
		return nil, err
	}
	a := &aggregation{x: x, limit: q.Limits.MaxGroups, acc: map[string]*gacc{}, load: load}
	for _, m := range q.Metrics {
		am := aggMetric{Metric: m}
		if m.Kind != query.Count {
			if am.pi = s.prop(m.Property); am.pi == nil {
				return nil, fmt.Errorf("object type %s has no property %q", s.typ.APIName, m.Property)
			}
		}
		a.metrics = append(a.metrics, am)
	}
	for _, g := range q.Groups {
		ag := &aggGroup{Group: g, pi: s.prop(g.Property)}
		if ag.pi == nil {
			return nil, fmt.Errorf("object type %s has no property %q", s.typ.APIName, g.Property)
		}
		for _, r := range g.Ranges {
			var vr vkeyRange
			if r.Start != nil {
				if vr.lo, err = keyOf(ag.pi.et.Kind, r.Start); err != nil {
					return nil, fmt.Errorf("range of %s: %w", g.Property, err)
				}
				vr.hasLo = true
			}
			if r.End != nil {
				if vr.hi, err = keyOf(ag.pi.et.Kind, r.End); err != nil {
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
		a.acc[""] = &gacc{m: make([]macc, len(a.metrics))}
		if a.countsOnly() {
			n, err := x.countNode(root)
			if err != nil {
				return nil, err
			}
			a.acc[""].count = n
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
	if g.Kind != query.Exact || g.pi.dict == nil || g.pi.list {
		return false, nil
	}
	for k, vbm := range g.pi.dict.m {
		n := int64(bm.AndCardinality(vbm))
		if n == 0 {
			continue
		}
		it := gitem{kind: 'v', vk: vkeyOfDict(k)}
		acc, err := a.group([]gitem{it})
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
		t := a.x.s.pairCounts(g.pi, n.of) // nil unless n is a dict value
		if t == nil {
			return false, nil
		}
		v := vkeyOfDict(n.key)
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
	for k := range g.pi.dict.m {
		c := count(k)
		if c == 0 {
			continue
		}
		grouped += c
		acc, err := a.group([]gitem{{kind: 'v', vk: vkeyOfDict(k)}})
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
func (a *aggregation) addNulls(g *aggGroup, n int64) error {
	if n <= 0 {
		return nil
	}
	it := gitem{kind: 'n'}
	if g.Default != nil {
		it.kind = 's'
	}
	acc, err := a.group([]gitem{it})
	if err != nil {
		return err
	}
	acc.count += n
	return nil
}

// values returns the non-null values of a property of a document (array
// elements each).
func (a *aggregation) values(pi *propIndex, d uint32) ([]vkey, error) {
	a.buf = a.buf[:0]
	if pi.nulls.Contains(d) {
		return a.buf, nil
	}
	switch {
	case pi.col != nil:
		return append(a.buf, pi.col.get(d)), nil
	case pi.lcol != nil:
		a.buf = pi.lcol.get(d, a.buf)
		return a.buf, nil
	}
	o := a.objs[d]
	if o == nil {
		return nil, fmt.Errorf("document %d: object not loaded", d)
	}
	v := o.Values[pi.pos]
	if pi.list {
		els, err := elementKeys(pi.et.Kind, v, a.buf)
		a.buf = els
		return els, err
	}
	vk, err := keyOf(pi.et.Kind, v)
	return append(a.buf, vk), err
}

// needsLoad reports whether some property has no values in the index.
func (a *aggregation) needsLoad() bool {
	for _, m := range a.metrics {
		if m.pi != nil && m.pi.col == nil && m.pi.lcol == nil {
			return true
		}
	}
	for _, g := range a.groups {
		if g.pi.col == nil && g.pi.lcol == nil {
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
			a.objs = make(map[uint32]*objects.Object, n)
			for i, d := range docs {
				if objs[i] != nil {
					a.objs[d] = objs[i]
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

// items fills the group values of one grouping for a document; none
// means the document is in no group.
func (a *aggregation) items(g *aggGroup, d uint32) error {
	g.items = g.items[:0]
	vals, err := a.values(g.pi, d)
	if err != nil {
		return err
	}
	switch g.Kind {
	case query.Exact:
		if len(vals) == 0 {
			switch {
			case g.Default != nil:
				g.items = append(g.items, gitem{kind: 's'})
			case g.IncludeNull:
				g.items = append(g.items, gitem{kind: 'n'})
			}
			return nil
		}
		for _, vk := range vals {
			g.items = appendItem(g.items, gitem{kind: 'v', vk: vk})
		}
	case query.FixedWidth:
		for _, vk := range vals {
			if lo, hi, ok := fixedBucket(g.pi.et, vk, g.Width); ok {
				g.items = appendItem(g.items, gitem{kind: 'f', f: lo, hi: hi})
			}
		}
	case query.Ranges:
		for _, vk := range vals {
			for i, r := range g.ranges {
				if (r.hasLo && compareVK(vk, r.lo) < 0) || (r.hasHi && compareVK(vk, r.hi) >= 0) {
					continue
				}
				g.items = appendItem(g.items, gitem{kind: 'r', ri: i})
			}
		}
	}
	return nil
}

// appendItem adds an item unless the document already has it: an object
// counts once in a group however many of its elements fall in it.
func appendItem(items []gitem, it gitem) []gitem {
	for _, x := range items {
		if x.kind == it.kind && x.ri == it.ri && x.f == it.f && compareVK(x.vk, it.vk) == 0 {
			return items
		}
	}
	return append(items, it)
}

// add accumulates one document into each group it belongs to.
func (a *aggregation) add(d uint32) error {
	combos := 1
	for _, g := range a.groups {
		if err := a.items(g, d); err != nil {
			return err
		}
		combos *= len(g.items)
	}
	if combos == 0 {
		return nil
	}
	accs := make([]*gacc, 0, combos)
	pick := make([]gitem, len(a.groups))
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
		for _, it := range a.groups[i].items {
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
				acc.m[i].add(m, vk)
			}
		}
	}
	return nil
}

// group returns the accumulator of a combination of group values.
func (a *aggregation) group(items []gitem) (*gacc, error) {
	a.id = a.id[:0]
	for _, it := range items {
		a.id = append(a.id, it.kind)
		switch it.kind {
		case 'v':
			a.id = binary.BigEndian.AppendUint64(a.id, it.vk.pre)
			a.id = binary.AppendUvarint(a.id, uint64(len(it.vk.exact)))
			a.id = append(a.id, it.vk.exact...)
		case 'f':
			a.id = binary.BigEndian.AppendUint64(a.id, math.Float64bits(it.f))
		case 'r':
			a.id = binary.AppendUvarint(a.id, uint64(it.ri))
		}
	}
	if acc := a.acc[string(a.id)]; acc != nil {
		return acc, nil
	}
	if a.limit > 0 && len(a.acc) >= a.limit {
		return nil, &query.TooManyGroupsError{Groups: len(a.acc) + 1, Limit: a.limit}
	}
	acc := &gacc{m: make([]macc, len(a.metrics))}
	for i, it := range items {
		g := a.groups[i]
		var k query.GroupKey
		var sort any
		var id string
		switch it.kind {
		case 'v':
			k.Value = valueOf(g.pi.et, it.vk)
			sort, id = k.Value, "v"+objects.TextOf(k.Value)
		case 'n':
			id = "n"
		case 's':
			k.IsDefault = true
			sort, id = *g.Default, "s"+*g.Default
		case 'f':
			k.Start, k.End = it.f, it.hi
			sort, id = it.f, fmt.Sprintf("f%v", it.f)
		case 'r':
			k.Range = it.ri
			sort, id = it.ri, fmt.Sprintf("r%d", it.ri)
		}
		acc.keys = append(acc.keys, k)
		acc.sorts = append(acc.sorts, sort)
		acc.ids = append(acc.ids, id)
	}
	a.acc[string(a.id)] = acc
	return acc, nil
}

func (m *macc) add(spec aggMetric, vk vkey) {
	m.n++
	et := spec.pi.et
	switch spec.Kind {
	case query.Min:
		if !m.has || compareVK(vk, m.min) < 0 {
			m.min = vk
		}
		m.has = true
	case query.Max:
		if !m.has || compareVK(vk, m.max) > 0 {
			m.max = vk
		}
		m.has = true
	case query.Sum, query.Avg:
		if et.Kind == objects.KindInteger || et.Kind == objects.KindLong {
			v := int64(vk.pre ^ signBit)
			if m.big != nil {
				m.big.Add(m.big, big.NewInt(v))
			} else if s := m.sumI + v; (v > 0 && s < m.sumI) || (v < 0 && s > m.sumI) {
				m.big = new(big.Int).Add(big.NewInt(m.sumI), big.NewInt(v))
			} else {
				m.sumI = s
			}
		}
		m.sumF += numberOf(et, vk)
	case query.ExactDistinct, query.ApproximateDistinct:
		if m.distinct == nil {
			m.distinct = map[string]struct{}{}
		}
		m.distinct[dictKey(vk)] = struct{}{}
	}
}

func (m *macc) value(spec aggMetric, count int64) any {
	switch spec.Kind {
	case query.Count:
		return count
	case query.Min:
		if !m.has {
			return nil
		}
		return valueOf(spec.pi.et, m.min)
	case query.Max:
		if !m.has {
			return nil
		}
		return valueOf(spec.pi.et, m.max)
	case query.Sum, query.Avg:
		if m.n == 0 {
			return nil
		}
		et := spec.pi.et
		integer := et.Kind == objects.KindInteger || et.Kind == objects.KindLong
		if spec.Kind == query.Sum {
			switch {
			case integer && m.big != nil:
				return new(big.Int).Set(m.big)
			case integer:
				return m.sumI
			}
			return m.sumF
		}
		if integer {
			sum := m.big
			if sum == nil {
				sum = big.NewInt(m.sumI)
			}
			f, _ := new(big.Rat).SetFrac(sum, big.NewInt(m.n)).Float64()
			return f
		}
		return m.sumF / float64(m.n)
	}
	return int64(len(m.distinct))
}

// fixedBucket is the bucket of a value: its start k*w, k = floor(v/w),
// computed exactly (a float quotient misplaces large longs and values at
// bucket edges) and rounded to float64 at the end, and its end, start + w.
// Buckets whose starts round alike are one. NaN and infinities have no
// bucket.
func fixedBucket(t objects.DataType, vk vkey, w float64) (lo, hi float64, ok bool) {
	lo, ok = bucketStart(t, vk, w)
	return lo, lo + w, ok
}

func bucketStart(t objects.DataType, vk vkey, w float64) (float64, bool) {
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
