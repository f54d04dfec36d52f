package api

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// The arithmetic of derived properties and the accumulators of
// selections. A null operand makes a null result, except in least and
// greatest, which skip nulls as SQL's do; a division by zero is null.

// accumulator is a selection's state for one source object: a count and
// a sum inline, what other operations keep behind a pointer, so that the
// accumulators of every source object of a count or a sum (the usual
// selections) are small.
type accumulator struct {
	n   int64
	sum float64
	*collected
}

// collected is what min, max, get, percentiles, distinct counts and
// collections accumulate.
type collected struct {
	best     any // min, max, get
	vals     []any
	numbers  []float64 // approximatePercentile
	distinct map[string]bool
}

// add takes the value of one linked object (nil when null or when the
// operation reads no property).
func (a *accumulator) add(def *wire.DerivedDef, v any) {
	if def.Op == "count" {
		a.n++
		return
	}
	if v == nil {
		return
	}
	if def.Op == "sum" || def.Op == "avg" {
		a.n++
		a.sum += toFloat(v)
		return
	}
	if a.collected == nil {
		a.collected = &collected{}
	}
	switch def.Op {
	case "approximatePercentile":
		a.numbers = append(a.numbers, toFloat(v))
	case "min":
		if a.best == nil || objects.Compare(v, a.best) < 0 {
			a.best = v
		}
	case "max", "get":
		if a.best == nil || objects.Compare(v, a.best) > 0 {
			a.best = v
		}
	case "exactDistinct", "approximateDistinct":
		a.seen(v)
	case "collectList":
		if len(a.vals) < def.Limit {
			a.vals = append(a.vals, v)
		}
	case "collectSet":
		if len(a.vals) < def.Limit && a.seen(v) {
			a.vals = append(a.vals, v)
		}
	}
}

// seen records v among the distinct values; it reports whether v is new.
func (a *accumulator) seen(v any) bool {
	if a.distinct == nil {
		a.distinct = map[string]bool{}
	}
	k := valueKey(v)
	if a.distinct[k] {
		return false
	}
	a.distinct[k] = true
	return true
}

// result is the derived value.
func (a *accumulator) result(def *wire.DerivedDef) any {
	switch def.Op {
	case "count":
		return a.n
	case "sum":
		if a.n == 0 {
			return nil
		}
		return a.sum
	case "avg":
		if a.n == 0 {
			return nil
		}
		return a.sum / float64(a.n)
	}
	if a.collected == nil {
		a.collected = &collected{} // nothing was collected: the result over no values
	}
	switch def.Op {
	case "approximatePercentile":
		return percentile(a.numbers, def.Percentile)
	case "exactDistinct", "approximateDistinct":
		return int64(len(a.distinct))
	case "collectList", "collectSet":
		if a.vals == nil {
			return []any{}
		}
		return a.vals
	}
	return a.best
}

// percentile is the nearest-rank percentile of vals (NaN last), as the
// engine's approximatePercentile metric ranks it (query.PercentileRank):
// a derived property and an aggregation give the same value.
func percentile(vals []float64, p float64) any {
	if len(vals) == 0 {
		return nil
	}
	slices.SortFunc(vals, func(a, b float64) int {
		an, bn := math.IsNaN(a), math.IsNaN(b)
		switch {
		case an && bn:
			return 0
		case an:
			return 1
		case bn:
			return -1
		}
		return cmp.Compare(a, b)
	})
	return vals[query.PercentileRank(p, int64(len(vals)))-1]
}

// toFloat is a number as a float64.
func toFloat(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	case objects.Decimal:
		f, _ := x.Rat().Float64()
		return f
	}
	return math.NaN()
}

// compute is an expression of already computed operands.
func compute(def *wire.DerivedDef, args []any) any {
	switch def.Kind {
	case wire.DerivedLeast, wire.DerivedGreatest:
		var best any
		for _, a := range args {
			if a == nil {
				continue
			}
			c := 0
			if best != nil {
				c = compareValues(a, best)
			}
			if best == nil || (def.Kind == wire.DerivedLeast && c < 0) || (def.Kind == wire.DerivedGreatest && c > 0) {
				best = a
			}
		}
		if best != nil && !def.Type.Kind.DateLike() {
			return asKind(def.Type.Kind, best)
		}
		return best
	case wire.DerivedExtract:
		return extract(def.Part, args[0])
	}
	if slices.Contains(args, nil) {
		return nil
	}
	integer := def.Type.Kind == objects.KindInteger || def.Type.Kind == objects.KindLong
	switch def.Kind {
	case wire.DerivedNegate:
		if integer {
			return -args[0].(int64)
		}
		return -toFloat(args[0])
	case wire.DerivedAbsolute:
		if integer {
			x := args[0].(int64)
			return max(x, -x)
		}
		return math.Abs(toFloat(args[0]))
	case wire.DerivedDivide:
		r := toFloat(args[1])
		if r == 0 {
			return nil
		}
		return toFloat(args[0]) / r
	}
	if integer {
		return fold(def.Kind, args, func(v any) int64 { return v.(int64) })
	}
	return fold(def.Kind, args, toFloat)
}

// fold applies add, subtract or multiply from left to right over the
// operands, read as T: integers stay integers, the rest are doubles.
func fold[T int64 | float64](kind string, args []any, as func(any) T) T {
	x := as(args[0])
	for _, a := range args[1:] {
		y := as(a)
		switch kind {
		case wire.DerivedAdd:
			x += y
		case wire.DerivedSubtract:
			x -= y
		case wire.DerivedMultiply:
			x *= y
		}
	}
	return x
}

// asKind is a number as the Go value of kind k.
func asKind(k objects.Kind, v any) any {
	if k == objects.KindInteger || k == objects.KindLong {
		if f, ok := v.(float64); ok {
			return int64(f)
		}
		return v
	}
	return toFloat(v)
}

// extract is a part of a date or timestamp, in UTC.
func extract(part string, v any) any {
	var t time.Time
	switch x := v.(type) {
	case objects.Date:
		t = x.Time()
	case time.Time:
		t = x.UTC()
	default:
		return nil
	}
	switch part {
	case "DAYS":
		return int64(t.Day())
	case "MONTHS":
		return int64(t.Month())
	case "QUARTERS":
		return int64((t.Month()-1)/3 + 1)
	}
	return int64(t.Year())
}

// compareValues orders two non-null values, numbers of any kind by value.
func compareValues(a, b any) int {
	if isNumber(a) && isNumber(b) {
		if x, ok := a.(int64); ok {
			if y, ok := b.(int64); ok {
				return cmpInt(x, y)
			}
		}
		x, y := toFloat(a), toFloat(b)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	}
	return objects.Compare(a, b)
}

func cmpInt(x, y int64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func isNumber(v any) bool {
	switch v.(type) {
	case int64, float64, objects.Decimal:
		return true
	}
	return false
}
