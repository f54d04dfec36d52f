package api

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/indexer/query"
)

// aggregate of a set with derived properties. When neither the metrics
// nor the groupings name a derived property, the engine aggregates the
// objects that pass the derived where clauses (a filter of their keys);
// otherwise the aggregation runs here, over the computed values, with the
// engine's semantics (query.Aggregate's doc): exact groups (array
// elements each, MaxGroupCount most frequent, nulls by IncludeNull or
// Default), fixedWidth and ranges, and the metrics of metricKinds.
func (s *Server) aggregateDerived(ctx context.Context, d *setDecoder, set *wire.Set, spec aggregationSpec) (*aggregateResponse, error) {
	if err := checkAccuracy(spec.Accuracy); err != nil {
		return nil, err
	}
	typ := set.Types[0]
	t := set.Derived.Type
	metrics, err := decodeMetrics(t, spec.Aggregation)
	if err != nil {
		return nil, err
	}
	groups, err := decodeGroups(t, spec.GroupBy)
	if err != nil {
		return nil, err
	}
	rs, err := d.evalDerived(ctx, typ, set.Filters[typ], set.Derived)
	if err != nil {
		return nil, err
	}
	keep, err := derivedMatches(rs, set.Derived.Where)
	if err != nil {
		return nil, err
	}
	names := set.Derived.Names()
	derived := false
	for _, m := range metrics {
		derived = derived || names[m.Property]
	}
	for _, g := range groups {
		derived = derived || names[g.Property]
	}
	if !derived {
		keys := make([][]byte, len(keep))
		for n, j := range keep {
			keys[n] = rs.page.Key(j)
		}
		return s.aggregate(ctx, d.views[typ], &query.Filter{Op: query.OpKeys, Keys: keys}, spec)
	}
	res, err := aggregateRows(rs, keep, metrics, groups, s.cfg.MaxAggregationGroups)
	if err != nil {
		return nil, err
	}
	return responseOf(metrics, groups, res), nil
}

// bucket is one group being aggregated.
type bucket struct {
	keys []query.GroupKey
	rows []int
}

// aggregateRows groups the rows of rs and computes the metrics of each
// group.
func aggregateRows(rs *derivedRows, keep []int, metrics []metricSpec, groups []groupSpec, maxGroups int) (*query.AggregateResult, error) {
	buckets := []*bucket{{}}
	buckets[0].rows = keep
	for _, g := range groups {
		i := rs.t.PropertyIndex(g.Property)
		var next []*bucket
		for _, b := range buckets {
			byKey := map[string]*bucket{}
			var order []*bucket
			for _, j := range b.rows {
				for _, k := range groupKeys(&g, rs.value(j, i)) {
					id := valueKey(k.Value) + "|" + valueKey(k.Start) + "|" + valueKey(int64(k.Range)) + "|" + valueKey(k.IsDefault)
					nb, ok := byKey[id]
					if !ok {
						nb = &bucket{keys: append(slices.Clip(b.keys), k)}
						byKey[id] = nb
						order = append(order, nb)
					}
					if len(nb.rows) == 0 || nb.rows[len(nb.rows)-1] != j {
						nb.rows = append(nb.rows, j)
					}
				}
			}
			if g.Kind == query.Exact && g.MaxGroupCount > 0 && len(order) > g.MaxGroupCount {
				slices.SortStableFunc(order, func(a, b *bucket) int { return cmp.Compare(len(b.rows), len(a.rows)) })
				order = order[:g.MaxGroupCount]
			}
			next = append(next, order...)
		}
		buckets = next
	}
	if len(groups) > 0 && maxGroups > 0 && len(buckets) > maxGroups {
		return nil, wire.Err(wire.NameAggregationGroupCountExceededLimit, map[string]any{"groupsCount": len(buckets), "groupsLimit": maxGroups})
	}
	res := &query.AggregateResult{}
	for _, b := range buckets {
		if len(groups) > 0 && len(b.rows) == 0 {
			continue
		}
		gr := query.GroupResult{Keys: b.keys, Count: int64(len(b.rows))}
		for _, m := range metrics {
			gr.Metrics = append(gr.Metrics, metricOf(rs, &m, b.rows))
		}
		res.Groups = append(res.Groups, gr)
	}
	sortGroups(res.Groups, metrics)
	return res, nil
}

// groupKeys are the keys of one value under a grouping: one per array
// element, none when the value is left out.
func groupKeys(g *groupSpec, v any) []query.GroupKey {
	list, isList := v.([]any)
	if !isList {
		list = []any{v}
	}
	if v == nil || (isList && len(list) == 0) {
		switch {
		case g.Kind != query.Exact:
			return nil
		case g.Default != nil:
			return []query.GroupKey{{IsDefault: true}}
		case g.IncludeNull:
			return []query.GroupKey{{}}
		}
		return nil
	}
	var out []query.GroupKey
	for _, e := range list {
		switch g.Kind {
		case query.Exact:
			out = append(out, query.GroupKey{Value: e})
		case query.FixedWidth:
			x := toFloat(e)
			lo := math.Floor(x/g.Width) * g.Width
			out = append(out, query.GroupKey{Start: lo, End: lo + g.Width})
		case query.Ranges:
			for n, r := range g.Ranges {
				if (r.Start == nil || compareValues(e, r.Start) >= 0) && (r.End == nil || compareValues(e, r.End) < 0) {
					out = append(out, query.GroupKey{Range: n})
				}
			}
		}
	}
	return out
}

// metricOf is one metric over the rows of a group.
func metricOf(rs *derivedRows, m *metricSpec, rows []int) any {
	if m.Kind == query.Count {
		return int64(len(rows))
	}
	i := rs.t.PropertyIndex(m.Property)
	integer := true
	var a accumulator
	var isum int64
	op := map[query.MetricKind]string{query.Min: "min", query.Max: "max", query.Avg: "avg", query.Sum: "sum",
		query.ExactDistinct: "exactDistinct", query.ApproximateDistinct: "approximateDistinct"}[m.Kind]
	def := &wire.DerivedDef{Op: op}
	for _, j := range rows {
		v := rs.value(j, i)
		list, isList := v.([]any)
		if !isList {
			list = []any{v}
		}
		for _, e := range list {
			if e == nil {
				continue
			}
			x, ok := e.(int64)
			integer = integer && ok
			isum += x
			a.add(def, e)
		}
	}
	if m.Kind == query.Sum && integer && a.n > 0 {
		return isum
	}
	return a.result(def)
}

// sortGroups orders groups as the engine does: by the first metric with
// an order, else by count descending; then by group keys.
func sortGroups(gs []query.GroupResult, metrics []metricSpec) {
	mi := slices.IndexFunc(metrics, func(m metricSpec) bool { return m.Order != 0 })
	slices.SortStableFunc(gs, func(a, b query.GroupResult) int {
		if mi >= 0 {
			x, y := a.Metrics[mi], b.Metrics[mi]
			switch {
			case x == nil && y != nil:
				return 1
			case y == nil && x != nil:
				return -1
			case x != nil:
				if c := compareValues(x, y) * metrics[mi].Order; c != 0 {
					return c
				}
			}
		} else if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		for k := range a.Keys {
			if c := compareKeys(a.Keys[k], b.Keys[k]); c != 0 {
				return c
			}
		}
		return 0
	})
}

func compareKeys(a, b query.GroupKey) int {
	switch {
	case a.Value == nil && b.Value != nil:
		return 1
	case b.Value == nil && a.Value != nil:
		return -1
	case a.Value != nil:
		if c := compareValues(a.Value, b.Value); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(a.Start, b.Start); c != 0 {
		return c
	}
	return cmp.Compare(a.Range, b.Range)
}
