package opensearch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// compositePage is how many groups one composite aggregation request
// returns; the walk pages through all of them, so every group is exact.
const compositePage = 1000

// maxExactSum bounds the sums of integer properties the backend answers:
// OpenSearch sums in doubles, exact for integers up to 2^53.
const maxExactSum = 1 << 53

// aggregation is one running aggregation: its groupings and metrics
// resolved to properties, and the groups found.
type aggregation struct {
	q       *query.Aggregate
	tr      translator
	groups  []objects.Property
	rangeAt []int              // the range of each Ranges grouping in the current walk
	metrics []objects.Property // the zero Property for Count
	found   map[string]*aggGroup
}

// aggGroup is one group: its composite key as the cluster wrote it, the
// API's keys, and its metric values.
type aggGroup struct {
	raw     string
	keys    []query.GroupKey
	sorts   []any
	ids     []string
	count   int64
	metrics []any
}

// Aggregate computes an aggregation over the objects a filter matches:
// count, min, max, sum, avg and exact distinct counts, grouped by exact
// values (doc.go says what each becomes, and what is refused).
func (r *Reader) Aggregate(ctx context.Context, q *query.Aggregate) (*query.AggregateResult, error) {
	filter, err := r.tr.filter(q.Filter)
	if err != nil {
		return nil, err
	}
	a := &aggregation{q: q, tr: r.tr, found: map[string]*aggGroup{}}
	for _, g := range q.Groups {
		p, ok := r.tr.property(g.Property)
		if !ok {
			return nil, fmt.Errorf("object type %s has no property %q", r.typ.APIName, g.Property)
		}
		if g.Kind != query.Exact && g.Kind != query.Ranges {
			if _, err := compositeSource(p, g); err != nil {
				return nil, err
			}
		}
		if !p.Searchable() || p.Type.Kind == objects.KindStruct || g.Kind == query.Exact && (p.Type.Primitive().Kind == objects.KindDecimal || numericList(p)) {
			return nil, fmt.Errorf("property %s: grouping by it is not supported by the OpenSearch backend", p.APIName)
		}
		a.groups = append(a.groups, p)
	}
	for _, m := range q.Metrics {
		var p objects.Property
		if m.Kind != query.Count {
			var ok bool
			if p, ok = r.tr.property(m.Property); !ok {
				return nil, fmt.Errorf("object type %s has no property %q", r.typ.APIName, m.Property)
			}
			if err := metricSupported(p, m.Kind); err != nil {
				return nil, err
			}
		}
		a.metrics = append(a.metrics, p)
	}
	combos, err := a.rangeCombos()
	if err != nil {
		return nil, err
	}
	for _, combo := range combos {
		// One walk per combination of the ranges of Ranges groupings, of
		// the objects with a value in each.
		a.rangeAt = combo.at
		match := map[string]any{"bool": map[string]any{"filter": append([]any{filter}, combo.filters...)}}
		if err := r.walkGroups(ctx, a, match); err != nil {
			return nil, err
		}
		for i, m := range q.Metrics {
			if m.Kind == query.ExactDistinct || m.Kind == query.ApproximateDistinct {
				if err := r.walkDistinct(ctx, a, match, i); err != nil {
					return nil, err
				}
			}
		}
	}
	return a.result(), nil
}

// numericList reports whether p is a list held in numeric doc values,
// which keep an element as many times as the list holds it: a composite
// grouping by it counts an object once per element, duplicates included
// (keyword doc values keep each value once).
func numericList(p objects.Property) bool {
	return p.Type.Kind == objects.KindList && p.Search != objects.SearchKeyword && p.Search != objects.SearchText
}

// metricSupported refuses the metrics the backend does not compute.
func metricSupported(p objects.Property, kind query.MetricKind) error {
	k := p.Type.Primitive().Kind
	ok := p.Searchable() && p.Type.Kind != objects.KindStruct
	switch kind {
	case query.Min, query.Max:
		ok = ok && k != objects.KindDecimal
	case query.Sum, query.Avg:
		ok = ok && p.Search == objects.SearchNumeric
	case query.ExactDistinct, query.ApproximateDistinct:
	default:
		ok = false
	}
	if !ok {
		return fmt.Errorf("property %s: this metric is not supported by the OpenSearch backend", p.APIName)
	}
	return nil
}

// metricAggs are the sub-aggregations that compute the metrics of a
// group (distinct counts have their own walk).
func (a *aggregation) metricAggs() map[string]any {
	aggs := map[string]any{}
	for i, m := range a.q.Metrics {
		f := exactField(a.metrics[i])
		name := "m" + strconv.Itoa(i)
		switch m.Kind {
		case query.Sum, query.Avg:
			aggs[name+"s"] = map[string]any{"sum": map[string]any{"field": f}}
			aggs[name+"c"] = map[string]any{"value_count": map[string]any{"field": f}}
		case query.Min, query.Max:
			// The least (greatest) element of the first object in that
			// order: sort values are exact, where the min and max
			// aggregations answer doubles.
			order, mode := "asc", "min"
			if m.Kind == query.Max {
				order, mode = "desc", "max"
			}
			aggs[name] = map[string]any{"filter": map[string]any{"exists": map[string]any{"field": f}},
				"aggs": map[string]any{"top": map[string]any{"top_hits": map[string]any{"size": 1, "_source": false,
					"sort": []any{map[string]any{f: map[string]any{"order": order, "mode": mode}}}}}}}
		}
	}
	return aggs
}

// aggAnswer is the part of a search answer the aggregations read.
type aggAnswer struct {
	Hits struct {
		Total struct {
			Value int64 `json:"value"`
		} `json:"total"`
	} `json:"hits"`
	Aggregations map[string]json.RawMessage `json:"aggregations"`
}

// walkGroups finds every group and its metrics: one request without
// groupings, else a composite aggregation paged to its end.
func (r *Reader) walkGroups(ctx context.Context, a *aggregation, match map[string]any) error {
	if !a.compositeGroups() {
		body := map[string]any{"query": match, "size": 0, "track_total_hits": true, "aggs": a.metricAggs()}
		var ans aggAnswer
		if err := r.search(ctx, body, &ans); err != nil {
			return err
		}
		g, err := a.group(nil)
		if err != nil {
			return err
		}
		// Without groupings, one group even of no objects; a range
		// without objects is no group.
		if g.count = ans.Hits.Total.Value; g.count == 0 && len(a.groups) > 0 {
			return nil
		}
		a.found[g.raw] = g
		return a.readMetrics(g, ans.Aggregations)
	}
	return r.walkComposite(ctx, match, a.sources(), a.metricAggs(), func(b *bucket) error {
		g, err := a.group(b.Key)
		if err != nil {
			return err
		}
		g.count = b.DocCount
		if lim := a.q.Limits.MaxGroups; lim > 0 && len(a.found) >= lim {
			return &query.TooManyGroupsError{Groups: len(a.found) + 1, Limit: lim}
		}
		a.found[g.raw] = g
		return a.readMetrics(g, b.subs)
	})
}

// walkDistinct counts the distinct values of metric i's property in each
// group: a composite walk over the groupings and the property, whose
// buckets are the distinct (group, value) pairs. The cardinality
// aggregation would be approximate.
func (r *Reader) walkDistinct(ctx context.Context, a *aggregation, match map[string]any, i int) error {
	value := map[string]any{"v": map[string]any{"terms": map[string]any{"field": exactField(a.metrics[i])}}}
	return r.walkComposite(ctx, match, a.sources(value), nil, func(b *bucket) error {
		delete(b.Key, "v")
		g, err := a.group(b.Key)
		if err != nil {
			return err
		}
		if g := a.found[g.raw]; g != nil {
			g.metrics[i] = g.metrics[i].(int64) + 1
		}
		return nil
	})
}

func (r *Reader) search(ctx context.Context, body map[string]any, out any) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	return r.do(ctx, "aggregate "+r.alias, &opensearchapi.SearchReq{Indices: []string{r.alias}, Body: bytes.NewReader(raw), Params: wholeResults()}, out)
}

// group is the group of a composite key (its metrics not read yet).
func (a *aggregation) group(key map[string]json.RawMessage) (*aggGroup, error) {
	g := &aggGroup{metrics: make([]any, len(a.q.Metrics))}
	var raw strings.Builder
	for i, p := range a.groups {
		v := key["g"+strconv.Itoa(i)]
		raw.Write(v)
		raw.WriteByte(0)
		var k query.GroupKey
		var sort any
		var id string
		switch def := a.q.Groups[i].Default; {
		case a.q.Groups[i].Kind == query.Ranges:
			k.Range = a.rangeAt[i]
			sort, id = k.Range, "r"+strconv.Itoa(k.Range)
			raw.WriteString(id)
		case a.q.Groups[i].Kind == query.FixedWidth:
			var n json.Number
			if err := json.Unmarshal(v, &n); err != nil {
				return nil, fmt.Errorf("property %s: bucket %s: %w", p.APIName, v, err)
			}
			start, err := n.Float64()
			if err != nil {
				return nil, fmt.Errorf("property %s: bucket %s: %w", p.APIName, v, err)
			}
			k.Start, k.End = start, start+a.q.Groups[i].Width
			sort, id = start, "f"+n.String()
		case string(v) == "null" && def != nil:
			k.IsDefault = true
			sort, id = *def, "s"+*def
		case string(v) == "null":
			id = "n"
		default:
			x, err := typedValue(p, v)
			if err != nil {
				return nil, err
			}
			k.Value = x
			sort, id = x, "v"+objects.TextOf(x)
		}
		g.keys = append(g.keys, k)
		g.sorts = append(g.sorts, sort)
		g.ids = append(g.ids, id)
	}
	g.raw = raw.String()
	return g, nil
}

// readMetrics reads a group's metrics from its sub-aggregations.
func (a *aggregation) readMetrics(g *aggGroup, subs map[string]json.RawMessage) error {
	for i, m := range a.q.Metrics {
		name := "m" + strconv.Itoa(i)
		p := a.metrics[i]
		switch m.Kind {
		case query.Count:
			g.metrics[i] = g.count
		case query.ExactDistinct, query.ApproximateDistinct:
			g.metrics[i] = int64(0) // counted by walkDistinct
		case query.Sum, query.Avg:
			var sum struct {
				Value float64 `json:"value"`
			}
			var count struct {
				Value int64 `json:"value"`
			}
			if err := json.Unmarshal(subs[name+"s"], &sum); err != nil {
				return err
			}
			if err := json.Unmarshal(subs[name+"c"], &count); err != nil {
				return err
			}
			if count.Value == 0 {
				continue
			}
			k := p.Type.Primitive().Kind
			integer := k == objects.KindInteger || k == objects.KindLong
			if integer && math.Abs(sum.Value) >= maxExactSum {
				return fmt.Errorf("property %s: the sum reaches 2^53, past which the OpenSearch backend does not sum integers exactly", p.APIName)
			}
			switch {
			case m.Kind == query.Avg:
				g.metrics[i] = sum.Value / float64(count.Value)
			case integer:
				g.metrics[i] = int64(sum.Value)
			default:
				g.metrics[i] = sum.Value
			}
		case query.Min, query.Max:
			var top struct {
				Top struct {
					Hits struct {
						Hits []struct {
							Sort []json.RawMessage `json:"sort"`
						} `json:"hits"`
					} `json:"hits"`
				} `json:"top"`
			}
			if err := json.Unmarshal(subs[name], &top); err != nil {
				return err
			}
			if hits := top.Top.Hits.Hits; len(hits) > 0 && len(hits[0].Sort) > 0 {
				v, err := typedValue(p, hits[0].Sort[0])
				if err != nil {
					return err
				}
				g.metrics[i] = v
			}
		}
	}
	return nil
}
