package api

import (
	"fmt"
	"math"
	"slices"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/objects"
)

// joinKey is a value as a map key, without boxing it: integers, dates and
// instants in n, strings in s, other values by their store encoding in s
// (str says which). The two ends of a link hold values of one kind
// (objects.CheckLink), so their keys meet in the same map.
type joinKey struct {
	n   int64
	s   string
	str bool
}

// joinIndex maps join keys to the source objects (origins) that hold
// them: integer keys in slices indexed by value when they are dense (the
// ids of most tables: a lookup without hashing), else in a map of int64,
// the cheapest to hash; others in a map of strings. A dense key held by
// one origin (a primary key: every customer of the bench's derived row)
// keeps it inline, 5 bytes a key, where a slice of slices took 24; keys
// of several origins keep them in a map.
type joinIndex struct {
	size  int    // the expected number of keys
	state []byte // of each dense key: absent, one origin or several
	one   []int32
	multi map[int32][]int32 // the origins of dense keys of several, by position
	lo    int64             // the key of state[0]
	ints  map[int64][]int32
	strs  map[string][]int32
}

// The states of a dense key.
const (
	keyAbsent byte = iota
	keyOne
	keyMulti
)

// denseKeys makes x hold integer keys in [lo, hi] in slices, when the
// range is small for the number of keys expected.
func (x *joinIndex) denseKeys(lo, hi int64) {
	if hi >= lo && uint64(hi-lo) < uint64(2*x.size+64) && hi-lo < math.MaxInt32 {
		x.state, x.one, x.lo = make([]byte, hi-lo+1), make([]int32, hi-lo+1), lo
	}
}

// get is the origins of key k (capped: appending to them copies); ok is
// false when no object holds it (a dense index holds no key with empty
// origins).
func (x *joinIndex) get(k joinKey) ([]int32, bool) {
	var v []int32
	var ok bool
	switch {
	case k.str:
		v, ok = x.strs[k.s]
	case x.state != nil:
		if i := uint64(k.n - x.lo); i < uint64(len(x.state)) {
			switch x.state[i] {
			case keyOne:
				return x.one[i : i+1 : i+1], true
			case keyMulti:
				return x.multi[int32(i)], true
			}
		}
	default:
		v, ok = x.ints[k.n]
	}
	return v, ok
}

func (x *joinIndex) set(k joinKey, v []int32) {
	if !k.str && x.state != nil {
		if i := uint64(k.n - x.lo); i < uint64(len(x.state)) {
			switch {
			case len(v) == 1:
				x.state[i], x.one[i] = keyOne, v[0]
				delete(x.multi, int32(i))
			case len(v) > 1:
				if x.multi == nil {
					x.multi = map[int32][]int32{}
				}
				x.state[i], x.multi[int32(i)] = keyMulti, v
			default:
				x.state[i] = keyAbsent
				delete(x.multi, int32(i))
			}
			return
		}
		x.spill()
	}
	if k.str {
		if x.strs == nil {
			x.strs = make(map[string][]int32, x.size)
		}
		x.strs[k.s] = v
		return
	}
	if x.ints == nil {
		x.ints = make(map[int64][]int32, x.size)
	}
	x.ints[k.n] = v
}

// spill moves a dense index's keys into the map, for a key outside its
// range.
func (x *joinIndex) spill() {
	x.ints = make(map[int64][]int32, x.size)
	for i, st := range x.state {
		switch st {
		case keyOne:
			x.ints[x.lo+int64(i)] = []int32{x.one[i]}
		case keyMulti:
			x.ints[x.lo+int64(i)] = x.multi[int32(i)]
		}
	}
	x.state, x.one, x.multi = nil, nil, nil
}

// originsByValue groups the origins of a page's objects by their value
// of property i; firsts are the objects that hold each distinct value
// first (values reads them, when an OpIn needs them).
func originsByValue(lv *level, i int) (*joinIndex, []int32) {
	p, t := lv.page, lv.t
	by := &joinIndex{size: p.Len()}
	var sc objects.Scalar
	if integerKey(t.Properties[i].Type.Kind) {
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for j := range p.Len() {
			if k, ok := keyAt(p, t, j, i, &sc); ok && len(lv.origins(j)) > 0 {
				lo, hi = min(lo, k.n), max(hi, k.n)
			}
		}
		by.denseKeys(lo, hi)
	}
	// At most one first an object: sized once, as growing it by appends
	// allocated five times its size at a million objects (a heap profile).
	firsts := make([]int32, 0, p.Len())
	for j := range p.Len() {
		origins := lv.origins(j)
		if len(origins) == 0 {
			continue // reached from no source object: nothing to follow
		}
		k, ok := keyAt(p, t, j, i, &sc)
		if !ok {
			continue
		}
		have, seen := by.get(k)
		if !seen {
			firsts = append(firsts, int32(j))
			by.set(k, origins) // shared (capped) until a second object has the value
			continue
		}
		by.set(k, append(have, origins...))
	}
	return by, firsts
}

// reached is the level of the objects of page p (of type t) with the
// origins their property i's value has in byValue.
//
// The objects come in their own order and each value is looked up at
// random in byValue: at ten million objects a cache miss each, which the
// reading of the next object's value keeps from overlapping with the
// next miss. So the keys of a batch are read first, then looked up in a
// loop that does nothing else, whose misses overlap (as
// accumulateNumbers applies its adds).
func reached(p *indexer.Page, t *objects.Type, i int, byValue *joinIndex) (level, error) {
	out := level{t: t, page: p, at: make([]int32, p.Len()+1), of: make([]int32, 0, p.Len())}
	var sc objects.Scalar
	keys, found, froms := make([]joinKey, addBatch), make([]bool, addBatch), make([][]int32, addBatch)
	one := make([]int32, addBatch)
	for first := 0; first < p.Len(); first += addBatch {
		n := min(addBatch, p.Len()-first)
		for b := range n {
			keys[b], found[b] = keyAt(p, t, first+b, i, &sc)
		}
		for b := range n {
			froms[b] = nil
			if found[b] {
				froms[b], _ = byValue.get(keys[b])
				if len(froms[b]) == 1 {
					one[b] = froms[b][0] // read here, beside the other lookups' misses
				}
			}
		}
		for b, from := range froms[:n] {
			out.at[first+b] = int32(len(out.of))
			start := len(out.of)
			switch {
			case len(from) > math.MaxInt32-start:
				return level{}, fmt.Errorf("over %d links from the source objects", math.MaxInt32)
			case len(from) == 1:
				out.of = append(out.of, one[b])
			case len(from) > 1:
				out.of = append(out.of, from...)
				slices.Sort(out.of[start:])
				out.of = out.of[:start+len(slices.Compact(out.of[start:]))]
			}
		}
	}
	out.at[p.Len()] = int32(len(out.of))
	return out, nil
}

// keyAt reads property i of object j of a page as a join key; ok is
// false for a null (or a list: keys are scalars, objects.CheckLink).
func keyAt(p *indexer.Page, t *objects.Type, j, i int, sc *objects.Scalar) (joinKey, bool) {
	rw := row{t: t, p: p, j: j}
	if !p.FromIndex() {
		rw = row{t: t, o: p.Object(j)}
	}
	if list := rw.cell(i, sc); list != nil || sc.Null {
		return joinKey{}, false
	}
	switch k := t.Properties[i].Type.Kind; {
	case integerKey(k):
		return joinKey{n: sc.Int}, true
	case k == objects.KindString:
		return joinKey{s: sc.Str, str: true}, true
	case k == objects.KindTimestamp, k == objects.KindTimestampTZ:
		return joinKey{n: sc.Time.UnixNano()}, true
	default:
		return joinKey{s: valueKey(sc.Value(k)), str: true}, true
	}
}

// integerKey reports whether values of kind k are join keys by their
// integer (Scalar.Int).
func integerKey(k objects.Kind) bool {
	switch k {
	case objects.KindInteger, objects.KindLong, objects.KindDate, objects.KindTime, objects.KindBoolean:
		return true
	}
	return false
}
