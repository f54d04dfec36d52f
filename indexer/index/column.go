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
// and unused documents hold the zero valueKey; the property's nulls bitmap
// tells nulls apart.
type column struct {
	exact  bool // whether values may keep an exact part
	chunks []*columnChunk
}

// columnChunk holds the values of chunkDocs documents: pres, and the exact
// parts packed (nil while none has one). While a builder fills it, exact
// parts collect in build until freeze packs them.
type columnChunk struct {
	pre   []uint64
	exact *packedStrings
	build []string
}

func (ch *columnChunk) exactAt(o uint32) string {
	switch {
	case ch.exact != nil:
		return ch.exact.get(int(o))
	case ch.build != nil:
		return ch.build[o]
	}
	return ""
}

func (c *column) get(d uint32) valueKey {
	i := int(d >> chunkShift)
	if i >= len(c.chunks) {
		return valueKey{}
	}
	ch := c.chunks[i]
	o := d & chunkMask
	return valueKey{pre: ch.pre[o], exact: ch.exactAt(o)}
}

// preOf is the pre of document d's value: get without the exact part,
// for columns that keep none.
func (c *column) preOf(d uint32) uint64 {
	i := int(d >> chunkShift)
	if i >= len(c.chunks) {
		return 0
	}
	return c.chunks[i].pre[d&chunkMask]
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
func (c *column) set(d uint32, vk valueKey) valueKey {
	i := int(d >> chunkShift)
	for len(c.chunks) <= i {
		c.chunks = append(c.chunks, &columnChunk{pre: make([]uint64, chunkDocs)})
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
	for i := range c.chunks {
		c.freezeChunk(i)
	}
}

// freezeChunk packs the exact parts of chunk i (if the column has it),
// once a builder has set all its values.
func (c *column) freezeChunk(i int) {
	if i < len(c.chunks) {
		if ch := c.chunks[i]; ch.build != nil {
			ch.exact, ch.build = packStrings(ch.build), nil
		}
	}
}

// with returns a copy of c with the values of set, sharing the chunks it
// does not touch.
func (c *column) with(set map[uint32]valueKey) *column {
	out := &column{exact: c.exact, chunks: slices.Clone(c.chunks)}
	copied := map[int]*columnChunk{}
	for d, vk := range set {
		i := int(d >> chunkShift)
		for len(out.chunks) <= i {
			out.chunks = append(out.chunks, &columnChunk{pre: make([]uint64, chunkDocs)})
		}
		ch := copied[i]
		if ch == nil {
			old := out.chunks[i]
			ch = &columnChunk{pre: slices.Clone(old.pre)}
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
			ch.exact, ch.build = packStrings(ch.build), nil
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
// o are pre[offsets[o]:offsets[o+1]], and their exact parts likewise.
type listChunk struct {
	offsets []uint32
	pre     []uint64
	exact   *packedStrings // nil unless the column keeps exact parts
}

func (c *listColumn) get(d uint32, buf []valueKey) []valueKey {
	buf = buf[:0]
	i := int(d >> chunkShift)
	if i >= len(c.chunks) {
		return buf
	}
	return c.chunks[i].elements(d&chunkMask, buf)
}

func (ch *listChunk) elements(o uint32, buf []valueKey) []valueKey {
	buf = buf[:0]
	for j := ch.offsets[o]; j < ch.offsets[o+1]; j++ {
		vk := valueKey{pre: ch.pre[j]}
		if ch.exact != nil {
			vk.exact = ch.exact.get(int(j))
		}
		buf = append(buf, vk)
	}
	return buf
}

// packList packs the elements of chunkDocs documents (els(o) for each).
func packList(exact bool, els func(o uint32) []valueKey) *listChunk {
	ch := &listChunk{offsets: make([]uint32, chunkDocs+1)}
	var ex []string
	for o := uint32(0); o < chunkDocs; o++ {
		for _, vk := range els(o) {
			ch.pre = append(ch.pre, vk.pre)
			if exact {
				ex = append(ex, vk.exact) // packStrings copies
			}
		}
		ch.offsets[o+1] = uint32(len(ch.pre))
	}
	if exact {
		ch.exact = packStrings(ex)
	}
	return ch
}

// with returns a copy of c with the elements of set (nil or empty: none),
// rebuilding the chunks it touches.
func (c *listColumn) with(set map[uint32][]valueKey) *listColumn {
	byChunk := map[int]map[uint32][]valueKey{}
	for d, els := range set {
		i := int(d >> chunkShift)
		if byChunk[i] == nil {
			byChunk[i] = map[uint32][]valueKey{}
		}
		byChunk[i][d&chunkMask] = els
	}
	out := &listColumn{exact: c.exact, chunks: slices.Clone(c.chunks)}
	var buf []valueKey
	for i, docs := range byChunk {
		for len(out.chunks) <= i {
			out.chunks = append(out.chunks, &listChunk{offsets: make([]uint32, chunkDocs+1)})
		}
		old := out.chunks[i]
		out.chunks[i] = packList(c.exact, func(o uint32) []valueKey {
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
	els   [][]valueKey
}

func (b *listBuilder) add(d uint32, els []valueKey) {
	for uint32(len(b.els)) <= d {
		b.els = append(b.els, nil)
	}
	out := make([]valueKey, len(els))
	for i, vk := range els {
		// Values may alias Arrow buffers that a reader reuses: keep a copy.
		out[i] = valueKey{pre: vk.pre, exact: strings.Clone(vk.exact)}
	}
	b.els[d] = out
}

func (b *listBuilder) finish() *listColumn {
	c := &listColumn{exact: b.exact}
	for start := 0; start < len(b.els); start += chunkDocs {
		c.chunks = append(c.chunks, packList(b.exact, func(o uint32) []valueKey {
			if start+int(o) < len(b.els) {
				return b.els[start+int(o)]
			}
			return nil
		}))
	}
	b.els = nil
	return c
}
