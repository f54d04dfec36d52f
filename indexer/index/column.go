package index

import (
	"slices"
	"strings"
)

// Columns hold a value per document number in chunks of chunkDocs
// documents. Snapshots share chunks: an update copies only the chunks it
// touches, so an incremental build costs its changes, not the table.
const (
	chunkShift = 12
	chunkDocs  = 1 << chunkShift
	chunkMask  = chunkDocs - 1
)

// column is the scalar values of one property by document number. Null
// and unused documents hold the zero vkey; the property's nulls bitmap
// tells nulls apart.
type column struct {
	exact  bool // whether values may keep an exact part
	chunks []*colChunk
}

type colChunk struct {
	pre   []uint64
	exact []string // nil while no value of the chunk has an exact part
}

func (c *column) get(d uint32) vkey {
	i := int(d >> chunkShift)
	if i >= len(c.chunks) {
		return vkey{}
	}
	ch := c.chunks[i]
	o := d & chunkMask
	if ch.exact == nil {
		return vkey{pre: ch.pre[o]}
	}
	return vkey{pre: ch.pre[o], exact: ch.exact[o]}
}

func (c *column) newChunk() *colChunk {
	return &colChunk{pre: make([]uint64, chunkDocs)}
}

// set writes one value in place; only builders and update copies call it,
// on chunks no reader sees.
func (c *column) set(d uint32, vk vkey) {
	i := int(d >> chunkShift)
	for len(c.chunks) <= i {
		c.chunks = append(c.chunks, c.newChunk())
	}
	ch := c.chunks[i]
	ch.pre[d&chunkMask] = vk.pre
	// Values may alias Arrow buffers that a reader reuses: the index keeps
	// copies.
	vk.exact = strings.Clone(vk.exact)
	if ch.exact == nil && vk.exact != "" {
		// Allocated on the first exact part: most timestamps have none.
		ch.exact = make([]string, chunkDocs)
	}
	if ch.exact != nil {
		ch.exact[d&chunkMask] = vk.exact
	}
}

// with returns a copy of c with the values of set, sharing the chunks it
// does not touch.
func (c *column) with(set map[uint32]vkey) *column {
	out := &column{exact: c.exact, chunks: slices.Clone(c.chunks)}
	copied := map[int]bool{}
	for d, vk := range set {
		i := int(d >> chunkShift)
		for len(out.chunks) <= i {
			out.chunks = append(out.chunks, out.newChunk())
			copied[len(out.chunks)-1] = true
		}
		if !copied[i] {
			old := out.chunks[i]
			ch := &colChunk{pre: slices.Clone(old.pre)}
			if old.exact != nil {
				ch.exact = slices.Clone(old.exact)
			}
			out.chunks[i] = ch
			copied[i] = true
		}
		out.set(d, vk)
	}
	return out
}

// listColumn is the non-null elements of one array property by document
// number.
type listColumn struct {
	exact  bool
	chunks []*listChunk
}

// listChunk holds the elements of chunkDocs documents: those of document
// o are pre[off[o]:off[o+1]] (and exact likewise).
type listChunk struct {
	off   []uint32
	pre   []uint64
	exact []string
}

func (c *listColumn) get(d uint32, buf []vkey) []vkey {
	buf = buf[:0]
	i := int(d >> chunkShift)
	if i >= len(c.chunks) {
		return buf
	}
	ch := c.chunks[i]
	o := d & chunkMask
	for j := ch.off[o]; j < ch.off[o+1]; j++ {
		vk := vkey{pre: ch.pre[j]}
		if ch.exact != nil {
			vk.exact = ch.exact[j]
		}
		buf = append(buf, vk)
	}
	return buf
}

// with returns a copy of c with the elements of set (nil or empty: none),
// rebuilding the chunks it touches.
func (c *listColumn) with(set map[uint32][]vkey) *listColumn {
	byChunk := map[int]map[uint32][]vkey{}
	for d, els := range set {
		i := int(d >> chunkShift)
		if byChunk[i] == nil {
			byChunk[i] = map[uint32][]vkey{}
		}
		byChunk[i][d&chunkMask] = els
	}
	out := &listColumn{exact: c.exact, chunks: slices.Clone(c.chunks)}
	var buf []vkey
	for i, docs := range byChunk {
		for len(out.chunks) <= i {
			out.chunks = append(out.chunks, &listChunk{off: make([]uint32, chunkDocs+1)})
		}
		old := out.chunks[i]
		ch := &listChunk{off: make([]uint32, chunkDocs+1)}
		for o := uint32(0); o < chunkDocs; o++ {
			els, ok := docs[o]
			if !ok {
				buf = c.getChunk(old, o, buf)
				els = buf
			}
			for _, vk := range els {
				ch.pre = append(ch.pre, vk.pre)
				if c.exact {
					ch.exact = append(ch.exact, strings.Clone(vk.exact))
				}
			}
			ch.off[o+1] = uint32(len(ch.pre))
		}
		out.chunks[i] = ch
	}
	return out
}

func (c *listColumn) getChunk(ch *listChunk, o uint32, buf []vkey) []vkey {
	buf = buf[:0]
	for j := ch.off[o]; j < ch.off[o+1]; j++ {
		vk := vkey{pre: ch.pre[j]}
		if ch.exact != nil {
			vk.exact = ch.exact[j]
		}
		buf = append(buf, vk)
	}
	return buf
}

// listBuilder collects the elements of documents added in any order.
type listBuilder struct {
	exact bool
	els   [][]vkey
}

func (b *listBuilder) add(d uint32, els []vkey) {
	for uint32(len(b.els)) <= d {
		b.els = append(b.els, nil)
	}
	out := make([]vkey, len(els))
	for i, vk := range els {
		out[i] = vkey{pre: vk.pre, exact: strings.Clone(vk.exact)}
	}
	b.els[d] = out
}

func (b *listBuilder) finish() *listColumn {
	c := &listColumn{exact: b.exact}
	for start := 0; start < len(b.els); start += chunkDocs {
		ch := &listChunk{off: make([]uint32, chunkDocs+1)}
		for o := 0; o < chunkDocs; o++ {
			if start+o < len(b.els) {
				for _, vk := range b.els[start+o] {
					ch.pre = append(ch.pre, vk.pre)
					if b.exact {
						ch.exact = append(ch.exact, vk.exact)
					}
				}
			}
			ch.off[o+1] = uint32(len(ch.pre))
		}
		c.chunks = append(c.chunks, ch)
	}
	b.els = nil
	return c
}
