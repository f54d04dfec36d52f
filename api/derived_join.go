package api

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
// them: integer keys in a slice indexed by value when they are dense (the
// ids of most tables: a lookup without hashing), else in a map of int64,
// the cheapest to hash; others in a map of strings.
type joinIndex struct {
	size  int // the expected number of keys
	dense [][]int32
	lo    int64 // the key of dense[0]
	ints  map[int64][]int32
	strs  map[string][]int32
}

// denseKeys makes x hold integer keys in [lo, hi] in a slice, when the
// range is small for the number of keys expected.
func (x *joinIndex) denseKeys(lo, hi int64) {
	if hi >= lo && uint64(hi-lo) < uint64(2*x.size+64) {
		x.dense, x.lo = make([][]int32, hi-lo+1), lo
	}
}

// get is the origins of key k; ok is false when no object holds it (a
// dense index holds no key with empty origins).
func (x *joinIndex) get(k joinKey) ([]int32, bool) {
	var v []int32
	var ok bool
	switch {
	case k.str:
		v, ok = x.strs[k.s]
	case x.dense != nil:
		if i := uint64(k.n - x.lo); i < uint64(len(x.dense)) {
			v = x.dense[i]
			ok = v != nil
		}
	default:
		v, ok = x.ints[k.n]
	}
	return v, ok
}

func (x *joinIndex) set(k joinKey, v []int32) {
	if !k.str && x.dense != nil {
		if i := uint64(k.n - x.lo); i < uint64(len(x.dense)) {
			x.dense[i] = v
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
	for i, v := range x.dense {
		if v != nil {
			x.ints[x.lo+int64(i)] = v
		}
	}
	x.dense = nil
}
