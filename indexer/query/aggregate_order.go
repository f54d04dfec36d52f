package query

import (
	"cmp"
	"math"
	"math/big"
	"reflect"

	"github.com/ontoindex/ontoindex/objects"
)

// The order of an aggregation's groups, one definition for every engine
// that answers one (the embedded index, the OpenSearch reader, the API's
// merge of several types): by the first metric with a direction, else by
// count, then by each grouping's value.

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
