package query

import (
	"cmp"
	"math"
	"math/big"
	"reflect"
	"slices"

	"github.com/ontoindex/ontoindex/objects"
)

// The order of an aggregation's groups, one definition for every engine
// that answers one (the embedded index, the OpenSearch reader, the API's
// merge of several types): by the first metric with a direction, else by
// count, then by each grouping's value.

// GroupOrder orders groups of a caller's type G, read through its
// functions: a grouping's value identity and sort value, the group's
// count, and (for Sort by a metric) a metric's value.
type GroupOrder[G any] struct {
	ID     func(g G, grouping int) string
	Value  func(g G, grouping int) any
	Count  func(g G) int64
	Metric func(g G, metric int) any
}

// OrderBy is the metric that orders an aggregation's groups, the first
// with a direction (-1: none, the groups go by count), and whether it
// orders them descending.
func OrderBy(metrics []Metric) (metric int, desc bool) {
	i := slices.IndexFunc(metrics, func(m Metric) bool { return m.Order != 0 })
	return i, i >= 0 && metrics[i].Order < 0
}

// Cut keeps, for each grouping with a MaxGroupCount, the groups of its
// MaxGroupCount values with most objects (ties by value).
func (o GroupOrder[G]) Cut(groups []G, specs []Group) []G {
	type value struct {
		id    string
		total int64
		first G // a group of the value, for its sort value
	}
	for gi, gs := range specs {
		if gs.MaxGroupCount == 0 {
			continue
		}
		index := map[string]int{}
		var values []value
		for _, g := range groups {
			id := o.ID(g, gi)
			i, ok := index[id]
			if !ok {
				i = len(values)
				index[id] = i
				values = append(values, value{id: id, first: g})
			}
			values[i].total += o.Count(g)
		}
		if len(values) <= gs.MaxGroupCount {
			continue
		}
		slices.SortFunc(values, func(x, y value) int {
			if c := cmp.Compare(y.total, x.total); c != 0 {
				return c
			}
			return CompareGroupValues(o.Value(x.first, gi), o.Value(y.first, gi), x.id, y.id)
		})
		keep := make(map[string]bool, gs.MaxGroupCount)
		for _, v := range values[:gs.MaxGroupCount] {
			keep[v.id] = true
		}
		groups = slices.DeleteFunc(groups, func(g G) bool { return !keep[o.ID(g, gi)] })
	}
	return groups
}

// Sort orders groups of groupings groupings: by metric orderBy when it is
// not -1 (descending with desc; groups without its value last either
// way), else by count descending; then by each grouping's value.
func (o GroupOrder[G]) Sort(groups []G, groupings, orderBy int, desc bool) {
	slices.SortFunc(groups, func(x, y G) int {
		if orderBy >= 0 {
			xv, yv := o.Metric(x, orderBy), o.Metric(y, orderBy)
			c := CompareMetricValues(xv, yv)
			if desc && xv != nil && yv != nil {
				c = -c
			}
			if c != 0 {
				return c
			}
		} else if c := cmp.Compare(o.Count(y), o.Count(x)); c != 0 {
			return c
		}
		for gi := range groupings {
			if c := o.compareAt(x, y, gi); c != 0 {
				return c
			}
		}
		return 0
	})
}

func (o GroupOrder[G]) compareAt(x, y G, gi int) int {
	return CompareGroupValues(o.Value(x, gi), o.Value(y, gi), o.ID(x, gi), o.ID(y, gi))
}

// CompareGroupValues orders two groups by the sort value of one grouping:
// values in their order, range indexes (ints) by position, the null group
// last; values of different kinds (the default group among values) by
// their group identities idA and idB.
func CompareGroupValues(a, b any, idA, idB string) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	if ai, ok := a.(int); ok { // range indexes
		if bi, ok := b.(int); ok {
			return cmp.Compare(ai, bi)
		}
	}
	if reflect.TypeOf(a) == reflect.TypeOf(b) {
		return objects.Compare(a, b)
	}
	return cmp.Compare(idA, idB)
}

// CompareMetricValues orders metric values: numbers by their exact value
// whatever their Go type, other values in their order; absent values last.
func CompareMetricValues(x, y any) int {
	switch {
	case x == nil && y == nil:
		return 0
	case x == nil:
		return 1
	case y == nil:
		return -1
	}
	_, fx := x.(float64)
	if _, fy := y.(float64); fx && fy {
		return objects.Compare(x, y) // doubles in total order: -0 before 0, NaN last
	}
	nx, okx := metricNumber(x)
	ny, oky := metricNumber(y)
	if okx && oky {
		return nx.Cmp(ny)
	}
	return objects.Compare(x, y)
}

// metricNumber is the exact value of a finite numeric metric.
func metricNumber(v any) (*big.Rat, bool) {
	switch x := v.(type) {
	case int64:
		return new(big.Rat).SetInt64(x), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, false // compared by objects.Compare's total order
		}
		return new(big.Rat).SetFloat64(x), true
	case *big.Int:
		return new(big.Rat).SetInt(x), true
	case objects.Decimal:
		return x.Rat(), true
	}
	return nil, false
}
