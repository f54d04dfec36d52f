package index

import (
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
)

// topK returns the first k documents of bm after the cursor, in order.
func (x *exec) topK(bm *roaring.Bitmap, so *sorter, after *position, k int) ([]uint32, error) {
	h := newTopK(so, after, k)
	it := bm.ManyIterator()
	buf := make([]uint32, 256)
	for n := it.NextMany(buf); n > 0; n = it.NextMany(buf) {
		if err := x.ctx.Err(); err != nil {
			return nil, err
		}
		for _, d := range buf[:n] {
			h.offer(d)
		}
	}
	return h.sorted(), nil
}

// topKDense is topK over a dense bitset.
func (x *exec) topKDense(w dense, so *sorter, after *position, k int) []uint32 {
	h := newTopK(so, after, k)
	w.each(func(d uint32) bool { h.offer(d); return true })
	return h.sorted()
}

// topKHeap keeps the best k documents after a cursor in a max-heap (the worst
// on top). Each entry caches its first sort value, so that most
// candidates are turned away by one comparison with the top.
type topKHeap struct {
	sorter  *sorter
	after   *position
	k       int
	entries []topEntry
}

type topEntry struct {
	null  bool     // the first sort value is null
	value valueKey // the first sort value, or the primary key without sort fields
	doc   uint32
}

func newTopK(so *sorter, after *position, k int) *topKHeap {
	return &topKHeap{sorter: so, after: after, k: k, entries: make([]topEntry, 0, k)}
}

func (h *topKHeap) entry(d uint32) topEntry {
	if len(h.sorter.fields) == 0 {
		key := h.sorter.s.keys.get(d)
		return topEntry{value: valueKey{pre: keyPre(key), exact: key}, doc: d}
	}
	f := h.sorter.fields[0]
	if f.pi.nulls.Contains(d) {
		return topEntry{null: true, doc: d}
	}
	return topEntry{value: f.pi.column.get(d), doc: d}
}

// less orders two entries: by the cached first value, then in full.
func (h *topKHeap) less(a, b *topEntry) bool {
	switch {
	case a.null != b.null:
		return b.null // nulls last
	case !a.null:
		c := compareValueKeys(a.value, b.value)
		if len(h.sorter.fields) > 0 && h.sorter.fields[0].descending {
			c = -c
		}
		if c != 0 {
			return c < 0
		}
		if len(h.sorter.fields) == 0 {
			return false // keys are unique
		}
	}
	return h.sorter.compare(a.doc, b.doc) < 0
}

func (h *topKHeap) offer(d uint32) {
	if h.after != nil && h.sorter.compareTo(d, h.after) <= 0 {
		return
	}
	e := h.entry(d)
	if len(h.entries) < h.k {
		h.entries = append(h.entries, e)
		h.up(len(h.entries) - 1)
		return
	}
	if !h.less(&e, &h.entries[0]) {
		return
	}
	h.entries[0] = e
	h.down(0)
}

// The heap keeps its worst entry at 0: a parent is never less than a kid.
func (h *topKHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(&h.entries[p], &h.entries[i]) {
			return
		}
		h.entries[p], h.entries[i] = h.entries[i], h.entries[p]
		i = p
	}
}

func (h *topKHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h.entries) {
			return
		}
		m := l
		if r := l + 1; r < len(h.entries) && h.less(&h.entries[l], &h.entries[r]) {
			m = r
		}
		if !h.less(&h.entries[i], &h.entries[m]) {
			return
		}
		h.entries[i], h.entries[m] = h.entries[m], h.entries[i]
		i = m
	}
}

func (h *topKHeap) sorted() []uint32 {
	slices.SortFunc(h.entries, func(a, b topEntry) int {
		switch {
		case h.less(&a, &b):
			return -1
		case h.less(&b, &a):
			return 1
		}
		return 0
	})
	out := make([]uint32, len(h.entries))
	for i, e := range h.entries {
		out[i] = e.doc
	}
	return out
}
