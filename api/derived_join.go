package api

import "math"

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
