package api_test

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ontoindex/ontoindex/objects"
)

// Random aggregations: 0-3 metrics of every type (some named, one perhaps
// with a direction), 0-2 groupings (exact with maxGroupCount,
// includeNullValues or defaultValue; fixedWidth; ranges), and accuracy.

type dfMetric struct {
	kind string
	prop string
	idx  int
	name string // as sent; "" for the default name
	out  string // the name the response uses
	dir  string
	pct  float64 // approximatePercentile
}

type dfRange struct{ lo, hi, loW, hiW any }

type dfGroupBy struct {
	kind          string
	prop          string
	idx           int
	maxGroupCount int
	includeNull   bool
	defaultValue  *string
	width         float64
	ranges        []dfRange
	unit          string // duration
	every         int64  // duration
}

type dfAgg struct {
	metrics  []dfMetric
	groups   []dfGroupBy
	accuracy string
}

func (a *dfAgg) body(m map[string]any) map[string]any {
	metrics := []any{}
	for _, x := range a.metrics {
		j := map[string]any{"type": x.kind}
		if x.prop != "" {
			j["field"] = x.prop
		}
		if x.name != "" {
			j["name"] = x.name
		}
		if x.dir != "" {
			j["direction"] = x.dir
		}
		if x.kind == "approximatePercentile" {
			j["approximatePercentile"] = x.pct
		}
		metrics = append(metrics, j)
	}
	groups := []any{}
	for _, g := range a.groups {
		j := map[string]any{"type": g.kind, "field": g.prop}
		switch g.kind {
		case "exact":
			if g.maxGroupCount > 0 {
				j["maxGroupCount"] = g.maxGroupCount
			}
			if g.includeNull {
				j["includeNullValues"] = true
			}
			if g.defaultValue != nil {
				j["defaultValue"] = *g.defaultValue
			}
		case "fixedWidth":
			j["fixedWidth"] = g.width
		case "duration":
			j["value"], j["unit"] = g.every, g.unit
		case "ranges":
			var rs []any
			for _, r := range g.ranges {
				rj := map[string]any{}
				if r.lo != nil {
					rj["startValue"] = r.loW
				}
				if r.hi != nil {
					rj["endValue"] = r.hiW
				}
				rs = append(rs, rj)
			}
			j["ranges"] = rs
		}
		groups = append(groups, j)
	}
	m["aggregation"], m["groupBy"] = metrics, groups
	if a.accuracy != "" {
		m["accuracy"] = a.accuracy
	}
	return m
}

func dfNumeric(k objects.Kind) bool {
	return k == objects.KindInteger || k == objects.KindLong || k == objects.KindDouble || k == objects.KindDecimal || k == objects.KindFloat
}

func dfDated(k objects.Kind) bool {
	return k == objects.KindDate || k == objects.KindTimestamp || k == objects.KindTimestampTZ
}

func (q *dfQGen) agg() *dfAgg {
	a := &dfAgg{accuracy: []string{"", "", "REQUIRE_ACCURATE", "ALLOW_APPROXIMATE"}[q.r.IntN(4)]}
	props := q.s.typ.Properties
	names := map[string]bool{}
	for i := range []int{0, 1, 1, 2, 2, 3}[q.r.IntN(6)] {
		m := dfMetric{kind: []string{"count", "min", "max", "avg", "sum", "exactDistinct", "approximateDistinct", "approximatePercentile"}[q.r.IntN(8)]}
		if m.kind == "approximatePercentile" {
			m.pct = []float64{0, 0.25, 0.5, 0.99, 1, q.r.Float64()}[q.r.IntN(6)]
		}
		if m.kind != "count" {
			var cands []objects.Property
			for _, p := range props {
				k := p.Type.Primitive().Kind
				switch m.kind {
				case "min", "max":
					if dfNumeric(k) || dfDated(k) {
						cands = append(cands, p)
					}
				case "avg", "sum", "approximatePercentile":
					if dfNumeric(k) {
						cands = append(cands, p)
					}
				default:
					cands = append(cands, p)
				}
			}
			p := cands[q.r.IntN(len(cands))]
			m.prop, m.idx = p.APIName, q.s.typ.PropertyIndex(p.APIName)
		}
		m.out = "count"
		if m.prop != "" {
			m.out = m.prop + "." + m.kind
		}
		if q.pct(25) || names[m.out] {
			m.name = fmt.Sprintf("m%d", i)
			m.out = m.name
		}
		if q.pct(25) {
			m.dir = []string{"asc", "desc", "ASC", "DESC"}[q.r.IntN(4)]
			if q.g.avoid["absentdesc"] && m.kind != "count" && !strings.HasSuffix(m.kind, "Distinct") {
				m.dir = "asc"
			}
			if q.g.avoid["minmaxorder"] && (m.kind == "min" || m.kind == "max") {
				m.dir = ""
			}
		}
		names[m.out] = true
		a.metrics = append(a.metrics, m)
	}
	used := map[string]bool{}
	for range []int{0, 1, 1, 1, 2, 2}[q.r.IntN(6)] {
		p := props[q.r.IntN(len(props))]
		if used[p.APIName] {
			continue
		}
		used[p.APIName] = true
		g := dfGroupBy{kind: "exact", prop: p.APIName, idx: q.s.typ.PropertyIndex(p.APIName)}
		k := p.Type.Primitive().Kind
		bucketed := !(q.g.avoid["dups"] && p.Type.Kind == objects.KindList) // one object, several elements in a bucket
		switch x := q.r.IntN(10); {
		case x < 3 && dfNumeric(k) && bucketed:
			g.kind = "fixedWidth"
			g.width = q.width(p.APIName)
		case x < 5 && (dfNumeric(k) || dfDated(k)) && bucketed:
			g.kind = "ranges"
			g.ranges = q.ranges(p)
		case x < 8 && dfDated(k) && bucketed:
			q.duration(&g, k == objects.KindDate)
		}
		if g.kind == "exact" {
			if q.pct(30) {
				g.maxGroupCount = 1 + q.r.IntN(5)
			}
			switch {
			case q.pct(25):
				g.includeNull = true
			case q.pct(20) && g.maxGroupCount == 0: // (which would keep the default group or a value tied with it)
				dv := "∅ none"
				g.defaultValue = &dv
			}
		}
		a.groups = append(a.groups, g)
	}
	return a
}

// width picks a bucket width whose multiples are exact in float64 at the
// scale of the property, so the engine's float64 arithmetic and the
// oracle's exact one agree on safe values.
func (q *dfQGen) width(prop string) float64 {
	var ws []float64
	switch prop {
	case "score":
		ws = []float64{0.25, 0.5, 1, 10, 1e5}
	case "price":
		ws = []float64{0.25, 1, 10, 1e6}
		if !q.g.safe {
			ws = append(ws, 1e30, 1e36)
		}
	case "big", "id":
		ws = []float64{1e6, 1e14, 1e15}
		if !q.g.safe {
			ws = append(ws, 1e18)
		}
	default:
		ws = []float64{1, 2, 5, 10, 1000}
	}
	return ws[q.r.IntN(len(ws))]
}

func (q *dfQGen) ranges(p objects.Property) []dfRange {
	var bounds []any
	for range 2 + q.r.IntN(4) {
		if v := q.value(p); !slices.ContainsFunc(bounds, func(b any) bool { return dfCmp(b, v) == 0 }) {
			bounds = append(bounds, v)
		}
	}
	slices.SortFunc(bounds, dfCmp)
	var out []dfRange
	for i := range len(bounds) - 1 {
		out = append(out, dfRange{lo: bounds[i], hi: bounds[i+1]})
	}
	if q.pct(40) {
		out = append(out, dfRange{hi: bounds[0]})
	}
	if q.pct(40) || len(out) == 0 {
		out = append(out, dfRange{lo: bounds[len(bounds)-1]})
	}
	for i := range out {
		out[i].loW, out[i].hiW = dfWire(q.r, out[i].lo), dfWire(q.r, out[i].hi)
	}
	q.r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}
