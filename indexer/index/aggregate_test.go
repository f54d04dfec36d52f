package index

import (
	"cmp"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// oracleGroup is one group the oracle computes.
type oracleGroup struct {
	keys  []query.GroupKey
	count int64
	vals  [][]any // per metric: the values it saw
}

// groupKeyID identifies a group value across oracle and engine.
func groupKeyID(g query.Group, k query.GroupKey) string {
	switch g.Kind {
	case query.FixedWidth:
		return fmt.Sprintf("f%v", k.Start)
	case query.Ranges:
		return fmt.Sprintf("r%d", k.Range)
	case query.Duration:
		b, _ := objects.AppendKey(nil, k.Value)
		return "d" + string(b)
	}
	switch {
	case k.IsDefault:
		return "s"
	case k.Value == nil:
		return "n"
	}
	b, _ := objects.AppendKey(nil, k.Value)
	if s, ok := k.Value.(string); ok {
		b = []byte(s)
	}
	return "v" + string(b)
}

func (or *oracle) aggregate(want state, keys map[uint32][]byte, q *query.Aggregate) map[string]*oracleGroup {
	out := map[string]*oracleGroup{}
	if len(q.Groups) == 0 {
		out[""] = &oracleGroup{vals: make([][]any, len(q.Metrics))}
	}
	for d, o := range want {
		if !or.match(q.Filter, o, keys[d]) {
			continue
		}
		combos := [][]query.GroupKey{nil}
		for _, g := range q.Groups {
			els := elements(o.Values[or.t.PropertyIndex(g.Property)])
			var ks []query.GroupKey
			seen := map[string]bool{}
			addKey := func(k query.GroupKey) {
				if id := groupKeyID(g, k); !seen[id] {
					seen[id] = true
					ks = append(ks, k)
				}
			}
			switch g.Kind {
			case query.Exact:
				if len(els) == 0 {
					if g.Default != nil {
						addKey(query.GroupKey{IsDefault: true})
					} else if g.IncludeNull {
						addKey(query.GroupKey{})
					}
				}
				for _, e := range els {
					addKey(query.GroupKey{Value: e})
				}
			case query.FixedWidth:
				for _, e := range els {
					// floor(v/w)*w exactly; NaN and infinities have no bucket.
					var v *big.Rat
					switch x := e.(type) {
					case int64:
						v = new(big.Rat).SetInt64(x)
					case float64:
						if !math.IsNaN(x) && !math.IsInf(x, 0) {
							v = new(big.Rat).SetFloat64(x)
						}
					case objects.Decimal:
						v = x.Rat()
					}
					if v == nil {
						continue
					}
					w := new(big.Rat).SetFloat64(g.Width)
					q := new(big.Rat).Quo(v, w)
					lo, _ := new(big.Rat).Mul(new(big.Rat).SetInt(new(big.Int).Div(q.Num(), q.Denom())), w).Float64()
					addKey(query.GroupKey{Start: lo, End: lo + g.Width})
				}
			case query.Ranges:
				for _, e := range els {
					for i, r := range g.Ranges {
						if (r.Start == nil || oracleCompare(e, r.Start) >= 0) && (r.End == nil || oracleCompare(e, r.End) < 0) {
							addKey(query.GroupKey{Range: i})
						}
					}
				}
			case query.Duration:
				for _, e := range els {
					addKey(query.GroupKey{Value: oracleDurationStart(g, e)})
				}
			}
			var next [][]query.GroupKey
			for _, c := range combos {
				for _, k := range ks {
					next = append(next, append(slices.Clip(c), k))
				}
			}
			combos = next
		}
		for _, c := range combos {
			var id strings.Builder
			for i, k := range c {
				id.WriteString(groupKeyID(q.Groups[i], k) + "|")
			}
			g := out[id.String()]
			if g == nil {
				g = &oracleGroup{keys: c, vals: make([][]any, len(q.Metrics))}
				out[id.String()] = g
			}
			g.count++
			for i, m := range q.Metrics {
				if m.Kind != query.Count {
					g.vals[i] = append(g.vals[i], elements(o.Values[or.t.PropertyIndex(m.Property)])...)
				}
			}
		}
	}
	return out
}

// checkMetric compares one metric value with what the oracle saw.
func checkMetric(tb testing.TB, m query.Metric, p objects.Property, count int64, seen []any, got any, approximate bool) {
	tb.Helper()
	var want any
	switch m.Kind {
	case query.Count:
		want = count
	case query.Min, query.Max:
		for _, v := range seen {
			if want == nil || (m.Kind == query.Min && oracleCompare(v, want) < 0) || (m.Kind == query.Max && oracleCompare(v, want) > 0) {
				want = v
			}
		}
	case query.ExactDistinct, query.ApproximateDistinct:
		ids := map[string]bool{}
		for _, v := range seen {
			b, _ := objects.AppendKey(nil, v)
			ids[string(b)+objects.TextOf(v)] = true
		}
		want = int64(len(ids))
	case query.Percentile:
		if len(seen) == 0 {
			break
		}
		want = oraclePercentile(seen, m.Percentile)
		if approximate {
			g, ok := got.(float64)
			w := want.(float64)
			if !ok || !(g == w || math.Abs(g-w) <= 0.0101*math.Abs(w) || (math.IsNaN(g) && math.IsNaN(w))) {
				tb.Fatalf("%v: got %v, want %v within 1%%", m, got, w)
			}
			return
		}
		if g, ok := got.(float64); !ok || objects.Compare(g, want) != 0 {
			tb.Fatalf("%v: got %v, want %v", m, got, want)
		}
		return
	case query.Sum, query.Avg:
		if len(seen) == 0 {
			break
		}
		k := p.Type.Primitive().Kind
		if k == objects.KindLong || k == objects.KindInteger {
			sum := new(big.Int)
			for _, v := range seen {
				sum.Add(sum, big.NewInt(v.(int64)))
			}
			if m.Kind == query.Sum {
				if g, ok := got.(int64); ok {
					got = big.NewInt(g)
				}
				if gb, ok := got.(*big.Int); !ok || gb.Cmp(sum) != 0 {
					tb.Fatalf("%v: got %v, want %v", m, got, sum)
				}
				return
			}
			f, _ := new(big.Rat).SetFrac(sum, big.NewInt(int64(len(seen)))).Float64()
			want = f
			break
		}
		f := 0.0
		for _, v := range seen {
			x, _ := objects.Number(v)
			f += x
		}
		if m.Kind == query.Avg {
			f /= float64(len(seen))
		}
		g, ok := got.(float64)
		if !ok || !(g == f || math.Abs(g-f) <= 1e-9*math.Max(math.Abs(f), 1) || (math.IsNaN(f) && math.IsNaN(g))) {
			tb.Fatalf("%v: got %v, want %v", m, got, f)
		}
		return
	}
	switch w := want.(type) {
	case nil:
		if got != nil {
			tb.Fatalf("%v: got %v, want none", m, got)
		}
	case int64:
		if got != w {
			tb.Fatalf("%v: got %v, want %v", m, got, w)
		}
	case float64:
		if g, ok := got.(float64); !ok || !(g == w || math.Abs(g-w) <= 1e-9*math.Abs(w)) {
			tb.Fatalf("%v: got %v, want %v", m, got, w)
		}
	default:
		if got == nil || oracleCompare(got, want) != 0 {
			tb.Fatalf("%v: got %v, want %v", m, got, want)
		}
	}
}

func randAggregate(r *rand.Rand, t *objects.Type, want state, keys map[uint32][]byte) *query.Aggregate {
	q := &query.Aggregate{Filter: randFilter(r, t, want, keys, 2)}
	if r.IntN(4) == 0 {
		q.Filter = nil
	}
	props := func(ok func(objects.Property) bool) []objects.Property {
		var out []objects.Property
		for _, p := range t.Properties {
			if ok(p) {
				out = append(out, p)
			}
		}
		return out
	}
	numeric := func(p objects.Property) bool {
		switch p.Type.Primitive().Kind {
		case objects.KindLong, objects.KindInteger, objects.KindDouble, objects.KindDecimal:
			return true
		}
		return false
	}
	for range 1 + r.IntN(3) {
		m := query.Metric{Kind: []query.MetricKind{query.Count, query.Min, query.Max, query.Avg, query.Sum, query.ExactDistinct, query.Percentile}[r.IntN(7)]}
		var ps []objects.Property
		switch m.Kind {
		case query.Percentile:
			ps = props(numeric)
			m.Percentile = []float64{0, 0.5, 0.9, 1, r.Float64()}[r.IntN(5)]
		case query.Min, query.Max:
			ps = props(func(p objects.Property) bool {
				k := p.Type.Primitive().Kind
				return numeric(p) || k == objects.KindDate || k == objects.KindTimestampTZ
			})
		case query.Avg, query.Sum:
			ps = props(numeric)
		case query.ExactDistinct:
			ps = props(func(objects.Property) bool { return true })
		}
		if ps != nil {
			m.Property = ps[r.IntN(len(ps))].APIName
		}
		if r.IntN(4) == 0 {
			m.Order = []int{1, -1}[r.IntN(2)]
		}
		q.Metrics = append(q.Metrics, m)
	}
	used := map[string]bool{}
	for range r.IntN(3) {
		g := query.Group{Kind: []query.GroupKind{query.Exact, query.Exact, query.FixedWidth, query.Ranges, query.Duration}[r.IntN(5)]}
		var ps []objects.Property
		switch g.Kind {
		case query.Duration:
			ps = props(func(p objects.Property) bool { return p.APIName == "day" || p.APIName == "at" })
			g.Unit, g.Every = query.TimeUnit(1+r.IntN(int(query.Years))), int64(1+r.IntN(3))
			if g.Unit < query.Days {
				ps = ps[1:] // timestamps only
			}
		case query.Exact:
			ps = props(func(p objects.Property) bool { return p.APIName != "blob" && p.APIName != "id" })
			if r.IntN(3) == 0 {
				g.MaxGroupCount = 1 + r.IntN(4)
			}
			switch r.IntN(3) {
			case 0:
				g.IncludeNull = true
			case 1:
				def := "none"
				g.Default = &def
			}
		case query.FixedWidth:
			ps = props(numeric)
			g.Width = []float64{10, 0.5, 1e20}[r.IntN(3)]
		case query.Ranges:
			ps = props(func(p objects.Property) bool { return p.APIName == "visits" || p.APIName == "day" })
		}
		p := ps[r.IntN(len(ps))]
		if used[p.APIName] {
			continue
		}
		used[p.APIName] = true
		g.Property = p.APIName
		if g.Kind == query.Ranges {
			i := t.PropertyIndex(p.APIName)
			for range 1 + r.IntN(3) {
				a, b := randValue(r, p, want, i), randValue(r, p, want, i)
				if r.IntN(3) == 0 {
					a = nil
				}
				g.Ranges = append(g.Ranges, query.Range{Start: a, End: b})
			}
		}
		q.Groups = append(q.Groups, g)
	}
	return q
}

// TestSnapshot_Aggregate checks random aggregations against the oracle:
// every group, every metric, and the order of the groups.
func TestSnapshot_Aggregate(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	typ := testType(t)
	want := randState(r, 1500)
	s := mustBuild(t, typ, want)
	keys := mustKeys(t, typ, want)
	load := func(docs []uint32) ([]*objects.Object, error) {
		out := make([]*objects.Object, len(docs))
		for i, d := range docs {
			out[i] = want[d]
		}
		return out, nil
	}
	or := &oracle{t: typ}
	for i := range 400 {
		q := randAggregate(r, typ, want, keys)
		if i%4 == 0 {
			q.ExactPercentileValues = 20 // percentiles of larger groups from the sketch
		}
		res, err := s.Aggregate(t.Context(), q, load)
		if err != nil {
			t.Fatalf("%d: %v: %v", i, q.Filter, err)
		}
		checkAggregate(t, strconv.Itoa(i), typ, q, res, or.aggregate(want, keys, q))
	}
}

// checkAggregate compares an aggregation's result with the oracle's
// groups: every group, its count and metrics, and the order of the groups.
func checkAggregate(tb testing.TB, what string, typ *objects.Type, q *query.Aggregate, res *query.AggregateResult, exp map[string]*oracleGroup) {
	tb.Helper()
	// maxGroupCount keeps, grouping by grouping, the values with most
	// objects (ties by value order) among the groups left.
	for gi, g := range q.Groups {
		if g.MaxGroupCount == 0 {
			continue
		}
		totals := map[string]int64{}
		keyOf := map[string]query.GroupKey{}
		for _, og := range exp {
			id := groupKeyID(g, og.keys[gi])
			totals[id] += og.count
			keyOf[id] = og.keys[gi]
		}
		if len(totals) <= g.MaxGroupCount {
			continue
		}
		ids := slices.Collect(func(yield func(string) bool) {
			for id := range totals {
				if !yield(id) {
					return
				}
			}
		})
		slices.SortFunc(ids, func(a, b string) int {
			if totals[a] != totals[b] {
				if totals[a] > totals[b] {
					return -1
				}
				return 1
			}
			return compareKeys(g, keyOf[a], keyOf[b])
		})
		kept := map[string]bool{}
		for _, id := range ids[:g.MaxGroupCount] {
			kept[id] = true
		}
		for id, og := range exp {
			if !kept[groupKeyID(g, og.keys[gi])] {
				delete(exp, id)
			}
		}
	}
	if len(res.Groups) != len(exp) {
		tb.Fatalf("%s: %d groups, want %d (groups %+v)", what, len(res.Groups), len(exp), q.Groups)
	}
	for j, gr := range res.Groups {
		var id strings.Builder
		for gi, k := range gr.Keys {
			id.WriteString(groupKeyID(q.Groups[gi], k) + "|")
		}
		og := exp[id.String()]
		if og == nil {
			tb.Fatalf("%s: unexpected group %v", what, gr.Keys)
		}
		if gr.Count != og.count {
			tb.Fatalf("%s: group %v: count %d, want %d", what, gr.Keys, gr.Count, og.count)
		}
		for mi, m := range q.Metrics {
			var p objects.Property
			if m.Property != "" {
				p, _ = typ.Property(m.Property)
			}
			checkMetric(tb, m, p, og.count, og.vals[mi], gr.Metrics[mi], res.Approximate)
		}
		if j > 0 && compareResultGroups(q, &res.Groups[j-1], &gr) > 0 {
			tb.Fatalf("%s: groups out of order: %v before %v", what, res.Groups[j-1], gr)
		}
	}
}

// compareResultGroups is the documented order of groups.
func compareResultGroups(q *query.Aggregate, a, b *query.GroupResult) int {
	for i, m := range q.Metrics {
		if m.Order == 0 {
			continue
		}
		// Groups without a value come last in both directions.
		if (a.Metrics[i] == nil) != (b.Metrics[i] == nil) {
			if a.Metrics[i] == nil {
				return 1
			}
			return -1
		}
		c := query.CompareMetricValues(a.Metrics[i], b.Metrics[i])
		if m.Order < 0 {
			c = -c
		}
		if c != 0 {
			return c
		}
		goto keys
	}
	if a.Count != b.Count {
		if a.Count > b.Count {
			return -1
		}
		return 1
	}
keys:
	for gi, g := range q.Groups {
		c := compareKeys(g, a.Keys[gi], b.Keys[gi])
		if c != 0 {
			return c
		}
	}
	return 0
}

// compareKeys is the documented order of the values of one grouping.
func compareKeys(g query.Group, ka, kb query.GroupKey) int {
	switch {
	case g.Kind == query.FixedWidth:
		return cmp.Compare(ka.Start, kb.Start)
	case g.Kind == query.Ranges:
		return ka.Range - kb.Range
	case g.Kind == query.Duration:
		return objects.Compare(ka.Value, kb.Value)
	case ka.Value == nil && !ka.IsDefault && (kb.Value != nil || kb.IsDefault):
		return 1
	case kb.Value == nil && !kb.IsDefault && (ka.Value != nil || ka.IsDefault):
		return -1
	case ka.IsDefault && kb.IsDefault:
		return 0
	case ka.IsDefault || kb.IsDefault:
		// The default group sorts among string values by its value, and
		// before the values of other types.
		va, vb := any(*g.Default), kb.Value
		if kb.IsDefault {
			va, vb = ka.Value, any(*g.Default)
		}
		_, sa := va.(string)
		_, sb := vb.(string)
		switch {
		case sa && sb:
			return strings.Compare(va.(string), vb.(string))
		case ka.IsDefault:
			return -1
		}
		return 1
	case ka.Value != nil:
		return objects.Compare(ka.Value, kb.Value)
	}
	return 0
}

// oraclePercentile is the nearest-rank percentile by its definition: sort,
// then count to the rank ceil(p*n) (at least 1); NaN sorts last.
func oraclePercentile(seen []any, p float64) float64 {
	xs := make([]float64, 0, len(seen))
	for _, v := range seen {
		f, _ := objects.Number(v)
		xs = append(xs, f)
	}
	slices.SortFunc(xs, func(a, b float64) int { return objects.Compare(a, b) })
	// The least rank r >= 1 with r >= p*n, p the decimal it was written as.
	dp, _ := new(big.Rat).SetString(strconv.FormatFloat(p, 'g', -1, 64))
	pn := new(big.Rat).Mul(dp, big.NewRat(int64(len(xs)), 1))
	rank := 1
	for big.NewRat(int64(rank), 1).Cmp(pn) < 0 {
		rank++
	}
	return xs[rank-1]
}
