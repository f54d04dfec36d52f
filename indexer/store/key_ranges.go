package store

import (
	"bytes"
	"sort"
)

// maxKeyRanges bounds the ranges a keyRanges keeps: past it, they become
// one range from the least key to the greatest, which covers every key
// and saves nothing, but stays right.
const maxKeyRanges = 1024

// keyRanges covers the keys of a generation's objects with a few key
// ranges, so that a key outside them is known absent without searching
// the objects. A table written in key order, file after file, gives a
// build one ascending run of keys per data file, in whatever order it
// reads the files; each run becomes one range (the writer ends a run when
// the data file changes), and the build's every row is inserted without
// a lookup. Deletes leave the ranges as they are: a
// range may cover absent keys, never the reverse.
type keyRanges struct {
	ranges []keyRange // sorted, disjoint
	last   int        // the range the last add extended or made
	// run: the next key may extend range last. A run ends with its data
	// file; extending a range over the gap before the next file's keys
	// would cover keys that another file holds.
	run bool
}

type keyRange struct{ lo, hi []byte }

// cover starts the ranges from what a generation holds: the keys from
// first to last (none when first is nil).
func (k *keyRanges) cover(first, last []byte) {
	k.ranges, k.last, k.run = k.ranges[:0], 0, false
	if first != nil {
		k.ranges = append(k.ranges, keyRange{lo: bytes.Clone(first), hi: bytes.Clone(last)})
	}
}

// find returns the first range whose hi is at least key.
func (k *keyRanges) find(key []byte) int {
	return sort.Search(len(k.ranges), func(i int) bool { return bytes.Compare(k.ranges[i].hi, key) >= 0 })
}

// absent says that no stored key equals key.
func (k *keyRanges) absent(key []byte) bool {
	i := k.find(key)
	return i == len(k.ranges) || bytes.Compare(k.ranges[i].lo, key) > 0
}

// endRun ends the run of keys: the next key starts a range of its own.
func (k *keyRanges) endRun() { k.run = false }

// add records a stored key.
func (k *keyRanges) add(key []byte) {
	if k.run && k.last < len(k.ranges) && k.extend(k.last, key) {
		return // the common case: the next key of the last run
	}
	k.run = true
	i := k.find(key)
	if i < len(k.ranges) && bytes.Compare(k.ranges[i].lo, key) <= 0 {
		k.last = i // covered already
		return
	}
	if len(k.ranges) == maxKeyRanges {
		lo, hi := k.ranges[0].lo, k.ranges[len(k.ranges)-1].hi
		if bytes.Compare(key, lo) < 0 {
			lo = key
		}
		if bytes.Compare(key, hi) > 0 {
			hi = key
		}
		k.ranges = append(k.ranges[:0], keyRange{lo: bytes.Clone(lo), hi: bytes.Clone(hi)})
		k.last = 0
		return
	}
	k.ranges = append(k.ranges, keyRange{})
	copy(k.ranges[i+1:], k.ranges[i:])
	k.ranges[i] = keyRange{lo: bytes.Clone(key), hi: bytes.Clone(key)}
	k.last = i
}

// extend covers key with range i when key falls in it or between its hi
// and the next range's lo, and says whether it did.
func (k *keyRanges) extend(i int, key []byte) bool {
	r := &k.ranges[i]
	switch {
	case bytes.Compare(key, r.lo) < 0:
		return false
	case bytes.Compare(key, r.hi) <= 0:
		return true
	case i+1 < len(k.ranges) && bytes.Compare(key, k.ranges[i+1].lo) >= 0:
		return false
	}
	r.hi = append(r.hi[:0], key...)
	return true
}
