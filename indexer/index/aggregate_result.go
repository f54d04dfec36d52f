package index

import (
	"cmp"
	"slices"

	"github.com/ontoindex/ontoindex/indexer/query"
)

// result orders the groups: maxGroupCount first keeps, per exact
// grouping, the values with most objects; then groups are ordered by the
// first metric with an order, else by count descending, then by their
// values.
func (a *aggregation) result() *query.AggregateResult {
	groups := make([]*groupAccumulator, 0, len(a.accumulators))
	for _, g := range a.accumulators {
		groups = append(groups, g)
	}
	for gi, gs := range a.groups {
		if gs.MaxGroupCount == 0 {
			continue
		}
		totals := map[string]int64{}
		first := map[string]*groupAccumulator{}
		for _, g := range groups {
			totals[g.ids[gi]] += g.count
			first[g.ids[gi]] = g
		}
		if len(totals) <= gs.MaxGroupCount {
			continue
		}
		ids := make([]string, 0, len(totals))
		for id := range totals {
			ids = append(ids, id)
		}
		slices.SortFunc(ids, func(x, y string) int {
			if c := cmp.Compare(totals[y], totals[x]); c != 0 {
				return c
			}
			return compareGroupAt(first[x], first[y], gi)
		})
		keep := map[string]bool{}
		for _, id := range ids[:gs.MaxGroupCount] {
			keep[id] = true
		}
		groups = slices.DeleteFunc(groups, func(g *groupAccumulator) bool { return !keep[g.ids[gi]] })
	}
	orderBy := -1
	for i, m := range a.metrics {
		if m.Order != 0 {
			orderBy = i
			break
		}
	}
	values := func(g *groupAccumulator) []any {
		out := make([]any, len(a.metrics))
		for i, m := range a.metrics {
			out[i] = g.metrics[i].value(m, g.count)
		}
		return out
	}
	type row struct {
		g    *groupAccumulator
		vals []any
	}
	rows := make([]row, len(groups))
	for i, g := range groups {
		rows[i] = row{g, values(g)}
	}
	slices.SortFunc(rows, func(x, y row) int {
		if orderBy >= 0 {
			// Groups without a value come last in both directions.
			xv, yv := x.vals[orderBy], y.vals[orderBy]
			switch {
			case xv == nil && yv != nil:
				return 1
			case yv == nil && xv != nil:
				return -1
			}
			c := query.CompareMetricValues(xv, yv)
			if a.metrics[orderBy].Order < 0 {
				c = -c
			}
			if c != 0 {
				return c
			}
		} else if c := cmp.Compare(y.g.count, x.g.count); c != 0 {
			return c
		}
		for gi := range a.groups {
			if c := compareGroupAt(x.g, y.g, gi); c != 0 {
				return c
			}
		}
		return 0
	})
	res := &query.AggregateResult{Groups: make([]query.GroupResult, 0, len(rows))}
	for _, g := range groups {
		for i := range g.metrics {
			res.Approximate = res.Approximate || g.metrics[i].sketch != nil
		}
	}
	for _, r := range rows {
		res.Groups = append(res.Groups, query.GroupResult{Keys: r.g.keys, Count: r.g.count, Metrics: r.vals})
	}
	return res
}

// compareGroupAt orders two groups by the value of one grouping
// (query.CompareGroupValues).
func compareGroupAt(x, y *groupAccumulator, gi int) int {
	return query.CompareGroupValues(x.sorts[gi], y.sorts[gi], x.ids[gi], y.ids[gi])
}
