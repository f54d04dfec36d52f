package index

import "unsafe"

// strs is a packed, immutable sequence of strings: string i is
// data[off[i]:off[i+1]]. Packing keeps millions of keys, values and terms
// in a few pointer-free allocations, which costs no per-string header and
// nothing for the garbage collector to scan.
type strs struct {
	off  []uint32 // len = n+1
	data []byte
}

func packStrs(ss []string) *strs {
	n := 0
	for _, s := range ss {
		n += len(s)
	}
	a := &strs{off: make([]uint32, len(ss)+1), data: make([]byte, 0, n)}
	for i, s := range ss {
		a.data = append(a.data, s...)
		a.off[i+1] = uint32(len(a.data))
	}
	return a
}

func (a *strs) len() int { return len(a.off) - 1 }

// get returns string i. It aliases the packed bytes, which never change.
func (a *strs) get(i int) string {
	lo, hi := a.off[i], a.off[i+1]
	if lo == hi {
		return ""
	}
	return unsafe.String(&a.data[lo], int(hi-lo))
}

// touch reads the first byte of string i, for prefetching.
func (a *strs) touch(i int) uint64 {
	if lo := a.off[i]; int(lo) < len(a.data) {
		return uint64(a.data[lo])
	}
	return 0
}

// unpack returns the strings (aliasing the packed bytes).
func (a *strs) unpack() []string {
	out := make([]string, a.len())
	for i := range out {
		out[i] = a.get(i)
	}
	return out
}
