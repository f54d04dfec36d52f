package api_test

import (
	"github.com/ontoindex/ontoindex/objects"
)

// Random object sets, orderings, selections and page sizes.

// dfSet is a generated object set.
type dfSet struct {
	kind  string
	where *dfWhere
	kids  []*dfSet
	rids  []string
}

func (s *dfSet) json() map[string]any {
	m := map[string]any{"type": s.kind}
	switch s.kind {
	case "base":
		m["objectType"] = dfTypeName
	case "filter":
		m["objectSet"] = s.kids[0].json()
		m["where"] = s.where.json()
	case "static":
		m["objects"] = append([]string{}, s.rids...)
	default:
		var kids []any
		for _, k := range s.kids {
			kids = append(kids, k.json())
		}
		m["objectSets"] = kids
	}
	return m
}

func (q *dfQGen) set(depth int) *dfSet {
	x := q.r.IntN(10)
	if depth <= 0 {
		x = []int{0, 2, 8}[q.r.IntN(3)]
	}
	switch {
	case x <= 1:
		return &dfSet{kind: "base"}
	case x <= 4:
		return &dfSet{kind: "filter", kids: []*dfSet{q.set(depth - 1)}, where: q.where(2)}
	case x <= 7:
		s := &dfSet{kind: []string{"union", "intersect", "subtract"}[x-5]}
		for range 1 + q.r.IntN(3) {
			s.kids = append(s.kids, q.set(depth-1))
		}
		return s
	}
	s := &dfSet{kind: "static", rids: []string{}}
	if q.pct(5) {
		return s
	}
	for range 1 + q.r.IntN(6) {
		switch {
		case len(q.dead) > 0 && q.pct(15):
			s.rids = append(s.rids, dfRID(q.dead[q.r.IntN(len(q.dead))]))
		case len(q.s.objs) == 0 || q.pct(10):
			s.rids = append(s.rids, dfRID([]byte(q.tbl.key(q.tbl.newRow(q.g)))))
		default:
			s.rids = append(s.rids, dfRID(q.s.objs[q.r.IntN(len(q.s.objs))].key))
		}
	}
	return s
}

// dfSort is one orderBy field.
type dfSort struct {
	prop string
	idx  int
	desc bool
	dir  string // as sent: asc, desc or absent
}

func (q *dfQGen) order() []dfSort {
	var cands []objects.Property
	for _, p := range q.s.typ.Properties {
		if p.Sortable() {
			cands = append(cands, p)
		}
	}
	var out []dfSort
	for _, k := range q.r.Perm(len(cands))[:[]int{0, 1, 1, 1, 2, 2, 3}[q.r.IntN(7)]] {
		p := cands[k]
		s := dfSort{prop: p.APIName, idx: q.s.typ.PropertyIndex(p.APIName), dir: []string{"asc", "desc", "desc", ""}[q.r.IntN(4)]}
		s.desc = s.dir == "desc"
		out = append(out, s)
	}
	return out
}

func dfOrderJSON(sorts []dfSort) map[string]any {
	fields := []any{}
	for _, s := range sorts {
		f := map[string]any{"field": s.prop}
		if s.dir != "" {
			f["direction"] = s.dir
		}
		fields = append(fields, f)
	}
	return map[string]any{"fields": fields}
}

// selection draws select (nil: every property) and adds it to body.
func (q *dfQGen) selection(body map[string]any) map[string]bool {
	if !q.pct(30) {
		return nil
	}
	sel := map[string]bool{}
	var names []string
	var v2 []any
	for range 1 + q.r.IntN(4) {
		p := q.s.typ.Properties[q.r.IntN(len(q.s.typ.Properties))].APIName
		sel[p] = true
		if q.pct(25) {
			v2 = append(v2, map[string]any{"type": "property", "apiName": p})
		} else {
			names = append(names, p)
		}
	}
	for _, k := range q.s.typ.PrimaryKey {
		sel[k] = true
	}
	if names != nil {
		body["select"] = names
	}
	if v2 != nil {
		body["selectV2"] = v2
	}
	return sel
}

func (q *dfQGen) pageSize() int {
	return []int{1, 2, 3, 5, 8, 13, 50, 50, 100, 100, 333, 1000, 1000, 10000}[q.r.IntN(14)]
}
