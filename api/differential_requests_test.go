package api_test

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// The requests of the differential test: each draws a random request of
// one kind, sends it, and checks the answer against the oracle (pages in
// differential_paging_test.go, aggregations in differential_aggcheck_test.go).

func (d *dfDriver) post(path string) func(body map[string]any) func(tb testing.TB, tok string) dfResp {
	return func(body map[string]any) func(tb testing.TB, tok string) dfResp {
		return func(tb testing.TB, tok string) dfResp {
			b := maps.Clone(body)
			if tok != "" {
				b["pageToken"] = tok
			}
			return d.c.do(tb, "POST", ontologyPathDf+path, b)
		}
	}
}

// expect400 checks a refusal: the contract fixes the status, not the
// error name (which the message shows).
func (d *dfDriver) expect400(tb testing.TB, what string, req any, r dfResp, why string) {
	tb.Helper()
	if r.status != 400 {
		d.rep.fail(tb, what+"/refusal", req, "want 400 (%s), got %d: %s", why, r.status, dfShort(r.raw))
	}
}

// paging draws orderBy, pageSize, select and excludeRid into body.
func (d *dfDriver) paging(q *dfQGen, body map[string]any, sizes []int) *dfPaged {
	p := &dfPaged{sorts: q.order(), ps: d.defaultP}
	if len(p.sorts) > 0 || q.pct(20) {
		body["orderBy"] = dfOrderJSON(p.sorts)
	}
	if sizes != nil {
		p.ps = sizes[q.r.IntN(len(sizes))]
		body["pageSize"] = p.ps
	} else if q.pct(85) {
		p.ps = q.pageSize()
		body["pageSize"] = p.ps
	}
	p.sel = q.selection(body)
	if p.excl = q.pct(20); p.excl {
		body["excludeRid"] = true
	}
	p.req = body
	return p
}

// searchReq draws a search; nil when its where clause must be refused
// (which it then checks).
func (d *dfDriver) searchReq(tb testing.TB, q *dfQGen, sizes []int) *dfPaged {
	body := map[string]any{}
	var w *dfWhere
	if q.pct(85) {
		w = q.where(q.r.IntN(4))
		body["where"] = w.json()
	}
	p := d.paging(q, body, sizes)
	p.what, p.where, p.send = "search", w, d.post("/objects/"+dfTypeName+"/search")(body)
	if w != nil && d.s.dfBad(w) {
		d.expect400(tb, "search", body, p.send(tb, ""), "text with no terms")
		return nil
	}
	p.want = sortObjs(d.s.filter(w), p.sorts)
	p.total = len(p.want)
	return p
}

func (d *dfDriver) search(tb testing.TB, q *dfQGen) {
	if p := d.searchReq(tb, q, nil); p != nil {
		d.pages(tb, p, "", dfMaxPages)
	}
}

// probe is a search of one clause on a text or keyword property, in one
// page: many of them, cheaply, for the most varied query types.
func (d *dfDriver) probe(tb testing.TB, q *dfQGen) {
	w := q.leaf(true)
	body := map[string]any{"where": w.json(), "pageSize": 10000, "excludeRid": q.pct(50)}
	p := &dfPaged{what: "search", req: body, where: w, ps: 10000, excl: body["excludeRid"] == true,
		send: d.post("/objects/" + dfTypeName + "/search")(body)}
	if d.s.dfBad(w) {
		d.expect400(tb, "search", body, p.send(tb, ""), "text with no terms")
		return
	}
	p.want = d.s.filter(w)
	p.total = len(p.want)
	d.rep.cover(w, len(p.want), len(d.s.objs))
	d.pages(tb, p, "", 1)
}

func (d *dfDriver) loadReq(tb testing.TB, q *dfQGen, sizes []int) *dfPaged {
	set := q.set(3)
	body := map[string]any{"objectSet": set.json()}
	p := d.paging(q, body, sizes)
	p.what, p.set, p.send = "loadObjects", set, d.post("/objectSets/loadObjects")(body)
	if d.s.setUnclear(set) {
		return nil
	}
	if d.s.setBad(set) {
		d.expect400(tb, "loadObjects", body, p.send(tb, ""), "text with no terms")
		return nil
	}
	in, _ := d.s.members(set)
	for i, ob := range d.s.objs {
		if in[i] {
			p.want = append(p.want, ob)
		}
	}
	p.want = sortObjs(p.want, p.sorts)
	p.total = len(p.want)
	return p
}

func (d *dfDriver) loadObjects(tb testing.TB, q *dfQGen) {
	if p := d.loadReq(tb, q, nil); p != nil {
		d.pages(tb, p, "", dfMaxPages)
	}
}

// list pages GET /objects/{type} with orderBy, select and excludeRid as
// query parameters.
func (d *dfDriver) list(tb testing.TB, q *dfQGen) {
	body := map[string]any{}
	p := d.paging(q, body, nil)
	vals := url.Values{}
	if _, ok := body["pageSize"]; ok {
		vals.Set("pageSize", fmt.Sprint(p.ps))
	}
	var parts []string
	for _, s := range p.sorts {
		part := []string{"properties.", "p."}[q.r.IntN(2)] + s.prop
		if s.dir != "" {
			part += ":" + s.dir
		}
		parts = append(parts, part)
	}
	if parts != nil {
		vals.Set("orderBy", strings.Join(parts, ","))
	}
	if p.sel != nil {
		vals["select"] = slices.Sorted(maps.Keys(p.sel))
	}
	if p.excl {
		vals.Set("excludeRid", "true")
	}
	p.what, p.req = "list", "GET ?"+vals.Encode()
	p.send = func(tb testing.TB, tok string) dfResp {
		v := maps.Clone(vals)
		if tok != "" {
			v.Set("pageToken", tok)
		}
		return d.c.do(tb, "GET", ontologyPathDf+"/objects/"+dfTypeName+"?"+v.Encode(), nil)
	}
	p.want = sortObjs(d.s.objs, p.sorts)
	p.total = len(p.want)
	d.pages(tb, p, "", dfMaxPages)
}

func (d *dfDriver) count(tb testing.TB) {
	r := d.c.do(tb, "POST", ontologyPathDf+"/objects/"+dfTypeName+"/count", nil)
	if r.status != 200 || dfCanon(r.m["count"]) != fmt.Sprint(len(d.s.objs)) {
		d.rep.fail(tb, "count", "POST count", "got %d %s, want count %d", r.status, dfShort(r.raw), len(d.s.objs))
	}
}

func (d *dfDriver) aggregate(tb testing.TB, q *dfQGen) {
	a := q.agg()
	if q.pct(65) {
		req := map[string]any{}
		var w *dfWhere
		if q.pct(70) {
			w = q.where(2)
			req["where"] = w.json()
		}
		a.body(req)
		path := "/objects/" + dfTypeName + "/aggregate"
		if w != nil && d.s.dfBad(w) {
			d.expect400(tb, "aggregate", req, d.c.do(tb, "POST", ontologyPathDf+path, req), "text with no terms")
			return
		}
		d.checkAgg(tb, path, req, a, d.s.filter(w), w, nil)
		return
	}
	set := q.set(2)
	req := a.body(map[string]any{"objectSet": set.json()})
	in, typed := d.s.members(set)
	switch {
	case d.s.setUnclear(set):
		return
	case d.s.setBad(set):
		d.expect400(tb, "objectSets/aggregate", req, d.c.do(tb, "POST", ontologyPathDf+"/objectSets/aggregate", req), "text with no terms")
		return
	case !typed:
		return // the contract does not say what aggregating a set of no type gives
	}
	var objs []*dfObj
	for i, ob := range d.s.objs {
		if in[i] {
			objs = append(objs, ob)
		}
	}
	d.checkAgg(tb, "/objectSets/aggregate", req, a, objs, nil, set)
}

// dfCursor is a page token taken before an edit, with the position it
// stands for: the last object of its page, as that state had it.
type dfCursor struct {
	p    *dfPaged
	last *dfObj
	tok  string
}

func (d *dfDriver) startCursor(tb testing.TB, q *dfQGen) *dfCursor {
	sizes := []int{1, 2, 3, 5, 10, 50}
	var p *dfPaged
	if q.pct(30) {
		p = d.loadReq(tb, q, sizes)
	} else {
		p = d.searchReq(tb, q, sizes)
	}
	if p == nil {
		return nil
	}
	tok, last, ok := d.pages(tb, p, "", 1+q.r.IntN(3))
	if !ok || tok == "" {
		return nil
	}
	return &dfCursor{p: p, last: last, tok: tok}
}

// continueCursor pages on from a token taken before the edit: the rest
// must be the objects of the new state strictly after the token's
// position, in order.
func (d *dfDriver) continueCursor(tb testing.TB, c *dfCursor) {
	p := *c.p
	p.what += " (token from before the edit)"
	p.note = fmt.Sprintf(", continuing after %s as the token's state had it", d.s.sortValues(c.last, p.sorts))
	if now := d.s.byKey[string(c.last.key)]; now != nil {
		p.note += fmt.Sprintf(" (now %s)", d.s.sortValues(now, p.sorts))
	} else {
		p.note += " (now deleted)"
	}
	var all []*dfObj
	if p.set != nil {
		in, _ := d.s.members(p.set)
		for i, ob := range d.s.objs {
			if in[i] {
				all = append(all, ob)
			}
		}
	} else {
		all = d.s.filter(p.where)
	}
	all = sortObjs(all, p.sorts)
	p.total = len(all)
	p.want, p.wantSet = nil, nil
	for _, ob := range all {
		if cmpObj(ob, c.last, p.sorts) > 0 {
			p.want = append(p.want, ob)
		}
	}
	d.pages(tb, &p, c.tok, dfMaxPages)
}
