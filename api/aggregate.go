package api

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/objects"
)

// Aggregations are computed exactly from the stored objects of the matching
// set (the index selects the objects, the store gives their exact values),
// so the accuracy is always ACCURATE.
//
// Groups: exact (one group per value, array elements each; nulls are left
// out unless includeNullValues, or grouped under defaultValue;
// maxGroupCount keeps the values with most objects), fixedWidth (numeric:
// [k*w, (k+1)*w)) and ranges (numeric, date, timestamp: [startValue,
// endValue), either bound may be absent). Several groupBys group by every
// combination. Groups are ordered by the first metric that has a
// direction, else by object count (descending), then by group value.

type aggregateRequest struct {
	Aggregation []json.RawMessage `json:"aggregation"`
	Where       json.RawMessage   `json:"where"`
	GroupBy     []json.RawMessage `json:"groupBy"`
	Accuracy    string            `json:"accuracy"`
}

type aggregateSetRequest struct {
	ObjectSet       json.RawMessage   `json:"objectSet"`
	Aggregation     []json.RawMessage `json:"aggregation"`
	GroupBy         []json.RawMessage `json:"groupBy"`
	Accuracy        string            `json:"accuracy"`
	TransactionID   string            `json:"transactionId"`
	IncludeComputes json.RawMessage   `json:"includeComputeUsage"`
}

type metricSpec struct {
	kind string
	name string
	prop objects.Property
	idx  int
	desc *bool
}

type aggRange struct {
	lo, hi   any // typed bounds; nil is open
	loJ, hiJ any // the bounds as the client gave them
}

type groupSpec struct {
	kind          string
	prop          objects.Property
	idx           int
	maxGroupCount int
	includeNull   bool
	defaultValue  *string
	width         float64
	ranges        []aggRange
}

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

func aggProperty(t *objects.Type, what string, field *string, pi json.RawMessage) (objects.Property, int, error) {
	var name string
	switch {
	case field != nil && pi != nil:
		return objects.Property{}, 0, apiErr("MalformedRequestBody", map[string]any{"reason": what + ": give either field or propertyIdentifier, not both"})
	case field != nil:
		name = *field
	case pi != nil:
		n, err := decodePropertyIdentifier(what, pi)
		if err != nil {
			return objects.Property{}, 0, err
		}
		name = n
	default:
		return objects.Property{}, 0, apiErr("MalformedRequestBody", map[string]any{"reason": what + " needs field or propertyIdentifier"})
	}
	p, err := lookupProperty(t, name)
	if err != nil {
		return p, 0, err
	}
	return p, t.PropertyIndex(name), nil
}

func isNumericKind(k objects.Kind) bool {
	switch k {
	case objects.KindInteger, objects.KindLong, objects.KindFloat, objects.KindDouble, objects.KindDecimal:
		return true
	}
	return false
}

func isDateKind(k objects.Kind) bool {
	return k == objects.KindDate || k == objects.KindTimestamp || k == objects.KindTimestampTZ
}

func wrongType(p objects.Property, what string) *Error {
	return apiErr("InvalidPropertyType", map[string]any{"property": p.APIName, "propertyBaseType": dataType(p.Type.Primitive())["type"],
		"reason": fmt.Sprintf("%s does not apply to property %s of type %s", what, p.APIName, p.Type)})
}

func decodeMetrics(t *objects.Type, raws []json.RawMessage) ([]metricSpec, error) {
	var out []metricSpec
	names := map[string]bool{}
	for _, raw := range raws {
		var rm rawMetric
		if err := strictDecode(raw, &rm); err != nil {
			return nil, apiErr("MalformedRequestBody", map[string]any{"reason": "aggregation: " + jsonReason(err)})
		}
		m := metricSpec{kind: rm.Type, name: rm.Name}
		switch rm.Type {
		case "count":
			if rm.Field != nil || rm.PropertyIdentifier != nil {
				return nil, apiErr("MalformedRequestBody", map[string]any{"reason": "count takes no field"})
			}
			if m.name == "" {
				m.name = "count"
			}
		case "min", "max", "avg", "sum", "exactDistinct", "approximateDistinct":
			p, idx, err := aggProperty(t, rm.Type, rm.Field, rm.PropertyIdentifier)
			if err != nil {
				return nil, err
			}
			k := p.Type.Primitive().Kind
			switch rm.Type {
			case "min", "max":
				if !isNumericKind(k) && !isDateKind(k) {
					return nil, wrongType(p, rm.Type)
				}
			case "avg", "sum":
				if !isNumericKind(k) {
					return nil, wrongType(p, rm.Type)
				}
			}
			m.prop, m.idx = p, idx
			if m.name == "" {
				m.name = p.APIName + "." + rm.Type
			}
		case "approximatePercentile":
			return nil, apiErr("AggregationMetricNotSupported", map[string]any{"metricType": rm.Type})
		default:
			return nil, apiErr("AggregationMetricNotSupported", map[string]any{"metricType": rm.Type, "reason": "unknown metric type"})
		}
		switch rm.Direction {
		case "":
		case "ASC", "asc":
			m.desc = ptr(false)
		case "DESC", "desc":
			m.desc = ptr(true)
		default:
			return nil, apiErr("InvalidSortOrder", map[string]any{"invalidSortOrder": rm.Direction})
		}
		if names[m.name] {
			return nil, apiErr("MalformedRequestBody", map[string]any{"reason": fmt.Sprintf("two metrics are named %q", m.name)})
		}
		names[m.name] = true
		out = append(out, m)
	}
	return out, nil
}

func decodeGroups(t *objects.Type, raws []json.RawMessage) ([]groupSpec, error) {
	var out []groupSpec
	seen := map[string]bool{}
	for _, raw := range raws {
		var rg rawGroup
		if err := strictDecode(raw, &rg); err != nil {
			return nil, apiErr("MalformedRequestBody", map[string]any{"reason": "groupBy: " + jsonReason(err)})
		}
		if rg.Type == "duration" {
			return nil, apiErr("AggregationGroupByNotSupported", map[string]any{"groupByType": rg.Type, "reason": "use ranges over the date or timestamp property"})
		}
		if rg.Type != "exact" && rg.Type != "fixedWidth" && rg.Type != "ranges" {
			return nil, apiErr("AggregationGroupByNotSupported", map[string]any{"groupByType": rg.Type, "reason": "groupBy types are exact, fixedWidth and ranges"})
		}
		p, idx, err := aggProperty(t, rg.Type, rg.Field, rg.PropertyIdentifier)
		if err != nil {
			return nil, err
		}
		if seen[p.APIName] {
			return nil, apiErr("MultipleGroupByOnFieldNotSupported", map[string]any{"duplicateFields": []string{p.APIName}})
		}
		seen[p.APIName] = true
		g := groupSpec{kind: rg.Type, prop: p, idx: idx}
		k := p.Type.Primitive().Kind
		switch rg.Type {
		case "exact":
			if rg.MaxGroupCount != nil {
				if *rg.MaxGroupCount < 1 {
					return nil, apiErr("MalformedRequestBody", map[string]any{"reason": "maxGroupCount must be positive"})
				}
				g.maxGroupCount = *rg.MaxGroupCount
			}
			if rg.DefaultValue != nil && rg.IncludeNullValues {
				return nil, apiErr("DefaultAndNullGroupsNotSupported", nil)
			}
			g.defaultValue, g.includeNull = rg.DefaultValue, rg.IncludeNullValues
		case "fixedWidth":
			if !isNumericKind(k) {
				return nil, wrongType(p, "fixedWidth grouping")
			}
			if rg.FixedWidth == nil || !(*rg.FixedWidth > 0) || math.IsInf(*rg.FixedWidth, 0) {
				return nil, apiErr("InvalidAggregationRange", map[string]any{"reason": "fixedWidth must be a positive number"})
			}
			g.width = *rg.FixedWidth
		case "ranges":
			if !isNumericKind(k) && !isDateKind(k) {
				return nil, apiErr("InvalidAggregationRangePropertyType", map[string]any{"property": p.APIName, "objectType": t.APIName,
					"propertyBaseType": dataType(p.Type.Primitive())["type"]})
			}
			if len(rg.Ranges) == 0 {
				return nil, apiErr("InvalidAggregationRange", map[string]any{"reason": "ranges needs at least one range"})
			}
			for _, rr := range rg.Ranges {
				var ar aggRange
				for i, raw := range []json.RawMessage{rr.StartValue, rr.EndValue} {
					if isNull(raw) {
						continue
					}
					v, err := parseValue(p, "ranges", raw)
					if err != nil {
						return nil, apiErr("InvalidAggregationRangeValue", map[string]any{"property": p.APIName, "objectType": t.APIName,
							"propertyBaseType": dataType(p.Type.Primitive())["type"]})
					}
					if i == 0 {
						ar.lo, ar.loJ = v, objects.JSONValue(p.Type.Primitive(), v)
					} else {
						ar.hi, ar.hiJ = v, objects.JSONValue(p.Type.Primitive(), v)
					}
				}
				if ar.lo == nil && ar.hi == nil {
					return nil, apiErr("InvalidAggregationRange", map[string]any{"reason": "a range needs startValue, endValue or both"})
				}
				g.ranges = append(g.ranges, ar)
			}
		}
		out = append(out, g)
	}
	return out, nil
}

// groupVal is the value of one grouping for one object.
type groupVal struct {
	key  string // identifies the group
	sort any    // orders groups: typed value, or range start
	json any    // the value on the wire
}

// sortable numbers of values: float64 for numbers, Unix nanoseconds for
// dates and timestamps.
func numberOf(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case objects.Decimal:
		return x.Float64(), true
	case objects.Date:
		return float64(x.Time().UnixNano()), true
	case time.Time:
		return float64(x.UnixNano()), true
	}
	return 0, false
}

func elements(v any) []any {
	if list, ok := v.([]any); ok {
		out := list[:0:0]
		for _, e := range list {
			if e != nil {
				out = append(out, e)
			}
		}
		return out
	}
	if v == nil {
		return nil
	}
	return []any{v}
}

func (g *groupSpec) values(o *objects.Object) []groupVal {
	els := elements(o.Values[g.idx])
	et := g.prop.Type.Primitive()
	switch g.kind {
	case "exact":
		if len(els) == 0 {
			switch {
			case g.defaultValue != nil:
				return []groupVal{{key: "s" + *g.defaultValue, sort: *g.defaultValue, json: *g.defaultValue}}
			case g.includeNull:
				return []groupVal{{key: "n", sort: nil, json: nil}}
			}
			return nil
		}
		out := make([]groupVal, 0, len(els))
		for _, e := range els {
			out = append(out, groupVal{key: "v" + objects.TextOf(e), sort: e, json: objects.JSONValue(et, e)})
		}
		return out
	case "fixedWidth":
		out := make([]groupVal, 0, len(els))
		for _, e := range els {
			f, _ := numberOf(e)
			lo := math.Floor(f/g.width) * g.width
			out = append(out, groupVal{key: "f" + strconv.FormatFloat(lo, 'g', -1, 64), sort: lo,
				json: map[string]any{"startValue": lo, "endValue": lo + g.width}})
		}
		return out
	}
	var out []groupVal
	for _, e := range els {
		f, _ := numberOf(e)
		for i, r := range g.ranges {
			if r.lo != nil {
				if lo, _ := numberOf(r.lo); f < lo {
					continue
				}
			}
			if r.hi != nil {
				if hi, _ := numberOf(r.hi); f >= hi {
					continue
				}
			}
			j := map[string]any{}
			if r.lo != nil {
				j["startValue"] = r.loJ
			}
			if r.hi != nil {
				j["endValue"] = r.hiJ
			}
			out = append(out, groupVal{key: "r" + strconv.Itoa(i), sort: i, json: j})
		}
	}
	return out
}

type metricAcc struct {
	n        int64
	sumF     float64
	sumI     *big.Int
	min, max any
	distinct map[string]struct{}
}

type groupAcc struct {
	vals  []groupVal
	count int64
	m     []metricAcc
}

// compareValues orders two typed values of one property type.
func compareValues(a, b any) int {
	switch x := a.(type) {
	case int64:
		return cmp.Compare(x, b.(int64))
	case float64:
		return cmp.Compare(x, b.(float64))
	case objects.Decimal:
		y := b.(objects.Decimal)
		xr := new(big.Rat).SetFrac(x.Unscaled, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(x.Scale)), nil))
		yr := new(big.Rat).SetFrac(y.Unscaled, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(y.Scale)), nil))
		return xr.Cmp(yr)
	case objects.Date:
		return cmp.Compare(x, b.(objects.Date))
	case time.Time:
		return x.Compare(b.(time.Time))
	case string:
		return cmp.Compare(x, b.(string))
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	}
	return cmp.Compare(objects.TextOf(a), objects.TextOf(b))
}

func (acc *metricAcc) add(m *metricSpec, v any) {
	acc.n++
	switch m.kind {
	case "min":
		if acc.min == nil || compareValues(v, acc.min) < 0 {
			acc.min = v
		}
	case "max":
		if acc.max == nil || compareValues(v, acc.max) > 0 {
			acc.max = v
		}
	case "sum", "avg":
		if i, ok := v.(int64); ok {
			if acc.sumI == nil {
				acc.sumI = new(big.Int)
			}
			acc.sumI.Add(acc.sumI, big.NewInt(i))
		}
		f, _ := numberOf(v)
		acc.sumF += f
	case "exactDistinct", "approximateDistinct":
		if acc.distinct == nil {
			acc.distinct = map[string]struct{}{}
		}
		acc.distinct[objects.TextOf(v)] = struct{}{}
	}
}

func (acc *metricAcc) value(m *metricSpec, count int64) any {
	et := m.prop.Type.Primitive()
	switch m.kind {
	case "count":
		return count
	case "min":
		return objects.JSONValue(et, acc.min)
	case "max":
		return objects.JSONValue(et, acc.max)
	case "sum":
		if acc.n == 0 {
			return nil
		}
		if acc.sumI != nil && (et.Kind == objects.KindInteger || et.Kind == objects.KindLong) {
			return json.Number(acc.sumI.String())
		}
		return acc.sumF
	case "avg":
		if acc.n == 0 {
			return nil
		}
		if acc.sumI != nil && (et.Kind == objects.KindInteger || et.Kind == objects.KindLong) {
			f, _ := new(big.Rat).SetFrac(acc.sumI, big.NewInt(acc.n)).Float64()
			return f
		}
		return acc.sumF / float64(acc.n)
	}
	return len(acc.distinct)
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

// aggregator accumulates the groups and metrics of an aggregation.
type aggregator struct {
	metrics []metricSpec
	groups  []groupSpec
	limit   int
	acc     map[string]*groupAcc
}

func (a *aggregator) add(o *objects.Object) error {
	combos := [][]groupVal{nil}
	for i := range a.groups {
		vals := a.groups[i].values(o)
		if len(vals) == 0 {
			return nil
		}
		next := make([][]groupVal, 0, len(combos)*len(vals))
		for _, c := range combos {
			for _, v := range vals {
				next = append(next, append(slices.Clip(c), v))
			}
		}
		combos = next
	}
	for _, c := range combos {
		var key bytes.Buffer
		for _, v := range c {
			key.WriteString(strconv.Quote(v.key))
		}
		g := a.acc[key.String()]
		if g == nil {
			if len(a.acc) >= a.limit {
				return apiErr("AggregationGroupCountExceededLimit", map[string]any{"groupsCount": len(a.acc) + 1, "groupsLimit": a.limit})
			}
			g = &groupAcc{vals: c, m: make([]metricAcc, len(a.metrics))}
			a.acc[key.String()] = g
		}
		g.count++
		for i := range a.metrics {
			m := &a.metrics[i]
			if m.kind == "count" {
				continue
			}
			for _, e := range elements(o.Values[m.idx]) {
				g.m[i].add(m, e)
			}
		}
	}
	return nil
}

func compareGroupVals(a, b []groupVal) int {
	for i := range a {
		x, y := a[i].sort, b[i].sort
		switch {
		case x == nil && y == nil:
			continue
		case x == nil:
			return 1
		case y == nil:
			return -1
		}
		var c int
		if fmt.Sprintf("%T", x) == fmt.Sprintf("%T", y) {
			c = compareValues(x, y)
		} else {
			c = cmp.Compare(a[i].key, b[i].key)
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

func (a *aggregator) result() aggregateResponse {
	groups := make([]*groupAcc, 0, len(a.acc))
	for _, g := range a.acc {
		groups = append(groups, g)
	}
	// maxGroupCount keeps the values of a grouping with most objects.
	for gi, gs := range a.groups {
		if gs.maxGroupCount == 0 {
			continue
		}
		totals := map[string]int64{}
		first := map[string][]groupVal{}
		for _, g := range groups {
			totals[g.vals[gi].key] += g.count
			first[g.vals[gi].key] = g.vals
		}
		if len(totals) <= gs.maxGroupCount {
			continue
		}
		keys := make([]string, 0, len(totals))
		for k := range totals {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(x, y string) int {
			if c := cmp.Compare(totals[y], totals[x]); c != 0 {
				return c
			}
			return compareGroupVals(first[x][gi:gi+1], first[y][gi:gi+1])
		})
		keep := map[string]bool{}
		for _, k := range keys[:gs.maxGroupCount] {
			keep[k] = true
		}
		groups = slices.DeleteFunc(groups, func(g *groupAcc) bool { return !keep[g.vals[gi].key] })
	}
	orderBy := -1
	for i, m := range a.metrics {
		if m.desc != nil {
			orderBy = i
			break
		}
	}
	slices.SortFunc(groups, func(x, y *groupAcc) int {
		if orderBy >= 0 {
			m := &a.metrics[orderBy]
			c := compareMetric(x.m[orderBy].value(m, x.count), y.m[orderBy].value(m, y.count))
			if *m.desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		} else if c := cmp.Compare(y.count, x.count); c != 0 {
			return c
		}
		return compareGroupVals(x.vals, y.vals)
	})
	resp := aggregateResponse{Accuracy: "ACCURATE", Data: make([]aggregateItem, 0, len(groups))}
	for _, g := range groups {
		item := aggregateItem{Group: map[string]any{}, Metrics: make([]metricResult, 0, len(a.metrics))}
		for i, gs := range a.groups {
			item.Group[gs.prop.APIName] = g.vals[i].json
		}
		for i := range a.metrics {
			item.Metrics = append(item.Metrics, metricResult{Name: a.metrics[i].name, Value: g.m[i].value(&a.metrics[i], g.count)})
		}
		resp.Data = append(resp.Data, item)
	}
	return resp
}

// compareMetric orders metric values (numbers, or the text of dates);
// absent values last.
func compareMetric(x, y any) int {
	switch {
	case x == nil && y == nil:
		return 0
	case x == nil:
		return 1
	case y == nil:
		return -1
	}
	fx, okx := toFloat(x)
	fy, oky := toFloat(y)
	if okx && oky {
		return cmp.Compare(fx, fy)
	}
	return cmp.Compare(fmt.Sprint(x), fmt.Sprint(y))
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case float64:
		return x, true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// aggregate runs an aggregation over the objects c matches.
func (s *Server) aggregate(ctx context.Context, v *indexer.View, c *cond, metricsRaw, groupsRaw []json.RawMessage, accuracy string) (*aggregateResponse, error) {
	switch accuracy {
	case "", "REQUIRE_ACCURATE", "ALLOW_APPROXIMATE":
	default:
		return nil, apiErr("MalformedRequestBody", map[string]any{"reason": "accuracy must be REQUIRE_ACCURATE or ALLOW_APPROXIMATE"})
	}
	t := v.Type()
	metrics, err := decodeMetrics(t, metricsRaw)
	if err != nil {
		return nil, err
	}
	groups, err := decodeGroups(t, groupsRaw)
	if err != nil {
		return nil, err
	}
	a := &aggregator{metrics: metrics, groups: groups, limit: s.cfg.MaxAggregationGroups, acc: map[string]*groupAcc{}}
	if len(groups) == 0 {
		// One group of every matching object, even when none matches.
		a.acc[""] = &groupAcc{m: make([]metricAcc, len(metrics))}
	}
	if matchesAll(c) {
		var aerr error
		n := 0
		err := v.Scan(nil, func(_ []byte, o *objects.Object) bool {
			if n++; n%1024 == 0 && ctx.Err() != nil {
				aerr = ctx.Err()
				return false
			}
			aerr = a.add(o)
			return aerr == nil
		})
		if err == nil {
			err = aerr
		}
		if err != nil {
			return nil, err
		}
	} else {
		var batch [][]byte
		flush := func() error {
			objs, err := v.GetMany(batch)
			if err != nil {
				return err
			}
			for _, o := range objs {
				if o != nil {
					if err := a.add(o); err != nil {
						return err
					}
				}
			}
			batch = batch[:0]
			return nil
		}
		err := s.forEachMatch(ctx, v, c, func(key []byte) error {
			batch = append(batch, key)
			if len(batch) == 512 {
				return flush()
			}
			return nil
		})
		if err == nil {
			err = flush()
		}
		if err != nil {
			return nil, err
		}
	}
	resp := a.result()
	return &resp, nil
}

// aggregateObjects is POST /objects/{objectType}/aggregate.
func (s *Server) aggregateObjects(r *http.Request) (any, error) {
	v, err := s.typeView(r)
	if err != nil {
		return nil, err
	}
	defer v.Release()
	var req aggregateRequest
	if err := readBody(r, &req); err != nil {
		return nil, err
	}
	where, err := decodeWhere(v.Type(), req.Where, s.cfg.MaxWhereDepth, s.cfg.MaxWhereClauses)
	if err != nil {
		return nil, err
	}
	return s.aggregate(r.Context(), v, where, req.Aggregation, req.GroupBy, req.Accuracy)
}

// aggregateObjectSet is POST /objectSets/aggregate.
func (s *Server) aggregateObjectSet(r *http.Request) (any, error) {
	if err := s.checkOntology(r); err != nil {
		return nil, err
	}
	var req aggregateSetRequest
	if err := readBody(r, &req); err != nil {
		return nil, err
	}
	d, c, err := s.decodeObjectSet(r, req.ObjectSet)
	if err != nil {
		return nil, err
	}
	defer d.release()
	if d.view == nil {
		return nil, apiErr("UnsupportedObjectSet", map[string]any{"reason": "the object set names no object type (an empty static set)"})
	}
	return s.aggregate(r.Context(), d.view, c, req.Aggregation, req.GroupBy, req.Accuracy)
}
