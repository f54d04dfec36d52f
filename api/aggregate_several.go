package api

import (
	"context"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// An aggregation over several object types (or over one seen through an
// interface) runs on each type, in the type's property names, with every
// group kept; the groups then merge by their values and are cut and
// ordered as the engine cuts and orders one type's (maxGroupCount per
// exact grouping, then the first metric with a direction, else the count,
// then the group values). It stays exact: an average merges sums and
// counts of values, a distinct count merges the values themselves (each
// type groups by them once more, within the group limit).

// typeAggregation is one type's part of an aggregation.
type typeAggregation struct {
	ts      *typeSearch // view, shown, names and filter
	metrics []metricSpec
	groups  []groupSpec
}

// mergedGroup is one group of the merge.
type mergedGroup struct {
	ids     []string // per grouping
	sorts   []any    // per grouping: the value groups order by
	keys    []query.GroupKey
	count   int64
	metrics []metricAccumulator
}

// metricAccumulator merges one metric of one group across types.
type metricAccumulator struct {
	count    int64 // values, for avg
	sum      *big.Int
	fsum     float64
	isFloat  bool
	hasValue bool
	best     any             // min, max
	distinct map[string]bool // exactDistinct, approximateDistinct
}

// aggregateSeveral aggregates a set of several types.
func (s *Server) aggregateSeveral(ctx context.Context, d *setDecoder, set *wire.Set, spec aggregationSpec) (*aggregateResponse, error) {
	if err := checkAccuracy(spec.Accuracy); err != nil {
		return nil, err
	}
	rms, err := parseEach[rawMetric](spec.Aggregation, "aggregation")
	if err != nil {
		return nil, err
	}
	rgs, err := parseEach[rawGroup](spec.GroupBy, "groupBy")
	if err != nil {
		return nil, err
	}
	parts := make([]*typeAggregation, 0, len(set.Types))
	for _, typ := range set.Types {
		ts := &typeSearch{view: d.views[typ], shown: d.views[typ].Type(), filter: set.Filters[typ]}
		if set.Interface != "" {
			var err error
			if ts.shown, ts.names, err = d.InterfaceView(set.Interface, typ); err != nil {
				return nil, err
			}
		}
		metrics, err := resolveMetrics(ts.shown, rms)
		if err != nil {
			return nil, err
		}
		groups, err := resolveGroups(ts.shown, rgs)
		if err != nil {
			return nil, err
		}
		parts = append(parts, &typeAggregation{ts: ts, metrics: metrics, groups: groups})
	}
	if err := sameAggregationTypes(parts); err != nil {
		return nil, err
	}
	merged := map[string]*mergedGroup{}
	first := parts[0]
	for _, p := range parts {
		if err := s.mergeType(ctx, p, merged); err != nil {
			return nil, err
		}
	}
	groups := make([]*mergedGroup, 0, len(merged))
	for _, g := range merged {
		groups = append(groups, g)
	}
	groups = cutGroups(groups, first.groups)
	if lim := s.limits().MaxGroups; lim > 0 && len(groups) > lim {
		return nil, &query.TooManyGroupsError{Groups: len(groups), Limit: lim}
	}
	values := make(map[*mergedGroup][]any, len(groups))
	for _, g := range groups {
		vals := make([]any, len(first.metrics))
		for i, m := range first.metrics {
			vals[i] = g.metrics[i].value(m.Kind, g.count)
		}
		values[g] = vals
	}
	orderGroups(groups, first.metrics, values)
	resp := &aggregateResponse{Accuracy: "ACCURATE", Data: make([]aggregateItem, 0, len(groups))}
	for _, g := range groups {
		item := aggregateItem{Group: map[string]any{}, Metrics: make([]metricResult, 0, len(first.metrics))}
		for i, gs := range first.groups {
			item.Group[gs.prop.APIName] = groupValue(&gs, g.keys[i])
		}
		for i, m := range first.metrics {
			item.Metrics = append(item.Metrics, metricResult{Name: m.name, Value: metricValue(&m, values[g][i])})
		}
		resp.Data = append(resp.Data, item)
	}
	return resp, nil
}

// checkAccuracy checks the accuracy an aggregation asks for: every answer
// is exact, so both are served.
func checkAccuracy(a string) error {
	switch a {
	case "", "REQUIRE_ACCURATE", "ALLOW_APPROXIMATE":
		return nil
	}
	return wire.Err(wire.NameMalformedRequestBody, map[string]any{"reason": "accuracy must be REQUIRE_ACCURATE or ALLOW_APPROXIMATE"})
}

// sameAggregationTypes checks that the properties an aggregation reads
// have one data type in every type: groups of one value must merge.
func sameAggregationTypes(parts []*typeAggregation) error {
	first := parts[0]
	check := func(name string, a, b objects.Property, typ string) error {
		if x, y := objects.WireTypeName(a.Type), objects.WireTypeName(b.Type); x != y {
			return wire.Err(wire.NameInvalidFields, map[string]any{"properties": []string{name}, "reason": fmt.Sprintf("%s is %s in %s and %s in %s; an aggregation over several types needs one data type",
				name, x, first.ts.view.Type().APIName, y, typ)})
		}
		return nil
	}
	for _, p := range parts[1:] {
		typ := p.ts.view.Type().APIName
		for i, m := range p.metrics {
			if m.Property != "" {
				if err := check(m.prop.APIName, first.metrics[i].prop, m.prop, typ); err != nil {
					return err
				}
			}
		}
		for i, g := range p.groups {
			if err := check(g.prop.APIName, first.groups[i].prop, g.prop, typ); err != nil {
				return err
			}
		}
	}
	for _, m := range first.metrics {
		if m.Kind == query.Percentile {
			return wire.Err(wire.NameAggregationMetricNotSupported, map[string]any{"metricType": "approximatePercentile",
				"reason": "approximatePercentile over several object types is not supported"})
		}
		if m.Kind == query.Avg && m.prop.Type.Kind == objects.KindList {
			return wire.Err(wire.NameAggregationMetricNotSupported, map[string]any{"metricType": "avg",
				"reason": "avg of an array property over several object types is not supported"})
		}
	}
	return nil
}

// engineQuery is the type's query of its part, in its names, every group
// kept.
func (p *typeAggregation) engineQuery(s *Server, filter *query.Filter) *query.Aggregate {
	q := &query.Aggregate{Filter: filter, Limits: s.limits()}
	for _, g := range p.groups {
		eg := g.Group
		eg.Property, eg.MaxGroupCount = p.ts.engineName(g.Property), 0
		q.Groups = append(q.Groups, eg)
	}
	return q
}

// mergeType adds one type's groups to the merge.
func (s *Server) mergeType(ctx context.Context, p *typeAggregation, merged map[string]*mergedGroup) error {
	q := p.engineQuery(s, p.ts.filter)
	for _, m := range p.metrics {
		em := query.Metric{Kind: m.Kind, Property: p.ts.engineName(m.Property)}
		switch m.Kind {
		case query.Avg:
			em.Kind = query.Sum // and the values' count, below
		case query.ExactDistinct, query.ApproximateDistinct:
			em = query.Metric{Kind: query.Count} // the values, below
		}
		q.Metrics = append(q.Metrics, em)
	}
	res, err := p.ts.view.Aggregate(ctx, q)
	if err != nil {
		return err
	}
	for _, gr := range res.Groups {
		g := groupOf(merged, p.groups, len(p.metrics), gr.Keys)
		g.count += gr.Count
		for i, m := range p.metrics {
			g.metrics[i].add(m.Kind, gr.Metrics[i])
		}
	}
	for i, m := range p.metrics {
		switch m.Kind {
		case query.Avg:
			// The values counted: the objects whose value is not null.
			prop := p.ts.engineName(m.Property)
			cq := p.engineQuery(s, query.And(p.ts.filter, query.Not(&query.Filter{Op: query.OpIsNull, Property: prop, Value: true})))
			cq.Metrics = []query.Metric{{Kind: query.Count}}
			cres, err := p.ts.view.Aggregate(ctx, cq)
			if err != nil {
				return err
			}
			for _, gr := range cres.Groups {
				groupOf(merged, p.groups, len(p.metrics), gr.Keys).metrics[i].count += gr.Count
			}
		case query.ExactDistinct, query.ApproximateDistinct:
			// The values themselves: one more exact grouping by them.
			dq := p.engineQuery(s, p.ts.filter)
			dq.Groups = append(dq.Groups, query.Group{Kind: query.Exact, Property: p.ts.engineName(m.Property)})
			dq.Metrics = []query.Metric{{Kind: query.Count}}
			dres, err := p.ts.view.Aggregate(ctx, dq)
			if err != nil {
				return err
			}
			for _, gr := range dres.Groups {
				n := len(gr.Keys) - 1
				acc := &groupOf(merged, p.groups, len(p.metrics), gr.Keys[:n]).metrics[i]
				if acc.distinct == nil {
					acc.distinct = map[string]bool{}
				}
				acc.distinct[groupID(query.Exact, gr.Keys[n])] = true
			}
		}
	}
	return nil
}

// groupOf is the merged group of keys, made on first sight.
func groupOf(merged map[string]*mergedGroup, groups []groupSpec, metrics int, keys []query.GroupKey) *mergedGroup {
	ids := make([]string, len(keys))
	for i, k := range keys {
		ids[i] = groupID(groups[i].Kind, k)
	}
	id := strings.Join(ids, "\x00")
	g, ok := merged[id]
	if !ok {
		g = &mergedGroup{ids: ids, keys: keys, sorts: make([]any, len(keys)), metrics: make([]metricAccumulator, metrics)}
		for i, k := range keys {
			g.sorts[i] = groupSort(groups[i].Kind, k)
		}
		merged[id] = g
	}
	return g
}

// groupID is the identity of a group's value of one grouping.
func groupID(kind query.GroupKind, k query.GroupKey) string {
	switch {
	case kind == query.FixedWidth:
		return "w" + strconv.FormatFloat(k.Start, 'g', -1, 64)
	case kind == query.Ranges:
		return "r" + strconv.Itoa(k.Range)
	case k.IsDefault:
		return "d"
	case k.Value == nil:
		return "n"
	}
	switch v := k.Value.(type) { // the common kinds without fmt, spelled as below
	case string:
		return "vstring:" + v
	case int64:
		return "vint64:" + strconv.FormatInt(v, 10)
	case bool:
		return "vbool:" + strconv.FormatBool(v)
	}
	return fmt.Sprintf("v%T:%s", k.Value, objects.TextOf(k.Value))
}

// groupSort is the value groups of one grouping order by (nil last).
func groupSort(kind query.GroupKind, k query.GroupKey) any {
	switch {
	case kind == query.FixedWidth:
		return k.Start
	case kind == query.Ranges:
		return k.Range
	case k.IsDefault:
		return "\x00default"
	}
	return k.Value
}
