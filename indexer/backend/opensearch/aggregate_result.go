package opensearch

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// result keeps the MaxGroupCount values with most objects of each
// grouping, then orders the groups as the engine does (query.GroupOrder):
// by the first metric with an order, else by count descending, then by
// group keys.
func (a *aggregation) result() *query.AggregateResult {
	groups := make([]*aggGroup, 0, len(a.found))
	for _, g := range a.found {
		groups = append(groups, g)
	}
	order := query.GroupOrder[*aggGroup]{
		ID:     func(g *aggGroup, i int) string { return g.ids[i] },
		Value:  func(g *aggGroup, i int) any { return g.sorts[i] },
		Count:  func(g *aggGroup) int64 { return g.count },
		Metric: func(g *aggGroup, i int) any { return g.metrics[i] },
	}
	groups = order.Cut(groups, a.q.Groups)
	orderBy, desc := query.OrderBy(a.q.Metrics)
	order.Sort(groups, len(a.groups), orderBy, desc)
	res := &query.AggregateResult{Groups: make([]query.GroupResult, 0, len(groups))}
	for _, g := range groups {
		res.Groups = append(res.Groups, query.GroupResult{Keys: g.keys, Count: g.count, Metrics: g.metrics})
	}
	return res
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
