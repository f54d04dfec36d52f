package api_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

// The check of an aggregation response against the oracle's groups.

// dfMetricOK compares a wire metric value with the oracle's.
func dfMetricOK(got any, has bool, want dfMV) bool {
	switch {
	case want.absent:
		return !has || got == nil
	case !has:
		return false
	case want.nan:
		return got == want.json
	case want.float:
		n, ok := got.(json.Number)
		if !ok {
			return false
		}
		f, err := n.Float64()
		return err == nil && math.Abs(f-want.f) <= want.tol
	}
	return dfCanon(got) == dfCanon(want.json)
}

// checkAgg sends an aggregation and compares the answer with the
// oracle's groups over objs.
func (d *dfDriver) checkAgg(tb testing.TB, path string, req map[string]any, a *dfAgg, objs []*dfObj, where *dfWhere, set *dfSet) {
	tb.Helper()
	r := d.c.do(tb, "POST", ontologyPathDf+path, req)
	all, want := d.s.groups(a, objs)
	if limit := d.cfg.Server.MaxAggregationGroups; all > limit {
		if r.status != 400 {
			d.rep.fail(tb, "aggregate/group limit", req, "%d groups exceed the limit of %d: want 400, got %d: %s", all, limit, r.status, dfShort(r.raw))
		}
		return
	}
	if r.status != 200 {
		d.rep.fail(tb, "aggregate/status", req, "status %d: %s", r.status, dfShort(r.raw))
		return
	}
	if r.m["accuracy"] != "ACCURATE" {
		d.rep.fail(tb, "aggregate/accuracy", req, "accuracy %v, want ACCURATE", r.m["accuracy"])
	}
	data, _ := r.m["data"].([]any)
	at := map[string]int{}
	for i, it := range data {
		item, _ := it.(map[string]any)
		k := dfCanon(item["group"])
		if _, dup := at[k]; dup {
			d.rep.fail(tb, "aggregate/duplicate group", req, "group %s appears twice", k)
			return
		}
		at[k] = i
	}
	seq := make([]*dfAggGroup, len(data))
	var missing []string
	for _, g := range want {
		k := dfCanon(g.json(a))
		i, ok := at[k]
		if !ok {
			missing = append(missing, fmt.Sprintf("%s (%d objects)", k, len(g.objs)))
			continue
		}
		seq[i] = g
	}
	var extra []string
	for i, g := range seq {
		if g == nil {
			extra = append(extra, dfCanon(data[i]))
		}
	}
	if len(missing)+len(extra) > 0 {
		msg, cat := d.minimize(tb, where, set)
		d.rep.fail(tb, dfOr(cat, "aggregate/groups"+a.bucketed()), req, "%d groups, want %d; %d missing, e.g. %v; %d unexpected, e.g. %v%s",
			len(data), len(want), len(missing), dfFirst(missing), len(extra), dfFirst(extra), msg)
		return
	}
	for i, g := range seq {
		metrics, _ := data[i].(map[string]any)["metrics"].([]any)
		if len(metrics) != len(a.metrics) {
			d.rep.fail(tb, "aggregate/metrics", req, "group %s has %d metrics, want %d", dfCanon(g.json(a)), len(metrics), len(a.metrics))
			return
		}
		for k, m := range a.metrics {
			mj, _ := metrics[k].(map[string]any)
			got, has := mj["value"]
			if mj["name"] != m.out || !dfMetricOK(got, has, g.mv[k]) {
				desc := m.kind
				if m.prop != "" {
					p, _ := d.s.prop(m.prop)
					desc += fmt.Sprintf(" of %s (%s)", m.prop, p.Type)
				}
				want := g.mv[k].json
				if g.mv[k].absent {
					want = "(absent)"
				}
				msg, cat := d.minimize(tb, where, set) // a filter the engine gets wrong shows here first
				d.rep.fail(tb, dfOr(cat, "aggregate/metric "+desc+a.bucketed()), req, "group %s (%d objects): metric %d is %s, want {name: %s, value: %s}%s",
					dfCanon(g.json(a)), len(g.objs), k, dfCanon(mj), m.out, dfCanon(want), msg)
				return
			}
		}
	}
	// The order: no pair of groups the oracle can order is reversed.
	for i := range seq {
		for j := i + 1; j < len(seq) && (len(seq) <= 400 || j == i+1); j++ {
			if c, known := d.s.cmpGroups(a, seq[i], seq[j]); known && c > 0 {
				msg, cat := d.minimize(tb, where, set)
				d.rep.fail(tb, dfOr(cat, "aggregate/order"+a.bucketed()), req, "group %d %s (%d objects%s) comes before group %d %s (%d objects%s)%s",
					i, dfCanon(seq[i].json(a)), len(seq[i].objs), dfOrderValue(a, seq[i]), j, dfCanon(seq[j].json(a)), len(seq[j].objs), dfOrderValue(a, seq[j]), msg)
				return
			}
		}
	}
}

// bucketed names the fixedWidth and ranges groupings, which compare
// numbers, for the failure categories.
func (a *dfAgg) bucketed() string {
	var parts []string
	for _, g := range a.groups {
		if g.kind != "exact" {
			parts = append(parts, g.kind+" on "+g.prop)
		}
	}
	if parts == nil {
		return ""
	}
	return " [" + strings.Join(parts, ", ") + "]"
}

func dfOrderValue(a *dfAgg, g *dfAggGroup) string {
	om := a.orderMetric()
	if om < 0 {
		return ""
	}
	if g.mv[om].absent {
		return ", " + a.metrics[om].out + " absent"
	}
	return fmt.Sprintf(", %s %s %s", a.metrics[om].out, a.metrics[om].dir, dfCanon(g.mv[om].json))
}

func dfFirst(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return s[0]
}
