package api_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/ontoindex/ontoindex/objects"
)

// The oracle's aggregation, from the aggregation contract (docs/api.md,
// api/aggregate.go's doc comment): groups of exact values (list elements
// each, nulls left out unless includeNullValues or defaultValue,
// maxGroupCount keeping the values with most objects), fixedWidth buckets
// floor(v/w)*w and [start, end) ranges; metrics over the non-null values
// and list elements of each group's objects; groups ordered by the first
// metric with a direction, else by count descending, then by group value.
//
// Where the contract is silent the oracle takes the reading its comments
// and the search API suggest: an object counts once in a group however
// many of its elements fall into it; an absent metric value orders last in
// both directions; NaN has no fixedWidth bucket, and a sum or average over
// NaN is rendered "NaN" like the value; the defaultValue group is not
// ordered against the value groups.

// dfGV is the value of one grouping for a group.
type dfGV struct {
	key  string
	json any
	kind byte // v value, d default, n null, f fixedWidth, r range, t duration
	v    any  // the value (v), the default text (d), the range index (r)
	lo   float64
}

// groupVals lists the distinct values an object has for one grouping.
func (s *dfState) groupVals(g *dfGroupBy, ob *dfObj) []dfGV {
	p := s.typ.Properties[g.idx]
	elementType := p.Type.Primitive()
	els := dfElems(ob.o.Values[g.idx])
	var out []dfGV
	add := func(x dfGV) {
		if !slices.ContainsFunc(out, func(y dfGV) bool { return y.key == x.key }) {
			out = append(out, x)
		}
	}
	switch g.kind {
	case "exact":
		if len(els) == 0 {
			switch {
			case g.defaultValue != nil:
				add(dfGV{key: "d", json: *g.defaultValue, kind: 'd', v: *g.defaultValue})
			case g.includeNull:
				add(dfGV{key: "n", kind: 'n'})
			}
		}
		for _, e := range els {
			add(dfGV{key: "v" + dfIdentity(e), json: objects.JSONValue(elementType, e), kind: 'v', v: e})
		}
	case "fixedWidth":
		w := new(big.Rat).SetFloat64(g.width)
		for _, e := range els {
			r := dfExact(e)
			if r == nil {
				continue // NaN has no bucket
			}
			k := new(big.Int).Div(new(big.Rat).Quo(r, w).Num(), new(big.Rat).Quo(r, w).Denom()) // floor
			lo := new(big.Rat).Mul(new(big.Rat).SetInt(k), w)
			loF, _ := lo.Float64()
			// Buckets are known by their start on the wire: two that
			// render alike are one group, which ends at start + width.
			hiF := loF + g.width
			add(dfGV{key: "f" + strconv.FormatFloat(loF, 'g', -1, 64), json: map[string]any{"startValue": loF, "endValue": hiF}, kind: 'f', lo: loF})
		}
	case "duration":
		for _, e := range els {
			start := dfDurationStart(g, e)
			add(dfGV{key: "t" + dfIdentity(start), json: objects.JSONValue(elementType, start), kind: 't', v: start})
		}
	case "ranges":
		for _, e := range els {
			for i, r := range g.ranges {
				if (r.lo == nil || dfCmp(e, r.lo) >= 0) && (r.hi == nil || dfCmp(e, r.hi) < 0) {
					j := map[string]any{}
					if r.lo != nil {
						j["startValue"] = objects.JSONValue(elementType, r.lo)
					}
					if r.hi != nil {
						j["endValue"] = objects.JSONValue(elementType, r.hi)
					}
					add(dfGV{key: fmt.Sprint("r", i), json: j, kind: 'r', v: i})
				}
			}
		}
	}
	return out
}

// dfExact is a number as an exact rational; nil for NaN.
func dfExact(v any) *big.Rat {
	switch x := v.(type) {
	case int64:
		return new(big.Rat).SetInt64(x)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return new(big.Rat).SetFloat64(x)
	case objects.Decimal:
		return dfRat(x)
	}
	return nil
}

// cmpGV orders two values of one grouping; known is false where the
// contract does not say (a defaultValue group against the values).
func (s *dfState) cmpGV(g *dfGroupBy, a, b dfGV) (c int, known bool) {
	switch {
	case a.key == b.key:
		return 0, true
	case a.kind == 'n':
		return 1, true
	case b.kind == 'n':
		return -1, true
	case a.kind == 'd' || b.kind == 'd':
		return 0, false
	case a.kind == 'f':
		return cmp.Compare(a.lo, b.lo), true
	case a.kind == 'r':
		return cmp.Compare(a.v.(int), b.v.(int)), true
	}
	return dfCmp(a.v, b.v), true
}

// dfAggGroup is one group of the oracle's result.
type dfAggGroup struct {
	vals []dfGV
	objs []*dfObj
	mv   []dfMV
}

func (g *dfAggGroup) json(a *dfAgg) map[string]any {
	m := map[string]any{}
	for i, gb := range a.groups {
		m[gb.prop] = g.vals[i].json
	}
	return m
}

// groups evaluates the grouping of objs: every group (before
// maxGroupCount), then the groups maxGroupCount keeps.
func (s *dfState) groups(a *dfAgg, objs []*dfObj) (all int, kept []*dfAggGroup) {
	byKey := map[string]*dfAggGroup{}
	var order []string
	if len(a.groups) == 0 {
		byKey[""] = &dfAggGroup{}
		order = append(order, "")
	}
	for _, ob := range objs {
		combos := [][]dfGV{nil}
		for i := range a.groups {
			var next [][]dfGV
			for _, v := range s.groupVals(&a.groups[i], ob) {
				for _, c := range combos {
					next = append(next, append(slices.Clip(c), v))
				}
			}
			combos = next
		}
		for _, c := range combos {
			var key string
			for _, v := range c {
				key += strconv.Quote(v.key)
			}
			if byKey[key] == nil {
				byKey[key] = &dfAggGroup{vals: c}
				order = append(order, key)
			}
			byKey[key].objs = append(byKey[key].objs, ob)
		}
	}
	for _, k := range order {
		kept = append(kept, byKey[k])
	}
	all = len(kept)
	for gi := range a.groups {
		g := &a.groups[gi]
		if g.maxGroupCount == 0 {
			continue
		}
		totals := map[string]int{}
		rep := map[string]dfGV{}
		var keys []string
		for _, x := range kept {
			k := x.vals[gi].key
			if _, ok := totals[k]; !ok {
				keys = append(keys, k)
			}
			totals[k] += len(x.objs)
			rep[k] = x.vals[gi]
		}
		if len(keys) <= g.maxGroupCount {
			continue
		}
		slices.SortFunc(keys, func(x, y string) int {
			if c := cmp.Compare(totals[y], totals[x]); c != 0 {
				return c
			}
			c, _ := s.cmpGV(g, rep[x], rep[y])
			return c
		})
		keep := map[string]bool{}
		for _, k := range keys[:g.maxGroupCount] {
			keep[k] = true
		}
		kept = slices.DeleteFunc(kept, func(x *dfAggGroup) bool { return !keep[x.vals[gi].key] })
	}
	for _, x := range kept {
		for _, m := range a.metrics {
			x.mv = append(x.mv, s.metric(m, x.objs))
		}
	}
	return all, kept
}

// dfMV is a metric value of the oracle.
type dfMV struct {
	absent bool
	json   any  // the wire value of exact metrics
	float  bool // a floating-point result: compared within tol
	nan    bool
	f, tol float64
	rat    *big.Rat // numeric metrics, for ordering
	typed  any      // min and max: the value itself
}

func (s *dfState) metric(m dfMetric, objs []*dfObj) dfMV {
	if m.kind == "count" {
		n := int64(len(objs))
		return dfMV{json: n, rat: big.NewRat(n, 1)}
	}
	var els []any
	for _, ob := range objs {
		els = append(els, dfElems(ob.o.Values[m.idx])...)
	}
	elementType := s.typ.Properties[m.idx].Type.Primitive()
	switch m.kind {
	case "min", "max":
		if len(els) == 0 {
			return dfMV{absent: true}
		}
		best := els[0]
		for _, e := range els[1:] {
			if c := dfCmp(e, best); (m.kind == "min" && c < 0) || (m.kind == "max" && c > 0) {
				best = e
			}
		}
		return dfMV{json: objects.JSONValue(elementType, best), typed: best}
	case "approximatePercentile":
		return dfPercentile(els, m.pct)
	case "exactDistinct", "approximateDistinct":
		seen := map[string]bool{}
		for _, e := range els {
			seen[dfIdentity(e)] = true
		}
		return dfMV{json: int64(len(seen)), rat: big.NewRat(int64(len(seen)), 1)}
	}
	if len(els) == 0 {
		return dfMV{absent: true}
	}
	sum, abs, nan := new(big.Rat), 0.0, false
	for _, e := range els {
		r := dfExact(e)
		if r == nil {
			nan = true
			continue
		}
		sum.Add(sum, r)
		f, _ := r.Float64()
		abs += math.Abs(f)
	}
	if m.kind == "sum" && (elementType.Kind == objects.KindInteger || elementType.Kind == objects.KindLong) {
		return dfMV{json: json.Number(sum.Num().String()), rat: sum} // exact
	}
	val := sum
	if m.kind == "avg" {
		val = new(big.Rat).Quo(sum, big.NewRat(int64(len(els)), 1))
		abs /= float64(len(els))
	}
	f, _ := val.Float64()
	// The engine adds in float64 and in its own order: the error grows with
	// the magnitude of the addends, not of the result.
	mv := dfMV{float: true, f: f, tol: 1e-9 * max(math.Abs(f), abs), rat: val, nan: nan, json: f}
	if nan {
		mv.json = "NaN" // as values render NaN
	}
	return mv
}

// cmpMV orders two present metric values; known is false for values too
// close to order (floating-point results) or NaN.
func cmpMV(x, y dfMV) (int, bool) {
	switch {
	case x.nan || y.nan:
		return 0, false
	case x.typed != nil:
		return dfCmp(x.typed, y.typed), true
	}
	c := x.rat.Cmp(y.rat)
	if x.float && (c == 0 || math.Abs(x.f-y.f) <= max(x.tol, y.tol)) {
		return 0, false
	}
	return c, true
}

// orderMetric is the index of the first metric with a direction, or -1.
func (a *dfAgg) orderMetric() int {
	for i, m := range a.metrics {
		if m.dir != "" {
			return i
		}
	}
	return -1
}

// cmpGroups orders two groups: by the first metric with a direction
// (absent values last), else by count descending; then by group values.
func (s *dfState) cmpGroups(a *dfAgg, x, y *dfAggGroup) (int, bool) {
	if om := a.orderMetric(); om >= 0 {
		vx, vy := x.mv[om], y.mv[om]
		switch {
		case vx.absent && vy.absent:
		case vx.absent:
			return 1, true
		case vy.absent:
			return -1, true
		default:
			c, known := cmpMV(vx, vy)
			if !known {
				return 0, false
			}
			if strings.EqualFold(a.metrics[om].dir, "desc") {
				c = -c
			}
			if c != 0 {
				return c, true
			}
		}
	} else if c := cmp.Compare(len(y.objs), len(x.objs)); c != 0 {
		return c, true
	}
	for i := range a.groups {
		if c, known := s.cmpGV(&a.groups[i], x.vals[i], y.vals[i]); !known || c != 0 {
			return c, known
		}
	}
	return 0, true
}
