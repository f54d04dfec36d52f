package index

import "github.com/ontoindex/ontoindex/indexer/query"

// result orders the groups (query.GroupOrder): maxGroupCount first keeps,
// per grouping, the values with most objects; then groups are ordered by
// the first metric with an order, else by count descending, then by their
// values. Metric values are computed for the groups kept only.
func (a *aggregation) result() *query.AggregateResult {
	groups := make([]*groupAccumulator, 0, len(a.accumulators))
	for _, g := range a.accumulators {
		groups = append(groups, g)
	}
	specs := make([]query.Group, len(a.groups))
	for i, g := range a.groups {
		specs[i] = g.Group
	}
	groups = query.GroupOrder[*groupAccumulator]{
		ID:    func(g *groupAccumulator, i int) string { return g.ids[i] },
		Value: func(g *groupAccumulator, i int) any { return g.sorts[i] },
		Count: func(g *groupAccumulator) int64 { return g.count },
	}.Cut(groups, specs)

	type row struct {
		g    *groupAccumulator
		vals []any
	}
	res := &query.AggregateResult{}
	rows := make([]row, len(groups))
	for i, g := range groups {
		for k := range g.metrics {
			res.Approximate = res.Approximate || g.metrics[k].sketch != nil
		}
		vals := make([]any, len(a.metrics))
		for k, m := range a.metrics {
			vals[k] = g.metrics[k].value(m, g.count)
		}
		rows[i] = row{g, vals}
	}
	metrics := make([]query.Metric, len(a.metrics))
	for i, m := range a.metrics {
		metrics[i] = m.Metric
	}
	orderBy, desc := query.OrderBy(metrics)
	query.GroupOrder[row]{
		ID:     func(r row, i int) string { return r.g.ids[i] },
		Value:  func(r row, i int) any { return r.g.sorts[i] },
		Count:  func(r row) int64 { return r.g.count },
		Metric: func(r row, i int) any { return r.vals[i] },
	}.Sort(rows, len(a.groups), orderBy, desc)
	res.Groups = make([]query.GroupResult, 0, len(rows))
	for _, r := range rows {
		res.Groups = append(res.Groups, query.GroupResult{Keys: r.g.keys, Count: r.g.count, Metrics: r.vals})
	}
	return res
}
