package api

import (
	"cmp"
	"math/big"
	"slices"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// How the groups of several types' aggregations merge: each metric's
// accumulator, the cut of maxGroupCount and the order of the groups, as
// the engine applies them to one type's (aggregate_several.go).

// add merges one type's value of the metric.
func (a *metricAccumulator) add(kind query.MetricKind, v any) {
	if v == nil {
		return
	}
	switch kind {
	case query.Min, query.Max:
		c := 0
		if a.hasValue {
			c = objects.Compare(v, a.best)
		}
		if !a.hasValue || (kind == query.Min && c < 0) || (kind == query.Max && c > 0) {
			a.best, a.hasValue = v, true
		}
	case query.Sum, query.Avg:
		a.hasValue = true
		switch x := v.(type) {
		case int64:
			a.addInt(big.NewInt(x))
		case *big.Int:
			a.addInt(x)
		case float64:
			a.isFloat, a.fsum = true, a.fsum+x
		}
	}
}

func (a *metricAccumulator) addInt(x *big.Int) {
	if a.sum == nil {
		a.sum = new(big.Int)
	}
	a.sum.Add(a.sum, x)
}

// value is the merged metric, as the engine gives one type's.
func (a *metricAccumulator) value(kind query.MetricKind, count int64) any {
	switch kind {
	case query.Count:
		return count
	case query.ExactDistinct, query.ApproximateDistinct:
		return int64(len(a.distinct))
	}
	if !a.hasValue {
		return nil
	}
	switch kind {
	case query.Min, query.Max:
		return a.best
	}
	total := a.fsum
	if a.sum != nil {
		f, _ := new(big.Float).SetInt(a.sum).Float64()
		total += f
	}
	if kind == query.Avg {
		if a.count == 0 {
			return nil
		}
		return total / float64(a.count)
	}
	if a.isFloat {
		return total
	}
	if a.sum.IsInt64() {
		return a.sum.Int64()
	}
	return a.sum
}

// cutGroups keeps, per exact grouping with a maxGroupCount, the values
// with most objects (ties by value), as the engine does for one type.
func cutGroups(groups []*mergedGroup, specs []groupSpec) []*mergedGroup {
	for gi, gs := range specs {
		if gs.Kind != query.Exact || gs.MaxGroupCount == 0 {
			continue
		}
		totals := map[string]int64{}
		sample := map[string]*mergedGroup{}
		for _, g := range groups {
			totals[g.ids[gi]] += g.count
			sample[g.ids[gi]] = g
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
			return query.CompareGroupValues(sample[x].sorts[gi], sample[y].sorts[gi], x, y)
		})
		keep := map[string]bool{}
		for _, id := range ids[:gs.MaxGroupCount] {
			keep[id] = true
		}
		groups = slices.DeleteFunc(groups, func(g *mergedGroup) bool { return !keep[g.ids[gi]] })
	}
	return groups
}

// orderGroups orders the merged groups: by the first metric with a
// direction (groups without its value last), else by count descending,
// then by group values.
func orderGroups(groups []*mergedGroup, metrics []metricSpec, values map[*mergedGroup][]any) {
	orderBy := slices.IndexFunc(metrics, func(m metricSpec) bool { return m.Order != 0 })
	slices.SortFunc(groups, func(x, y *mergedGroup) int {
		if orderBy >= 0 {
			xv, yv := values[x][orderBy], values[y][orderBy]
			switch {
			case xv == nil && yv != nil:
				return 1
			case yv == nil && xv != nil:
				return -1
			}
			c := query.CompareGroupValues(xv, yv, "", "")
			if metrics[orderBy].Order < 0 {
				c = -c
			}
			if c != 0 {
				return c
			}
		} else if c := cmp.Compare(y.count, x.count); c != 0 {
			return c
		}
		for gi := range x.sorts {
			if c := query.CompareGroupValues(x.sorts[gi], y.sorts[gi], x.ids[gi], y.ids[gi]); c != 0 {
				return c
			}
		}
		return 0
	})
}
