package opensearch

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// result keeps the MaxGroupCount values with most objects of each
// grouping, then orders the groups as the engine does: by the first
// metric with an order, else by count descending, then by group keys.
func (a *aggregation) result() *query.AggregateResult {
	groups := make([]*aggGroup, 0, len(a.found))
	for _, g := range a.found {
		groups = append(groups, g)
	}
	for gi, gs := range a.q.Groups {
		if gs.MaxGroupCount == 0 {
			continue
		}
		totals := map[string]int64{}
		first := map[string]*aggGroup{}
		for _, g := range groups {
			totals[g.ids[gi]] += g.count
			first[g.ids[gi]] = g
		}
		if len(totals) <= gs.MaxGroupCount {
			continue
		}
		ids := slices.Collect(func(yield func(string) bool) {
			for id := range totals {
				if !yield(id) {
					return
				}
			}
		})
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
		groups = slices.DeleteFunc(groups, func(g *aggGroup) bool { return !keep[g.ids[gi]] })
	}
	orderBy := slices.IndexFunc(a.q.Metrics, func(m query.Metric) bool { return m.Order != 0 })
	slices.SortFunc(groups, func(x, y *aggGroup) int {
		if orderBy >= 0 {
			c := query.CompareMetricValues(x.metrics[orderBy], y.metrics[orderBy])
			if a.q.Metrics[orderBy].Order < 0 && x.metrics[orderBy] != nil && y.metrics[orderBy] != nil {
				c = -c
			}
			if c != 0 {
				return c
			}
		} else if c := cmp.Compare(y.count, x.count); c != 0 {
			return c
		}
		for gi := range a.groups {
			if c := compareGroupAt(x, y, gi); c != 0 {
				return c
			}
		}
		return 0
	})
	res := &query.AggregateResult{Groups: make([]query.GroupResult, 0, len(groups))}
	for _, g := range groups {
		res.Groups = append(res.Groups, query.GroupResult{Keys: g.keys, Count: g.count, Metrics: g.metrics})
	}
	return res
}

// compareGroupAt orders two groups by one grouping's value
// (query.CompareGroupValues), as the embedded engine does.
func compareGroupAt(x, y *aggGroup, gi int) int {
	return query.CompareGroupValues(x.sorts[gi], y.sorts[gi], x.ids[gi], y.ids[gi])
}

// typedValue is a value of p as a sort value or a composite key writes
// it, typed as the engine types it.
func typedValue(p objects.Property, raw json.RawMessage) (any, error) {
	k := p.Type.Primitive().Kind
	if p.Search == objects.SearchText || p.Search == objects.SearchKeyword && !keywordAsText(k) {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("property %s: value %s: %w", p.APIName, raw, err)
		}
		return objects.ParseText(p.Type.Primitive(), s)
	}
	var n json.Number
	if k == objects.KindBoolean {
		var b bool
		if json.Unmarshal(raw, &b) == nil {
			return b, nil
		}
		if err := json.Unmarshal(raw, &n); err != nil {
			return nil, fmt.Errorf("property %s: value %s: %w", p.APIName, raw, err)
		}
		return n.String() != "0", nil
	}
	if err := json.Unmarshal(raw, &n); err != nil {
		return nil, fmt.Errorf("property %s: value %s: %w", p.APIName, raw, err)
	}
	switch k {
	case objects.KindInteger, objects.KindLong:
		return n.Int64()
	case objects.KindFloat, objects.KindDouble:
		return n.Float64()
	case objects.KindDate, objects.KindTimestamp, objects.KindTimestampTZ:
		ms, err := n.Int64()
		if err != nil {
			return nil, err
		}
		if k == objects.KindDate {
			return objects.Date(ms / (24 * 3600 * 1000)), nil
		}
		return time.UnixMilli(ms).UTC(), nil
	}
	return nil, fmt.Errorf("property %s: %s values are not read back by the OpenSearch backend", p.APIName, k)
}
