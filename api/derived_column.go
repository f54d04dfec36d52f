package api

import (
	"github.com/ontoindex/ontoindex/api/wire"
)

// column is the values of one derived property, one per object of the
// set. Counts and sums, the usual selections, are held unboxed: a []any
// of float64s is 16 bytes an object and an 8-byte box for each value, a
// typed column 8 and a byte (a heap profile of the bench's derived row
// at 1M customers: the boxes and the accumulators they were made from
// were a third of what a request allocated).
type column struct {
	anys   []any     // any other values
	ints   []int64   // counts (never null)
	floats []float64 // sums and averages, null where null[j]
	null   []bool
}

// at is the value of object j, boxed.
func (c *column) at(j int) any {
	switch {
	case c.ints != nil:
		return c.ints[j]
	case c.floats != nil:
		if c.null[j] {
			return nil
		}
		return c.floats[j]
	}
	return c.anys[j]
}

// compareAt orders the values of objects a and b, nulls last whatever
// the direction, as ordering.compareValue orders boxed values; typed
// values are compared unboxed (compareValues' order of numbers).
func (c *column) compareAt(a, b int, desc bool) int {
	var r int
	switch {
	case c.ints != nil:
		r = cmpInt(c.ints[a], c.ints[b])
	case c.floats != nil:
		an, bn := c.null[a], c.null[b]
		switch {
		case an && bn:
			return 0
		case an:
			return 1
		case bn:
			return -1
		}
		x, y := c.floats[a], c.floats[b]
		switch {
		case x < y:
			r = -1
		case x > y:
			r = 1
		}
	default:
		return compareNullsLast(c.anys[a], c.anys[b], desc)
	}
	if desc {
		r = -r
	}
	return r
}

// compareNullsLast orders two values, nulls last whatever the direction.
func compareNullsLast(a, b any, desc bool) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	c := compareValues(a, b)
	if desc {
		c = -c
	}
	return c
}

// numericSelection is a count, or a sum or average of numbers, which
// accumulate into a typed column.
func numericSelection(def *wire.DerivedDef, numbers bool) bool {
	return def.Op == "count" || numbers && (def.Op == "sum" || def.Op == "avg")
}

// accumulateNumbers computes a count, sum or average per source object
// into a typed column: visit calls add with the origins of each linked
// object and its number (ok false for a null, or for a count).
//
// The linked objects come in their own order and each adds to a source
// object at random: at ten million objects every add is a cache miss,
// and between two of them the reading of the next object keeps the
// processor from having more than one in flight (95 ns an add). So the
// adds are held in a batch and applied in a loop that does nothing else,
// whose misses overlap (a third of the time at ten million, in a
// microbenchmark of this loop); each source object still sums its
// values in the linked objects' order.
func accumulateNumbers(def *wire.DerivedDef, n int, visit func(add func(origins []int32, x float64, ok bool))) column {
	if def.Op == "count" {
		counts := make([]int64, n)
		batch := make([]int32, 0, addBatch)
		flush := func() {
			for _, o := range batch {
				counts[o]++
			}
			batch = batch[:0]
		}
		visit(func(origins []int32, _ float64, _ bool) {
			for _, o := range origins {
				if len(batch) == cap(batch) {
					flush()
				}
				batch = append(batch, o)
			}
		})
		flush()
		return column{ints: counts}
	}
	sums, null := make([]float64, n), make([]bool, n)
	var counts []int64 // of an average
	if def.Op == "avg" {
		counts = make([]int64, n)
	}
	for j := range null {
		null[j] = true
	}
	type add struct {
		o int32
		x float64
	}
	batch := make([]add, 0, addBatch)
	flush := func() {
		for _, a := range batch {
			sums[a.o] += a.x
			null[a.o] = false
		}
		if counts != nil {
			for _, a := range batch {
				counts[a.o]++
			}
		}
		batch = batch[:0]
	}
	visit(func(origins []int32, x float64, ok bool) {
		if !ok {
			return
		}
		for _, o := range origins {
			if len(batch) == cap(batch) {
				flush()
			}
			batch = append(batch, add{o, x})
		}
	})
	flush()
	for j, c := range counts { // an average's
		if c > 0 {
			sums[j] /= float64(c)
		}
	}
	return column{floats: sums, null: null}
}

// addBatch is how many adds accumulateNumbers holds before applying
// them, and how many objects reached looks up at once.
const addBatch = 1024
