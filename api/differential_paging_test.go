package api_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/objects"
)

// The oracle's ordering and paging: the expected order of a result, the
// check of every page against it, and, when a page disagrees, the search
// for the smallest clause (or object set) on which the engine and the
// oracle disagree, which is what a failure reports as its reproduction.

// cmpObj orders objects by the sort fields, nulls last in both
// directions, then by primary key (the bytes of the encoded key).
func cmpObj(a, b *dfObj, sorts []dfSort) int {
	for _, f := range sorts {
		x, y := a.o.Values[f.idx], b.o.Values[f.idx]
		switch {
		case x == nil && y == nil:
			continue
		case x == nil:
			return 1
		case y == nil:
			return -1
		}
		c := dfCmp(x, y)
		if f.desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return bytes.Compare(a.key, b.key)
}

func sortObjs(objs []*dfObj, sorts []dfSort) []*dfObj {
	out := slices.Clone(objs)
	slices.SortFunc(out, func(a, b *dfObj) int { return cmpObj(a, b, sorts) })
	return out
}

func dfSortText(sorts []dfSort) string {
	var parts []string
	for _, s := range sorts {
		d := "asc"
		if s.desc {
			d = "desc"
		}
		parts = append(parts, s.prop+":"+d)
	}
	if parts == nil {
		return "primary key"
	}
	return strings.Join(parts, ",")
}

// dfPaged is a paged request and what it must return.
type dfPaged struct {
	what  string // search, loadObjects, list
	req   any    // the request, for messages
	send  func(tb testing.TB, tok string) dfResp
	want  []*dfObj // the objects expected from the first page sent on
	total int      // totalCount
	ps    int
	sel   map[string]bool
	excl  bool
	sorts []dfSort
	where *dfWhere // for the minimizer
	set   *dfSet

	note    string          // said in every failure
	wantSet map[string]bool // keys of want, once computed
}

// pages follows up to maxPages pages from tok ("": the first page), checks
// each, and returns the token of the following page ("" at the end), the
// last object seen, and whether every page was right.
func (d *dfDriver) pages(tb testing.TB, p *dfPaged, tok string, maxPages int) (string, *dfObj, bool) {
	tb.Helper()
	pos := 0
	var last *dfObj
	for page := 1; page <= maxPages; page++ {
		r := p.send(tb, tok)
		at := fmt.Sprintf("page %d (pageSize %d, %d objects expected in all, order %s)%s", page, p.ps, len(p.want), dfSortText(p.sorts), p.note)
		if r.status != 200 {
			d.rep.fail(tb, p.what+"/status", p.req, "%s: status %d: %s", at, r.status, dfShort(r.raw))
			return "", nil, false
		}
		data, _ := r.m["data"].([]any)
		if tc := r.m["totalCount"]; tc != fmt.Sprint(p.total) {
			msg, cat := d.minimize(tb, p.where, p.set)
			d.rep.fail(tb, dfOr(cat, p.what+"/totalCount"), p.req, "%s: totalCount %v, want %d%s", at, tc, p.total, msg)
			return "", nil, false
		}
		exp := p.want[pos:min(pos+p.ps, len(p.want))]
		if msg, kind := d.comparePage(data, exp, p, pos); msg != "" {
			cat := p.what + "/" + kind
			switch kind {
			case "order":
				cat += " by " + dfSortText(p.sorts)
			case "extra", "missing":
				m, c := d.minimize(tb, p.where, p.set)
				msg += m
				cat = dfOr(c, cat)
			}
			d.rep.fail(tb, cat, p.req, "%s: %s", at, msg)
			return "", nil, false
		}
		pos += len(exp)
		if len(exp) > 0 {
			last = exp[len(exp)-1]
		}
		next, _ := r.m["nextPageToken"].(string)
		if more := pos < len(p.want); (next != "") != more {
			d.rep.fail(tb, p.what+"/nextPageToken", p.req, "%s: nextPageToken %q after %d of %d objects", at, next, pos, len(p.want))
			return "", nil, false
		}
		if next == "" {
			return "", last, true
		}
		tok = next
	}
	return tok, last, true
}

func dfOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// comparePage compares the objects of a page with the expected ones and
// says how the first difference looks: extra (an object the filter does
// not match), missing, order (the right objects in another order), values
// (the right object rendered differently), unknown (no such object).
func (d *dfDriver) comparePage(data []any, exp []*dfObj, p *dfPaged, pos int) (string, string) {
	if p.wantSet == nil {
		p.wantSet = map[string]bool{}
		for _, ob := range p.want {
			p.wantSet[string(ob.key)] = true
		}
	}
	wantSet := p.wantSet
	for j := range max(len(data), len(exp)) {
		var got map[string]any
		if j < len(data) {
			got, _ = data[j].(map[string]any)
		}
		if j >= len(exp) {
			kind := "extra"
			if gob := d.s.objectOf(got); gob != nil && wantSet[string(gob.key)] {
				kind = "order"
			}
			return fmt.Sprintf("the page has %d objects, want %d; position %d is %s", len(data), len(exp), pos+j, dfCanon(got)), kind
		}
		want := d.s.render(exp[j], p.sel, p.excl)
		if got == nil {
			return fmt.Sprintf("the page has %d objects, want %d; position %d should be %s", len(data), len(exp), pos+j, dfCanon(want)), "missing"
		}
		if dfCanon(got) == dfCanon(want) {
			continue
		}
		gob := d.s.objectOf(got)
		kind := "order"
		switch {
		case gob == nil:
			kind = "unknown"
		case bytes.Equal(gob.key, exp[j].key):
			kind = "values"
		case !wantSet[string(gob.key)]:
			kind = "extra"
		}
		msg := fmt.Sprintf("position %d:\n  got  %s\n  want %s", pos+j, dfCanon(got), dfCanon(want))
		if kind == "order" {
			msg += fmt.Sprintf("\n  sort values: got %s, want %s", d.s.sortValues(gob, p.sorts), d.s.sortValues(exp[j], p.sorts))
		}
		return msg, kind
	}
	return "", ""
}

// objectOf finds the object a wire object is, by __rid or __primaryKey.
func (s *dfState) objectOf(m map[string]any) *dfObj {
	if rid, ok := m["__rid"].(string); ok {
		if key, err := objects.KeyFromDocID(strings.TrimPrefix(rid, "ri.ontoindex.main.object."+dfTypeName+".")); err == nil {
			return s.byKey[string(key)]
		}
	}
	pk := dfCanon(m["__primaryKey"])
	for _, ob := range s.objs {
		if dfCanon(s.typ.KeyJSON(ob.o)) == pk {
			return ob
		}
	}
	return nil
}

func (s *dfState) sortValues(ob *dfObj, sorts []dfSort) string {
	var parts []string
	for _, f := range sorts {
		parts = append(parts, fmt.Sprintf("%s=%s", f.prop, dfCanon(objects.JSONValue(s.typ.Properties[f.idx].Type, ob.o.Values[f.idx]))))
	}
	return "[" + strings.Join(append(parts, "key="+s.typ.KeyString(ob.o)), " ") + "]"
}

// allMatches returns the keys of every object the engine's search (or
// object set load) selects, or a message when it fails.
func (d *dfDriver) allMatches(tb testing.TB, path string, body map[string]any) (map[string]bool, string) {
	body["pageSize"] = 10000
	got := map[string]bool{}
	for {
		r := d.c.do(tb, "POST", path, body)
		if r.status != 200 {
			return nil, fmt.Sprintf("status %d: %s", r.status, dfShort(r.raw))
		}
		data, _ := r.m["data"].([]any)
		for _, o := range data {
			if m, ok := o.(map[string]any); ok {
				if ob := d.s.objectOf(m); ob != nil {
					got[string(ob.key)] = true
				}
			}
		}
		next, _ := r.m["nextPageToken"].(string)
		if next == "" {
			return got, ""
		}
		body["pageToken"] = next
	}
}

// minimize looks for the smallest clause of w (children before parents),
// then the smallest object set of set, whose matches the engine and the
// oracle disagree on, and describes it (and a category for the summary).
func (d *dfDriver) minimize(tb testing.TB, w *dfWhere, set *dfSet) (string, string) {
	tb.Helper()
	if w == nil && set == nil {
		return "", ""
	}
	// Each search costs a request per clause: a run against an engine with
	// many discrepancies stays fast, its categories a bit coarser.
	if d.minimized++; d.minimized > dfMinimizeBudget {
		return "\n(not minimized: more than " + fmt.Sprint(dfMinimizeBudget) + " failures)", ""
	}
	var clauses []*dfWhere
	var walk func(*dfWhere)
	walk = func(x *dfWhere) {
		for _, k := range x.kids {
			walk(k)
		}
		clauses = append(clauses, x)
	}
	if w != nil {
		walk(w)
	}
	var sets []*dfSet
	var walkSet func(*dfSet)
	walkSet = func(x *dfSet) {
		if x.where != nil {
			walk(x.where)
		}
		for _, k := range x.kids {
			walkSet(k)
		}
		sets = append(sets, x)
	}
	if set != nil {
		walkSet(set)
	}
	for _, c := range clauses {
		if d.s.dfBad(c) {
			continue
		}
		var want []bool
		for _, ob := range d.s.objs {
			want = append(want, d.s.matches(c, ob))
		}
		if msg := d.disagree(tb, "/objects/"+dfTypeName+"/search", map[string]any{"where": c.json()}, want); msg != "" {
			cat := "filter " + c.op
			if c.prop != "" {
				p, _ := d.s.prop(c.prop)
				cat += fmt.Sprintf(" on %s (%s, %s)", c.prop, p.Type, p.Search)
			}
			return fmt.Sprintf("\nsmallest clause that disagrees: %s\n%s", dfJSON(c.json()), msg), cat
		}
	}
	for _, x := range sets {
		if d.s.setBad(x) || d.s.setUnclear(x) {
			continue
		}
		want, _ := d.s.members(x)
		if msg := d.disagree(tb, "/objectSets/loadObjects", map[string]any{"objectSet": x.json()}, want); msg != "" {
			return fmt.Sprintf("\nsmallest object set that disagrees: %s\n%s", dfJSON(x.json()), msg), "objectSet " + x.kind
		}
	}
	return "", ""
}

func (d *dfDriver) disagree(tb testing.TB, path string, body map[string]any, want []bool) string {
	got, fail := d.allMatches(tb, ontologyPathDf+path, body)
	if fail != "" {
		return "  " + fail
	}
	n := 0
	var example string
	for i, ob := range d.s.objs {
		if want[i] {
			n++
		}
		if want[i] != got[string(ob.key)] && example == "" {
			state := "matches it, the engine leaves it out"
			if !want[i] {
				state = "does not match it, the engine returns it"
			}
			example = fmt.Sprintf("e.g. the oracle %s: %s", state, dfCanon(d.s.render(ob, nil, true)))
		}
	}
	if example == "" && len(got) == n {
		return ""
	}
	return fmt.Sprintf("  want %d objects, got %d; %s", n, len(got), example)
}
