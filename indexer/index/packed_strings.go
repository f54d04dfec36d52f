package index

import "unsafe"

// packedStrings is a packed, immutable sequence of strings: string i is
// data[offsets[i]:offsets[i+1]]. Packing keeps millions of keys, values
// and terms in a few pointer-free allocations, which costs no per-string
// header and nothing for the garbage collector to scan.
type packedStrings struct {
	offsets []uint32 // len = n+1
	data    []byte
}

func packStrings(ss []string) *packedStrings {
	n := 0
	for _, s := range ss {
		n += len(s)
	}
	a := &packedStrings{offsets: make([]uint32, len(ss)+1), data: make([]byte, 0, n)}
	for i, s := range ss {
		a.data = append(a.data, s...)
		a.offsets[i+1] = uint32(len(a.data))
	}
	return a
}

func (a *packedStrings) len() int { return len(a.offsets) - 1 }

// get returns string i. It aliases the packed bytes, which never change.
func (a *packedStrings) get(i int) string {
	lo, hi := a.offsets[i], a.offsets[i+1]
	if lo == hi {
		return ""
	}
	return unsafe.String(&a.data[lo], int(hi-lo))
}

// touch reads the first byte of string i, for prefetching.
func (a *packedStrings) touch(i int) uint64 {
	if lo := a.offsets[i]; int(lo) < len(a.data) {
		return uint64(a.data[lo])
	}
	return 0
}

// unpack returns the strings (aliasing the packed bytes).
func (a *packedStrings) unpack() []string {
	out := make([]string, a.len())
	for i := range out {
		out[i] = a.get(i)
	}
	return out
}
