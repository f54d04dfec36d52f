package api_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/ontoindex/ontoindex/objects"
)

// Random where clauses. Values are drawn mostly from the objects of the
// current state, so that filters match something, and otherwise fresh from
// the column generators.

// dfWhere is a generated where clause: its wire form and its meaning.
type dfWhere struct {
	op     string
	prop   string
	value  any   // typed: eq, contains, gt...; a bool for isNull
	values []any // typed: in
	text   string
	fuzzy  bool
	byPI   bool  // name the property by propertyIdentifier
	wire   any   // the value as sent
	fz     *bool // fuzzy as sent
	kids   []*dfWhere
}

func (w *dfWhere) json() map[string]any {
	m := map[string]any{"type": w.op}
	switch w.op {
	case "and", "or":
		kids := []any{}
		for _, k := range w.kids {
			kids = append(kids, k.json())
		}
		m["value"] = kids
	case "not":
		m["value"] = w.kids[0].json()
	default:
		if w.byPI {
			m["propertyIdentifier"] = map[string]any{"type": "property", "apiName": w.prop}
		} else {
			m["field"] = w.prop
		}
		m["value"] = w.wire
		if w.fz != nil {
			m["fuzzy"] = *w.fz
		}
	}
	return m
}

// leaves lists the clauses of a tree that name a property.
func (w *dfWhere) leaves() []*dfWhere {
	if w.prop != "" {
		return []*dfWhere{w}
	}
	var out []*dfWhere
	for _, k := range w.kids {
		out = append(out, k.leaves()...)
	}
	return out
}

// dfQGen generates queries over one state.
type dfQGen struct {
	r    *rand.Rand
	g    *dfGen
	s    *dfState
	tbl  *dfTable
	dead [][]byte // keys of objects earlier states had
}

func (q *dfQGen) pct(p int) bool { return q.r.IntN(100) < p }

func dfOps(p objects.Property) []string {
	if p.Search == objects.SearchNone {
		return []string{"isNull"}
	}
	ops := []string{"isNull", "eq", "eq", "in"}
	if p.Type.Kind == objects.KindList {
		ops = append(ops, "contains", "contains")
	}
	if p.Search != objects.SearchBoolean {
		ops = append(ops, "gt", "gte", "lt", "lte")
	}
	switch p.Search {
	case objects.SearchText:
		ops = append(ops, "containsAllTerms", "containsAllTerms", "containsAnyTerm", "containsAnyTerm",
			"containsAllTermsInOrder", "containsAllTermsInOrder", "containsAllTermsInOrderPrefixLastTerm",
			"startsWith", "startsWith", "wildcard", "wildcard", "regex", "regex")
	case objects.SearchKeyword:
		ops = append(ops, "startsWith", "containsAllTermsInOrderPrefixLastTerm", "wildcard", "regex", "regex")
	}
	return ops
}

func (q *dfQGen) where(depth int) *dfWhere {
	if depth > 0 && q.pct(40) {
		switch op := []string{"and", "and", "or", "or", "not"}[q.r.IntN(5)]; op {
		case "not":
			return &dfWhere{op: op, kids: []*dfWhere{q.where(depth - 1)}}
		default:
			w := &dfWhere{op: op}
			for range q.r.IntN(4) {
				w.kids = append(w.kids, q.where(depth-1))
			}
			return w
		}
	}
	return q.leaf(false)
}

// leaf draws a clause on one property; text and keyword properties, whose
// query types are the most varied, are drawn more often, and only them
// when stringy.
func (q *dfQGen) leaf(stringy bool) *dfWhere {
	var cands []objects.Property
	for _, p := range q.s.typ.Properties {
		n := 1
		switch {
		case p.Search == objects.SearchText:
			n = 4
		case p.Search == objects.SearchKeyword && p.Type.Primitive().Kind == objects.KindString:
			n = 2
		case stringy:
			n = 0
		}
		for range n {
			cands = append(cands, p)
		}
	}
	p := cands[q.r.IntN(len(cands))]
	ops := dfOps(p)
	if stringy { // each query type as often, then a property it applies to
		var all []string
		for _, c := range cands {
			all = append(all, dfOps(c)...)
		}
		slices.Sort(all)
		all = slices.DeleteFunc(slices.Compact(all), func(op string) bool { return op == "isNull" || op == "in" })
		op := all[q.r.IntN(len(all))]
		for {
			if p = cands[q.r.IntN(len(cands))]; slices.Contains(dfOps(p), op) {
				break
			}
		}
		ops = []string{op}
	}
	w := &dfWhere{op: ops[q.r.IntN(len(ops))], prop: p.APIName, byPI: q.pct(25)}
	switch w.op {
	case "isNull":
		b := q.pct(50)
		w.value, w.wire = b, b
	case "eq", "contains", "gt", "gte", "lt", "lte":
		w.value = q.value(p)
		w.wire = dfWire(q.r, w.value)
	case "in":
		vals := []any{}
		for range q.r.IntN(4) {
			v := q.value(p)
			w.values = append(w.values, v)
			vals = append(vals, dfWire(q.r, v))
		}
		w.wire = vals
	case "wildcard":
		w.text = q.wildcard(q.str(p))
		w.wire = w.text
	case "regex":
		w.text = q.regex(q.str(p))
		w.wire = w.text
	default:
		if p.Search == objects.SearchKeyword {
			rs := []rune(q.str(p))
			w.text = string(rs[:q.r.IntN(len(rs)+1)])
			switch {
			case q.pct(10):
				w.text = strings.ToUpper(w.text)
			case q.pct(10):
				w.text = strings.ToLower(w.text)
			}
		} else {
			w.text = q.terms(p, w.op)
		}
		w.wire = w.text
		if w.op == "containsAllTerms" || w.op == "containsAnyTerm" {
			if q.pct(75) {
				w.fuzzy = q.pct(80)
				w.fz = &w.fuzzy
			}
			if w.fuzzy {
				w.text = q.typos(w.text)
				w.wire = w.text
			}
		}
	}
	return w
}

// element draws a non-null element of p from a random object, or nil.
func (q *dfQGen) element(p objects.Property) any {
	i := q.s.typ.PropertyIndex(p.APIName)
	for range 8 {
		if len(q.s.objs) == 0 {
			return nil
		}
		els := dfElems(q.s.objs[q.r.IntN(len(q.s.objs))].o.Values[i])
		if len(els) > 0 {
			return els[q.r.IntN(len(els))]
		}
	}
	return nil
}

// fresh draws a value of p's element type from its column's generator.
func (q *dfQGen) fresh(p objects.Property) any {
	c := q.tbl.cols[q.tbl.col(p.APIName)]
	for range 20 {
		var v any
		if c.gen == nil {
			v = q.g.bigLong()
		} else {
			v = c.gen(q.g)
		}
		if els := dfElems(v); len(els) > 0 {
			return els[q.r.IntN(len(els))]
		}
	}
	return nil
}

// value is a query value for p: never null, never NaN (the API refuses it).
func (q *dfQGen) value(p objects.Property) any {
	for {
		var v any
		if q.pct(75) {
			v = q.element(p)
		}
		if v == nil {
			v = q.fresh(p)
		}
		if f, ok := v.(float64); v != nil && (!ok || !math.IsNaN(f)) {
			return v
		}
	}
}

func (q *dfQGen) str(p objects.Property) string {
	if v, ok := q.value(p).(string); ok {
		return v
	}
	return ""
}
