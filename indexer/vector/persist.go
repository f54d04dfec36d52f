package vector

import (
	"math"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
)

// An index is saved inside its snapshot's file (indexer/index persist.go),
// through the file's encoder, so that the file's checksum covers it:
//
//	dimension | metric | M | efConstruction | efSearch | exactBelow | seed
//	| nodes | entry | top+1 | per node chunk: documents, levels, level-0
//	links | per node above level 0: its links per level | vectors as
//	float32 bits | documents with a vector | their nodes
//
// A reload reads the graph back instead of rebuilding it: a rebuild of a
// million vectors takes minutes, a read seconds.

// Encoder is what Save writes with.
type Encoder interface {
	Uvarint(v uint64)
	Uint32s(vs []uint32)
	Bitmap(bm *roaring.Bitmap)
}

// Decoder is what Load reads with. After a failure its reads return zero
// values and Err is set; Load checks every number it reads against the
// bounds of the index, so a damaged file is refused, never a panic.
type Decoder interface {
	Count(limit uint64, what string) int
	Uint32s(n int) []uint32
	Bitmap() *roaring.Bitmap
	Fail(format string, args ...any)
	Err() error
}

// maxLevel bounds a node's level (randomLevel draws at most 16).
const maxLevel = 16

// Save writes the index.
func (ix *Index) Save(e Encoder) {
	p := ix.params
	for _, v := range []int{ix.dim, int(ix.metric), p.M, p.EfConstruction, p.EfSearch, p.ExactBelow} {
		e.Uvarint(uint64(v))
	}
	e.Uvarint(p.Seed)
	e.Uvarint(uint64(ix.count))
	e.Uvarint(uint64(ix.entry))
	e.Uvarint(uint64(ix.top + 1))
	levels := make([]uint32, chunkSize)
	for ci, c := range ix.nodes {
		n := min(chunkSize, ix.count-ci*chunkSize)
		e.Uint32s(c.docs[:n])
		for j := range n {
			levels[j] = uint32(c.levels[j])
		}
		e.Uint32s(levels[:n])
		e.Uint32s(c.base[:n*(ix.m0+1)])
		for j := range n {
			for l := range int(c.levels[j]) {
				links := c.upper[j][l]
				e.Uvarint(uint64(len(links)))
				e.Uint32s(links)
			}
		}
	}
	bits := make([]uint32, 0, chunkSize*ix.dim)
	for ci := range ix.vectors {
		bits = bits[:0]
		for j := range min(chunkSize, ix.count-ci*chunkSize) {
			for _, x := range ix.vectorOf(uint32(ci*chunkSize + j)) {
				bits = append(bits, math.Float32bits(x))
			}
		}
		e.Uint32s(bits)
	}
	e.Bitmap(ix.present)
	nodes := make([]uint32, 0, ix.present.GetCardinality())
	it := ix.present.Iterator()
	for it.HasNext() {
		nodes = append(nodes, ix.nodeOf(it.Next()))
	}
	e.Uint32s(nodes)
}

// Load reads an index Save wrote for a property of a dimension and
// metric; nil when the decoder failed.
func Load(dd Decoder, dim int, metric Metric) *Index {
	fail := func(what string) *Index { dd.Fail("vector index: %s", what); return nil }
	if d := dd.Count(1<<13, "vector dimension"); d != dim {
		return fail("dimension")
	}
	if m := dd.Count(2, "vector metric"); Metric(m) != metric {
		return fail("metric")
	}
	p := Params{M: dd.Count(256, "M"), EfConstruction: dd.Count(1<<16, "efConstruction"), EfSearch: dd.Count(1<<16, "efSearch"),
		ExactBelow: dd.Count(1<<32, "exactBelow"), Seed: uint64(dd.Count(math.MaxUint64, "seed"))}
	if p.M < 2 {
		return fail("M")
	}
	ix := New(dim, metric, p)
	ix.writer = &owner{}
	count := dd.Count(1<<32-1, "nodes")
	entry := dd.Count(uint64(max(count, 1)-1), "entry")
	top := dd.Count(maxLevel+1, "top level") - 1
	if dd.Err() != nil || (count == 0) != (top < 0) {
		return fail("header")
	}
	ix.count, ix.entry, ix.top = count, uint32(entry), top
	node := func(v uint32) bool { return int(v) < count }
	for ci := 0; ci*chunkSize < count; ci++ {
		n := min(chunkSize, count-ci*chunkSize)
		c := &nodeChunk{owner: ix.writer, base: make([]uint32, chunkSize*(ix.m0+1))}
		copy(c.docs[:], dd.Uint32s(n))
		levels := dd.Uint32s(n)
		base := dd.Uint32s(n * (ix.m0 + 1))
		if dd.Err() != nil {
			return nil
		}
		copy(c.base, base)
		for j := range n {
			if levels[j] > maxLevel {
				return fail("level")
			}
			c.levels[j] = uint8(levels[j])
			row := base[j*(ix.m0+1) : (j+1)*(ix.m0+1)]
			if int(row[0]) > ix.m0 || !all(row[1:1+row[0]], node) {
				return fail("links")
			}
			if levels[j] == 0 {
				continue
			}
			if c.upper == nil {
				c.upper = make([][][]uint32, chunkSize)
			}
			c.upper[j] = make([][]uint32, levels[j])
			for l := range c.upper[j] {
				links := dd.Uint32s(dd.Count(uint64(ix.m), "links"))
				if dd.Err() != nil || !all(links, node) {
					return fail("upper links")
				}
				c.upper[j][l] = append(make([]uint32, 0, ix.m), links...)
			}
		}
		ix.nodes = append(ix.nodes, c)
	}
	if top >= 0 && int(ix.nodes[entry>>chunkBits].levels[entry&chunkMask]) != top {
		return fail("entry level")
	}
	for ci := 0; ci*chunkSize < count; ci++ {
		bits := dd.Uint32s(min(chunkSize, count-ci*chunkSize) * dim)
		if dd.Err() != nil {
			return nil
		}
		data := make([]float32, 0, chunkSize*(dim+1))
		for j := 0; j < len(bits); j += dim {
			start := len(data)
			for _, b := range bits[j : j+dim] {
				data = append(data, math.Float32frombits(b))
			}
			data = append(data, dotProduct(data[start:], data[start:]))
		}
		ix.vectors = append(ix.vectors, &vectorChunk{owner: ix.writer, data: data})
	}
	present := dd.Bitmap()
	if dd.Err() != nil {
		return nil
	}
	nodes := dd.Uint32s(int(min(present.GetCardinality(), uint64(count))))
	if dd.Err() != nil || uint64(len(nodes)) != present.GetCardinality() {
		return fail("documents")
	}
	it := present.Iterator()
	for _, n := range nodes {
		d := it.Next()
		if !node(n) || ix.docOf(n) != d {
			return fail("document nodes")
		}
		ix.setNode(d, n)
	}
	ix.present = present
	ix.writer = nil
	ix.visited = &sync.Pool{}
	return ix
}

func all(vs []uint32, ok func(uint32) bool) bool {
	for _, v := range vs {
		if !ok(v) {
			return false
		}
	}
	return true
}
