package index

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// An order is the documents with a non-null value of one property, sorted
// by (value, primary key): the index a sorted page walks and a range
// filter cuts, like a btree on (property, key). It is a list of blocks,
// each sorted and holding the pre of its entries inline, so binary search
// and walks rarely touch the columns. Updates copy only the blocks they
// change (and the small block list).
const (
	blockTarget = 1024 // entries per block after a split or a build
	blockMax    = 2 * blockTarget
)

type order struct {
	blocks []*orderBlock
	starts []int // starts[i] is the position of blocks[i]'s first entry; starts[len(blocks)] the total
	// lastPre and lastDoc are each block's last entry, side by side: the
	// binary search over the blocks reads them, not the blocks (one
	// cache miss per step at a million documents otherwise).
	lastPre []uint64
	lastDoc []uint32
}

type orderBlock struct {
	pre []uint64
	doc []uint32
}

// ties gives the exact part and the encoded primary key of a document
// that an order holds; they break ties between equal pres.
type ties interface {
	exactOf(d uint32) string
	keyOf(d uint32) string
	// exactParts reports whether exactOf may return more than "": when
	// not, the pres alone order the values.
	exactParts() bool
}

// entry is a (value, key, document) that an order holds or will hold.
type entry struct {
	value valueKey
	key   string
	doc   uint32
}

func compareEntries(a, b *entry) int {
	if c := compareValueKeys(a.value, b.value); c != 0 {
		return c
	}
	return strings.Compare(a.key, b.key)
}

func newOrder(blocks []*orderBlock) *order {
	o := &order{blocks: blocks}
	o.index()
	return o
}

func (o *order) index() {
	o.starts = make([]int, len(o.blocks)+1)
	o.lastPre = make([]uint64, len(o.blocks))
	o.lastDoc = make([]uint32, len(o.blocks))
	for i, b := range o.blocks {
		o.starts[i+1] = o.starts[i] + len(b.doc)
		if n := len(b.doc); n > 0 {
			o.lastPre[i], o.lastDoc[i] = b.pre[n-1], b.doc[n-1]
		}
	}
}

func (o *order) len() int { return o.starts[len(o.blocks)] }

// locate returns the block and offset of position p (0 <= p < len).
func (o *order) locate(p int) (int, int) {
	bi := sort.Search(len(o.blocks), func(i int) bool { return o.starts[i+1] > p })
	return bi, p - o.starts[bi]
}

// pre returns the pre of the entry at position p.
func (o *order) pre(p int) uint64 {
	bi, j := o.locate(p)
	return o.blocks[bi].pre[j]
}

// doc returns the document at position p.
func (o *order) doc(p int) uint32 {
	bi, j := o.locate(p)
	return o.blocks[bi].doc[j]
}

// search returns the first position whose entry is not before the target:
// before(pre, doc) must be true for a prefix of the order and false after.
func (o *order) search(before func(pre uint64, doc uint32) bool) int {
	bi := sort.Search(len(o.blocks), func(i int) bool { return !before(o.lastPre[i], o.lastDoc[i]) })
	if bi == len(o.blocks) {
		return o.len()
	}
	b := o.blocks[bi]
	j := sort.Search(len(b.doc), func(j int) bool { return !before(b.pre[j], b.doc[j]) })
	return o.starts[bi] + j
}

// lowerBound is the first position whose value is >= v (> v when after).
func (o *order) lowerBound(t ties, v valueKey, after bool) int {
	return o.search(func(pre uint64, d uint32) bool {
		if pre != v.pre {
			return pre < v.pre
		}
		c := strings.Compare(t.exactOf(d), v.exact)
		if after {
			return c <= 0
		}
		return c < 0
	})
}

// afterEntry is the first position whose (value, key) is > (v, key).
func (o *order) afterEntry(t ties, v valueKey, key string) int {
	return o.search(func(pre uint64, d uint32) bool {
		if pre != v.pre {
			return pre < v.pre
		}
		if c := strings.Compare(t.exactOf(d), v.exact); c != 0 {
			return c < 0
		}
		return t.keyOf(d) <= key
	})
}

// forEach calls fn for the documents of positions [from, to) in order,
// until fn returns false.
func (o *order) forEach(from, to int, fn func(p int, d uint32) bool) (completed bool) {
	if from >= to {
		return true
	}
	bi, j := o.locate(from)
	for p := from; p < to; bi, j = bi+1, 0 {
		b := o.blocks[bi]
		for ; j < len(b.doc) && p < to; j, p = j+1, p+1 {
			if !fn(p, b.doc[j]) {
				return false
			}
		}
	}
	return true
}

// pair is an entry of an order being built: its pre and document; ties
// resolves equal pres.
type pair struct {
	pre uint64
	doc uint32
}

// buildOrder sorts pairs and cuts them into blocks.
func buildOrder(ps []pair, t ties) *order {
	slices.SortFunc(ps, func(a, b pair) int {
		switch {
		case a.pre < b.pre:
			return -1
		case a.pre > b.pre:
			return 1
		}
		if c := strings.Compare(t.exactOf(a.doc), t.exactOf(b.doc)); c != 0 {
			return c
		}
		return strings.Compare(t.keyOf(a.doc), t.keyOf(b.doc))
	})
	return orderOfSorted(ps, func(p pair) (uint64, uint32) { return p.pre, p.doc })
}

// orderOfSorted is the order of entries already in order, cut into
// blocks; at reads an entry's pre and document.
func orderOfSorted[E any](es []E, at func(E) (uint64, uint32)) *order {
	var blocks []*orderBlock
	for len(es) > 0 {
		n := min(len(es), blockTarget)
		b := &orderBlock{pre: make([]uint64, n), doc: make([]uint32, n)}
		for i := range n {
			b.pre[i], b.doc[i] = at(es[i])
		}
		blocks = append(blocks, b)
		es = es[n:]
	}
	return newOrder(blocks)
}

// orderOf is the order of entries that carry their values and keys.
func orderOf(es []entry) *order {
	slices.SortFunc(es, func(a, b entry) int { return compareEntries(&a, &b) })
	ps := make([]pair, len(es))
	for i, e := range es {
		ps[i] = pair{pre: e.value.pre, doc: e.doc}
	}
	return buildOrder(ps, noTies{})
}

// noTies is for pairs already in order.
type noTies struct{}

func (noTies) exactOf(uint32) string { return "" }
func (noTies) keyOf(uint32) string   { return "" }
func (noTies) exactParts() bool      { return false }

// update returns a copy of o without the removed entries and with the
// added ones. Both hold the values and keys the entries have (removed:
// before the update, added: after); t gives those of the entries o keeps,
// which the update does not change.
func (o *order) update(t ties, removed, added []entry) (*order, error) {
	if len(removed) == 0 && len(added) == 0 {
		return o, nil // shared, so that what is kept of it carries (bins, joins)
	}
	if len(o.blocks) == 0 {
		if len(removed) > 0 {
			return nil, fmt.Errorf("index order: document %d is not where its value says", removed[0].doc)
		}
		return orderOf(added), nil
	}
	// Per block: the offsets of removed entries, and the entries to insert
	// with the offset they go before, both in order.
	type insert struct {
		at int
		e  entry
	}
	type edit struct {
		drop []int
		ins  []insert
	}
	edits := map[int]*edit{}
	editOf := func(bi int) *edit {
		e := edits[bi]
		if e == nil {
			e = &edit{}
			edits[bi] = e
		}
		return e
	}
	before := func(x *entry) func(uint64, uint32) bool {
		return func(pre uint64, d uint32) bool {
			if pre != x.value.pre {
				return pre < x.value.pre
			}
			if c := strings.Compare(t.exactOf(d), x.value.exact); c != 0 {
				return c < 0
			}
			return t.keyOf(d) < x.key
		}
	}
	for i := range removed {
		r := &removed[i]
		p := o.search(before(r))
		if p >= o.len() || o.doc(p) != r.doc {
			return nil, fmt.Errorf("index order: document %d is not where its value says", r.doc)
		}
		bi, j := o.locate(p)
		e := editOf(bi)
		e.drop = append(e.drop, j)
	}
	slices.SortFunc(added, func(a, b entry) int { return compareEntries(&a, &b) })
	last := o.blocks[len(o.blocks)-1]
	for _, a := range added {
		p := o.search(before(&a))
		bi, j := len(o.blocks)-1, len(last.doc)
		if p < o.len() {
			bi, j = o.locate(p)
		}
		e := editOf(bi)
		e.ins = append(e.ins, insert{at: j, e: a})
	}
	// The new order's index is made as its blocks are: an unchanged
	// block's entries are copied from the old index rather than read from
	// the block, a cold line a block (7 ms an edit at ten million).
	n := &order{
		blocks:  make([]*orderBlock, 0, len(o.blocks)+len(edits)),
		starts:  make([]int, 1, len(o.blocks)+len(edits)+1),
		lastPre: make([]uint64, 0, len(o.blocks)+len(edits)),
		lastDoc: make([]uint32, 0, len(o.blocks)+len(edits)),
	}
	for bi, b := range o.blocks {
		e := edits[bi]
		if e == nil {
			n.blocks = append(n.blocks, b)
			n.starts = append(n.starts, n.starts[len(n.starts)-1]+o.starts[bi+1]-o.starts[bi])
			n.lastPre, n.lastDoc = append(n.lastPre, o.lastPre[bi]), append(n.lastDoc, o.lastDoc[bi])
			continue
		}
		slices.Sort(e.drop)
		// Added entries are sorted, so their offsets are too.
		size := len(b.doc) - len(e.drop) + len(e.ins)
		nb := &orderBlock{pre: make([]uint64, 0, size), doc: make([]uint32, 0, size)}
		from, di, ii := 0, 0, 0
		for from <= len(b.doc) {
			// The next offset where something happens.
			next := len(b.doc)
			if di < len(e.drop) {
				next = min(next, e.drop[di])
			}
			if ii < len(e.ins) {
				next = min(next, e.ins[ii].at)
			}
			nb.pre, nb.doc = append(nb.pre, b.pre[from:next]...), append(nb.doc, b.doc[from:next]...)
			for ; ii < len(e.ins) && e.ins[ii].at == next; ii++ {
				nb.pre, nb.doc = append(nb.pre, e.ins[ii].e.value.pre), append(nb.doc, e.ins[ii].e.doc)
			}
			from = next
			if di < len(e.drop) && e.drop[di] == next {
				di++
				from++
			} else if next == len(b.doc) {
				break
			}
		}
		for len(nb.doc) > blockMax {
			n.add(&orderBlock{pre: slices.Clip(nb.pre[:blockTarget]), doc: slices.Clip(nb.doc[:blockTarget])})
			nb = &orderBlock{pre: nb.pre[blockTarget:], doc: nb.doc[blockTarget:]}
		}
		if len(nb.doc) > 0 {
			n.add(nb)
		}
	}
	return n, nil
}

// add appends a non-empty block and its index entries.
func (o *order) add(b *orderBlock) {
	k := len(b.doc)
	o.blocks = append(o.blocks, b)
	o.starts = append(o.starts, o.starts[len(o.starts)-1]+k)
	o.lastPre, o.lastDoc = append(o.lastPre, b.pre[k-1]), append(o.lastDoc, b.doc[k-1])
}
