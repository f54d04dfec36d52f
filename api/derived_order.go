package api

import (
	"bytes"
	"container/heap"
	"slices"
)

// The order of a page of objects with derived properties: by the sort
// fields, nulls last whatever the direction, then by primary key. A page
// needs the first size objects only: a bounded heap picks them, so that a
// top 100 of every customer costs about one comparison per customer.

// ordering compares the objects of rs by the sort fields, reading the
// values of each field from one column.
type ordering struct {
	rs   *derivedRows
	sort []sortField
	cols []column // cols[k]: sort field k of each object
}

func newOrdering(rs *derivedRows, sort []sortField) *ordering {
	o := &ordering{rs: rs, sort: sort}
	base := len(rs.base.Properties)
	for _, f := range sort {
		i := rs.t.PropertyIndex(f.prop.APIName)
		if i >= base {
			o.cols = append(o.cols, rs.values[i-base])
			continue
		}
		col := make([]any, rs.page.Len())
		for j := range col {
			col[j] = cellValue(rs.page, rs.base, j, i)
		}
		o.cols = append(o.cols, column{anys: col})
	}
	return o
}

// compare orders objects a and b.
func (o *ordering) compare(a, b int) int {
	for k := range o.cols {
		if c := o.cols[k].compareAt(a, b, o.sort[k].desc); c != 0 {
			return c
		}
	}
	return bytes.Compare(o.rs.page.Key(a), o.rs.page.Key(b))
}

// compareTo orders object j against a position.
func (o *ordering) compareTo(j int, at position) int {
	for k := range o.cols {
		if c := compareNullsLast(o.cols[k].at(j), at.values[k], o.sort[k].desc); c != 0 {
			return c
		}
	}
	return bytes.Compare(o.rs.page.Key(j), at.key)
}

// position is where object j stands.
func (o *ordering) position(j int) position {
	p := position{key: o.rs.page.Key(j), values: make([]any, len(o.cols))}
	for k := range o.cols {
		p.values[k] = o.cols[k].at(j)
	}
	return p
}

// first is the first n of objects js, in order.
func (o *ordering) first(js []int, n int) []int {
	if n >= len(js)/4 {
		out := slices.Clone(js)
		slices.SortFunc(out, o.compare)
		return out[:min(n, len(out))]
	}
	h := &topHeap{o: o}
	for _, j := range js {
		switch {
		case len(h.js) < n:
			heap.Push(h, j)
		case o.compare(j, h.js[0]) < 0:
			h.js[0] = j
			heap.Fix(h, 0)
		}
	}
	slices.SortFunc(h.js, o.compare)
	return h.js
}

// topHeap holds the first objects seen so far, the last of them on top.
type topHeap struct {
	o  *ordering
	js []int
}

func (h *topHeap) Len() int           { return len(h.js) }
func (h *topHeap) Less(a, b int) bool { return h.o.compare(h.js[a], h.js[b]) > 0 }
func (h *topHeap) Swap(a, b int)      { h.js[a], h.js[b] = h.js[b], h.js[a] }
func (h *topHeap) Push(x any)         { h.js = append(h.js, x.(int)) }
func (h *topHeap) Pop() any {
	x := h.js[len(h.js)-1]
	h.js = h.js[:len(h.js)-1]
	return x
}
