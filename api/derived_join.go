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
// them: integer keys in a map of int64, the cheapest to hash, others in a
// map of strings.
type joinIndex struct {
	size int // the expected number of keys
	ints map[int64][]int32
	strs map[string][]int32
}

func (x *joinIndex) get(k joinKey) ([]int32, bool) {
	var v []int32
	var ok bool
	if k.str {
		v, ok = x.strs[k.s]
	} else {
		v, ok = x.ints[k.n]
	}
	return v, ok
}

func (x *joinIndex) set(k joinKey, v []int32) {
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
