package index

import (
	"slices"
	"strings"
)

// Columns hold a value per document number in chunks of chunkDocs
// documents. Snapshots share chunks: an update copies only the chunks it
// touches, so an incremental build costs its changes, not the table.
const (
	chunkShift = 10
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

// colChunk holds the values of chunkDocs documents: pres, and the exact
// parts packed (nil while none has one). While a builder fills it, exact
// parts collect in build until freeze packs them.
type colChunk struct {
	pre   []uint64
	exact *strs
	build []string
}

func (ch *colChunk) exactAt(o uint32) string {
	switch {
	case ch.exact != nil:
		return ch.exact.get(int(o))
	case ch.build != nil:
		return ch.build[o]
	}
	return ""
}

func (c *column) get(d uint32) vkey {
	i := int(d >> chunkShift)
	if i >= len(c.chunks) {
		return vkey{}
	}
	ch := c.chunks[i]
	o := d & chunkMask
	return vkey{pre: ch.pre[o], exact: ch.exactAt(o)}
}

// touch reads the entries of docs (see Snapshot.Prefetch).
func (c *column) touch(docs []uint32) uint64 {
	var x uint64
	for _, d := range docs {
		i := int(d >> chunkShift)
		if i >= len(c.chunks) {
			continue
		}
		ch, o := c.chunks[i], d&chunkMask
		x += ch.pre[o]
		if ch.exact != nil {
			x += ch.exact.touch(int(o))
		}
	}
	return x
}

// set writes one value in place and returns it as stored (its exact part
// copied); only builders call it, on chunks no reader sees, and freeze
// packs them afterwards.
func (c *column) set(d uint32, vk vkey) vkey {
	i := int(d >> chunkShift)
	for len(c.chunks) <= i {
		c.chunks = append(c.chunks, &colChunk{pre: make([]uint64, chunkDocs)})
	}
	ch := c.chunks[i]
	ch.pre[d&chunkMask] = vk.pre
	if ch.build == nil && vk.exact != "" {
		ch.build = make([]string, chunkDocs)
	}
	if ch.build != nil {
		// Values may alias Arrow buffers that a reader reuses: keep a copy.
		vk.exact = strings.Clone(vk.exact)
		ch.build[d&chunkMask] = vk.exact
	}
	return vk
}

// freeze packs the exact parts of every chunk a builder filled.
func (c *column) freeze() {
	for _, ch := range c.chunks {
		if ch.build != nil {
			ch.exact, ch.build = packStrs(ch.build), nil
		}
	}
}

// with returns a copy of c with the values of set, sharing the chunks it
// does not touch.
func (c *column) with(set map[uint32]vkey) *column {
	out := &column{exact: c.exact, chunks: slices.Clone(c.chunks)}
	copied := map[int]*colChunk{}
	for d, vk := range set {
		i := int(d >> chunkShift)
		for len(out.chunks) <= i {
			out.chunks = append(out.chunks, &colChunk{pre: make([]uint64, chunkDocs)})
		}
		ch := copied[i]
		if ch == nil {
			old := out.chunks[i]
			ch = &colChunk{pre: slices.Clone(old.pre)}
			if old.exact != nil {
				ch.build = old.exact.unpack()
			}
			copied[i] = ch
			out.chunks[i] = ch
		}
		o := d & chunkMask
		ch.pre[o] = vk.pre
		if ch.build == nil && vk.exact != "" {
			ch.build = make([]string, chunkDocs)
		}
		if ch.build != nil {
			ch.build[o] = vk.exact
		}
	}
	for _, ch := range copied {
		if ch.build != nil {
			ch.exact, ch.build = packStrs(ch.build), nil
		}
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
// o are pre[off[o]:off[o+1]], and their exact parts likewise.
type listChunk struct {
	off   []uint32
	pre   []uint64
	exact *strs // nil unless the column keeps exact parts
}

func (c *listColumn) get(d uint32, buf []vkey) []vkey {
	buf = buf[:0]
	i := int(d >> chunkShift)
	if i >= len(c.chunks) {
		return buf
	}
	return c.chunks[i].elements(d&chunkMask, buf)
}

func (ch *listChunk) elements(o uint32, buf []vkey) []vkey {
	buf = buf[:0]
	for j := ch.off[o]; j < ch.off[o+1]; j++ {
		vk := vkey{pre: ch.pre[j]}
		if ch.exact != nil {
			vk.exact = ch.exact.get(int(j))
		}
		buf = append(buf, vk)
	}
	return buf
}

// packList packs the elements of chunkDocs documents (els(o) for each).
func packList(exact bool, els func(o uint32) []vkey) *listChunk {
	ch := &listChunk{off: make([]uint32, chunkDocs+1)}
	var ex []string
	for o := uint32(0); o < chunkDocs; o++ {
		for _, vk := range els(o) {
			ch.pre = append(ch.pre, vk.pre)
			if exact {
				ex = append(ex, vk.exact) // packStrs copies
			}
		}
		ch.off[o+1] = uint32(len(ch.pre))
	}
	if exact {
		ch.exact = packStrs(ex)
	}
	return ch
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
		out.chunks[i] = packList(c.exact, func(o uint32) []vkey {
			if els, ok := docs[o]; ok {
				return els
			}
			buf = old.elements(o, buf)
			return buf
		})
	}
	return out
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
		// Values may alias Arrow buffers that a reader reuses: keep a copy.
		out[i] = vkey{pre: vk.pre, exact: strings.Clone(vk.exact)}
	}
	b.els[d] = out
}

func (b *listBuilder) finish() *listColumn {
	c := &listColumn{exact: b.exact}
	for start := 0; start < len(b.els); start += chunkDocs {
		c.chunks = append(c.chunks, packList(b.exact, func(o uint32) []vkey {
			if start+int(o) < len(b.els) {
				return b.els[start+int(o)]
			}
			return nil
		}))
	}
	b.els = nil
	return c
}
