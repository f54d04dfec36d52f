package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net/http"
	"strconv"

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// Aggregations are decoded here and computed by the engine from its
// columns (package index): exactly, so the accuracy is ACCURATE, except an
// approximatePercentile of a group past the engine's exact bound, which
// comes from a sketch and makes the response APPROXIMATE (never under
// REQUIRE_ACCURATE; aggregate_duration.go).
//
// Groups: exact (one group per value, array elements each; nulls are left
// out unless includeNullValues, or grouped under defaultValue;
// maxGroupCount keeps the values with most objects), fixedWidth (numeric:
// [k*w, (k+1)*w)) and ranges (numeric, date, timestamp: [startValue,
// endValue), either bound may be absent), duration (date, timestamp: UTC
// buckets, valued by their start). Several groupBys group by every
// combination. Groups are ordered by the first metric that has a
// direction, else by object count (descending), then by group value.

// aggregationSpec is what both aggregate requests ask to compute.
type aggregationSpec struct {
	Aggregation []json.RawMessage `json:"aggregation"`
	GroupBy     []json.RawMessage `json:"groupBy"`
	Accuracy    string            `json:"accuracy"`
}

type aggregateRequest struct {
	aggregationSpec
	Where json.RawMessage `json:"where"`
}

type aggregateSetRequest struct {
	aggregationSpec
	ObjectSet       json.RawMessage `json:"objectSet"`
	TransactionID   string          `json:"transactionId"`
	IncludeComputes json.RawMessage `json:"includeComputeUsage"`
}

// metricSpec is a decoded metric: the engine's, with its wire name.
type metricSpec struct {
	query.Metric
	name string
	prop objects.Property
}

// groupSpec is a decoded grouping; ranges keep the bounds as the client
// gave them, which group values repeat.
type groupSpec struct {
	query.Group
	prop   objects.Property
	ranges []aggRange
}

type aggRange struct {
	loJ, hiJ any // nil is open
}

var metricKinds = map[string]query.MetricKind{
	"count": query.Count, "min": query.Min, "max": query.Max, "avg": query.Avg, "sum": query.Sum,
	"exactDistinct": query.ExactDistinct, "approximateDistinct": query.ApproximateDistinct,
	"approximatePercentile": query.Percentile,
}

var groupKinds = map[string]query.GroupKind{"exact": query.Exact, "fixedWidth": query.FixedWidth, "ranges": query.Ranges, "duration": query.Duration}

type rawMetric struct {
	Type                  string          `json:"type"`
	Field                 *string         `json:"field"`
	PropertyIdentifier    json.RawMessage `json:"propertyIdentifier"`
	Name                  string          `json:"name"`
	Direction             string          `json:"direction"`
	ApproximatePercentile json.RawMessage `json:"approximatePercentile"`
}

type rawGroup struct {
	Type               string          `json:"type"`
	Field              *string         `json:"field"`
	PropertyIdentifier json.RawMessage `json:"propertyIdentifier"`
	MaxGroupCount      *int            `json:"maxGroupCount"`
	DefaultValue       *string         `json:"defaultValue"`
	IncludeNullValues  bool            `json:"includeNullValues"`
	FixedWidth         *float64        `json:"fixedWidth"`
	Ranges             []struct {
		StartValue json.RawMessage `json:"startValue"`
		EndValue   json.RawMessage `json:"endValue"`
	} `json:"ranges"`
	Value json.RawMessage `json:"value"`
	Unit  json.RawMessage `json:"unit"`
}

func strictDecode(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func aggProperty(t *objects.Type, what string, field *string, pi json.RawMessage) (objects.Property, error) {
	var name string
	switch {
	case field != nil && pi != nil:
		return objects.Property{}, wire.Err(wire.NameMalformedRequestBody, map[string]any{"reason": what + ": give either field or propertyIdentifier, not both"})
	case field != nil:
		name = *field
	case pi != nil:
		n, err := wire.DecodePropertyIdentifier(what, pi)
		if err != nil {
			return objects.Property{}, err
		}
		name = n
	default:
		return objects.Property{}, wire.Err(wire.NameMalformedRequestBody, map[string]any{"reason": what + " needs field or propertyIdentifier"})
	}
	return wire.LookupProperty(t, name)
}

func wrongType(p objects.Property, what string) *wire.Error {
	return wire.Err(wire.NameInvalidPropertyType, map[string]any{"property": p.APIName, "propertyBaseType": dataType(p.Type.Primitive())["type"],
		"reason": fmt.Sprintf("%s does not apply to property %s of type %s", what, p.APIName, p.Type)})
}

func decodeMetrics(t *objects.Type, raws []json.RawMessage) ([]metricSpec, error) {
	rms, err := parseEach[rawMetric](raws, "aggregation")
	if err != nil {
		return nil, err
	}
	return resolveMetrics(t, rms)
}

// parseEach reads each element of an aggregation's list (what names the
// list), not yet resolved against a type: an aggregation over several
// types reads its metrics and groupings once.
func parseEach[T any](raws []json.RawMessage, what string) ([]T, error) {
	out := make([]T, len(raws))
	for i, raw := range raws {
		if err := strictDecode(raw, &out[i]); err != nil {
			return nil, wire.Err(wire.NameMalformedRequestBody, map[string]any{"reason": what + ": " + jsonReason(err)})
		}
	}
	return out, nil
}

// resolveMetrics resolves parsed metrics against type t.
func resolveMetrics(t *objects.Type, rms []rawMetric) ([]metricSpec, error) {
	var out []metricSpec
	names := map[string]bool{}
	for _, rm := range rms {
		m := metricSpec{Metric: query.Metric{Kind: metricKinds[rm.Type]}, name: rm.Name}
		switch rm.Type {
		case "count":
			if rm.Field != nil || rm.PropertyIdentifier != nil {
				return nil, wire.Err(wire.NameMalformedRequestBody, map[string]any{"reason": "count takes no field"})
			}
			if m.name == "" {
				m.name = "count"
			}
		case "min", "max", "avg", "sum", "exactDistinct", "approximateDistinct":
			p, err := aggProperty(t, rm.Type, rm.Field, rm.PropertyIdentifier)
			if err != nil {
				return nil, err
			}
			k := p.Type.Primitive().Kind
			switch rm.Type {
			case "min", "max":
				if !k.Numeric() && !k.DateLike() {
					return nil, wrongType(p, rm.Type)
				}
			case "avg", "sum":
				if !k.Numeric() {
					return nil, wrongType(p, rm.Type)
				}
			}
			m.prop, m.Property = p, p.APIName
			if m.name == "" {
				m.name = p.APIName + "." + rm.Type
			}
		case "approximatePercentile":
			p, err := aggProperty(t, rm.Type, rm.Field, rm.PropertyIdentifier)
			if err != nil {
				return nil, err
			}
			if err := decodePercentile(p, rm.ApproximatePercentile, &m.Metric); err != nil {
				return nil, err
			}
			m.prop, m.Property = p, p.APIName
			if m.name == "" {
				m.name = p.APIName + "." + rm.Type
			}
		default:
			return nil, wire.Err(wire.NameAggregationMetricNotSupported, map[string]any{"metricType": rm.Type, "reason": "unknown metric type"})
		}
		switch rm.Direction {
		case "":
		case "ASC", "asc":
			m.Order = 1
		case "DESC", "desc":
			m.Order = -1
		default:
			return nil, wire.InvalidSortOrder(m.name, rm.Direction)
		}
		if names[m.name] {
			return nil, wire.Err(wire.NameMalformedRequestBody, map[string]any{"reason": fmt.Sprintf("two metrics are named %q", m.name)})
		}
		names[m.name] = true
		out = append(out, m)
	}
	return out, nil
}

func decodeGroups(t *objects.Type, raws []json.RawMessage) ([]groupSpec, error) {
	rgs, err := parseEach[rawGroup](raws, "groupBy")
	if err != nil {
		return nil, err
	}
	return resolveGroups(t, rgs)
}

// resolveGroups resolves parsed groupings against type t.
func resolveGroups(t *objects.Type, rgs []rawGroup) ([]groupSpec, error) {
	var out []groupSpec
	seen := map[string]bool{}
	for i := range rgs {
		rg := &rgs[i]
		if groupKinds[rg.Type] == 0 {
			return nil, wire.Err(wire.NameAggregationGroupByNotSupported, map[string]any{"groupByType": rg.Type, "reason": "groupBy types are exact, fixedWidth, ranges and duration"})
		}
		p, err := aggProperty(t, rg.Type, rg.Field, rg.PropertyIdentifier)
		if err != nil {
			return nil, err
		}
		if seen[p.APIName] {
			return nil, wire.Err(wire.NameMultipleGroupByOnFieldNotSupported, map[string]any{"duplicateFields": []string{p.APIName}})
		}
		seen[p.APIName] = true
		g := groupSpec{Group: query.Group{Kind: groupKinds[rg.Type], Property: p.APIName}, prop: p}
		k := p.Type.Primitive().Kind
		switch rg.Type {
		case "exact":
			if rg.MaxGroupCount != nil {
				if *rg.MaxGroupCount < 1 {
					return nil, wire.Err(wire.NameMalformedRequestBody, map[string]any{"reason": "maxGroupCount must be positive"})
				}
				g.MaxGroupCount = *rg.MaxGroupCount
			}
			if rg.DefaultValue != nil && rg.IncludeNullValues {
				return nil, wire.Err(wire.NameDefaultAndNullGroupsNotSupported, nil)
			}
			g.Default, g.IncludeNull = rg.DefaultValue, rg.IncludeNullValues
		case "fixedWidth":
			if !k.Numeric() {
				return nil, wrongType(p, "fixedWidth grouping")
			}
			if rg.FixedWidth == nil || !(*rg.FixedWidth > 0) || math.IsInf(*rg.FixedWidth, 0) {
				return nil, wire.Err(wire.NameInvalidAggregationRange, map[string]any{"reason": "fixedWidth must be a positive number"})
			}
			g.Width = *rg.FixedWidth
		case "duration":
			if err := decodeDuration(t, p, rg, &g.Group); err != nil {
				return nil, err
			}
		case "ranges":
			if !k.Numeric() && !k.DateLike() {
				return nil, wire.Err(wire.NameInvalidAggregationRangePropertyType, map[string]any{"property": p.APIName, "objectType": t.APIName,
					"propertyBaseType": dataType(p.Type.Primitive())["type"]})
			}
			if len(rg.Ranges) == 0 {
				return nil, wire.Err(wire.NameInvalidAggregationRange, map[string]any{"reason": "ranges needs at least one range"})
			}
			for _, rr := range rg.Ranges {
				var ar aggRange
				var qr query.Range
				for i, raw := range []json.RawMessage{rr.StartValue, rr.EndValue} {
					if wire.IsNull(raw) {
						continue
					}
					v, err := wire.ParseValue(p, "ranges", raw)
					if err != nil {
						return nil, wire.Err(wire.NameInvalidAggregationRangeValue, map[string]any{"property": p.APIName, "objectType": t.APIName,
							"propertyBaseType": dataType(p.Type.Primitive())["type"]})
					}
					if i == 0 {
						qr.Start, ar.loJ = v, objects.JSONValue(p.Type.Primitive(), v)
					} else {
						qr.End, ar.hiJ = v, objects.JSONValue(p.Type.Primitive(), v)
					}
				}
				if qr.Start == nil && qr.End == nil {
					return nil, wire.Err(wire.NameInvalidAggregationRange, map[string]any{"reason": "a range needs startValue, endValue or both"})
				}
				g.Ranges = append(g.Ranges, qr)
				g.ranges = append(g.ranges, ar)
			}
		}
		out = append(out, g)
	}
	return out, nil
}

type metricResult struct {
	Name  string `json:"name"`
	Value any    `json:"value,omitempty"`
}

type aggregateItem struct {
	Group   map[string]any `json:"group"`
	Metrics []metricResult `json:"metrics"`
}

type aggregateResponse struct {
	Accuracy string          `json:"accuracy"`
	Data     []aggregateItem `json:"data"`
}

// aggregate runs an aggregation over the objects f matches.
func (s *Server) aggregate(ctx context.Context, v *indexer.View, f *query.Filter, spec aggregationSpec) (*aggregateResponse, error) {
	if err := checkAccuracy(spec.Accuracy); err != nil {
		return nil, err
	}
	t := v.Type()
	metrics, err := decodeMetrics(t, spec.Aggregation)
	if err != nil {
		return nil, err
	}
	groups, err := decodeGroups(t, spec.GroupBy)
	if err != nil {
		return nil, err
	}
	q := &query.Aggregate{Filter: f, Limits: s.limits(), ExactPercentileValues: exactPercentileValues(spec.Accuracy)}
	for _, m := range metrics {
		q.Metrics = append(q.Metrics, m.Metric)
	}
	for _, g := range groups {
		q.Groups = append(q.Groups, g.Group)
	}
	res, err := v.Aggregate(ctx, q)
	if err != nil {
		return nil, err
	}
	return responseOf(metrics, groups, res), nil
}

// responseOf is the wire response of an aggregation's result.
func responseOf(metrics []metricSpec, groups []groupSpec, res *query.AggregateResult) *aggregateResponse {
	resp := &aggregateResponse{Accuracy: accuracyOf(res), Data: make([]aggregateItem, 0, len(res.Groups))}
	for _, gr := range res.Groups {
		item := aggregateItem{Group: map[string]any{}, Metrics: make([]metricResult, 0, len(metrics))}
		for i, g := range groups {
			item.Group[g.prop.APIName] = groupValue(&g, gr.Keys[i])
		}
		for i, m := range metrics {
			item.Metrics = append(item.Metrics, metricResult{Name: m.name, Value: metricValue(&m, gr.Metrics[i])})
		}
		resp.Data = append(resp.Data, item)
	}
	return resp
}

// groupValue is a group's value of one grouping on the wire.
func groupValue(g *groupSpec, k query.GroupKey) any {
	switch g.Kind {
	case query.FixedWidth:
		return map[string]any{"startValue": k.Start, "endValue": k.End}
	case query.Ranges:
		r := g.ranges[k.Range]
		out := map[string]any{}
		if r.loJ != nil {
			out["startValue"] = r.loJ
		}
		if r.hiJ != nil {
			out["endValue"] = r.hiJ
		}
		return out
	}
	if k.IsDefault {
		return *g.Default
	}
	return objects.JSONValue(g.prop.Type.Primitive(), k.Value)
}

// metricValue renders a metric value: integer sums keep their digits.
func metricValue(m *metricSpec, v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case int64:
		if m.Kind == query.Sum {
			return json.Number(strconv.FormatInt(x, 10))
		}
		return x
	case *big.Int:
		return json.Number(x.String())
	case float64:
		if m.Kind == query.Sum || m.Kind == query.Avg || m.Kind == query.Percentile {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return strconv.FormatFloat(x, 'g', -1, 64) // not a JSON number
			}
			return x
		}
	}
	return objects.JSONValue(m.prop.Type.Primitive(), v)
}

// aggregateObjects is POST /objects/{objectType}/aggregate.
func (s *Server) aggregateObjects(r *http.Request) (any, error) {
	v, err := s.typeView(r)
	if err != nil {
		return nil, err
	}
	defer v.Release()
	var req aggregateRequest
	if err := s.readBody(r, &req); err != nil {
		return nil, err
	}
	where, err := s.where(v.Type(), req.Where)
	if err != nil {
		return nil, err
	}
	return s.aggregate(r.Context(), v, where, req.aggregationSpec)
}

// aggregateObjectSet is POST /objectSets/aggregate.
func (s *Server) aggregateObjectSet(r *http.Request) (any, error) {
	if err := s.checkOntology(r); err != nil {
		return nil, err
	}
	var req aggregateSetRequest
	if err := s.readBody(r, &req); err != nil {
		return nil, err
	}
	if req.TransactionID != "" {
		return nil, refusedParameter("transactionId", req.TransactionID)
	}
	d, set, err := s.decodeSet(r, req.ObjectSet, "aggregate", nil)
	if err != nil {
		return nil, err
	}
	defer d.release()
	if set.Derived != nil {
		return s.aggregateDerived(r.Context(), d, set, req.aggregationSpec)
	}
	if set.Empty() {
		return nil, wire.Err(wire.NameUnsupportedObjectSet, map[string]any{"reason": "the object set names no object type (an empty static set)"})
	}
	if len(set.Types) > 1 || set.Interface != "" {
		return s.aggregateSeveral(r.Context(), d, set, req.aggregationSpec)
	}
	return s.aggregate(r.Context(), d.views[set.Types[0]], set.Filters[set.Types[0]], req.aggregationSpec)
}
