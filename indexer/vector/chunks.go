package vector

// Nodes and documents are held in chunks of chunkSize. An Index shares
// its chunks with the Index it was applied to; a writer copies a chunk
// the first time it changes it and marks the copy as its own (owner), so
// that a chunk reachable from a published Index is never written.
const (
	chunkBits = 10
	chunkSize = 1 << chunkBits
	chunkMask = chunkSize - 1
	noNode    = ^uint32(0)
)

// owner marks the chunks one writer made; compared by address.
type owner struct{ _ byte }

// vectorChunk holds the vectors of chunkSize nodes, each followed by its
// squared norm: a distance reads both, and side by side they share cache
// lines. A node's vector never changes, so only the chunk being appended
// to is ever copied.
type vectorChunk struct {
	owner *owner
	data  []float32 // up to chunkSize * (dimension+1), grown as nodes are added
}

// nodeChunk holds chunkSize nodes: their documents, levels and links. base
// holds each node's level-0 links as a count then up to m0 node numbers;
// upper holds the links of levels 1 and up, per node.
type nodeChunk struct {
	owner  *owner
	docs   [chunkSize]uint32
	levels [chunkSize]uint8
	base   []uint32     // chunkSize * (m0 + 1)
	upper  [][][]uint32 // per node, levels 1..level; nil until a node has upper levels
}

// docChunk maps chunkSize documents to their live nodes (noNode: none).
type docChunk struct {
	owner *owner
	nodes [chunkSize]uint32
}

func newDocChunk(o *owner) *docChunk {
	c := &docChunk{owner: o}
	for i := range c.nodes {
		c.nodes[i] = noNode
	}
	return c
}

// vectorOf is node n's vector.
func (ix *Index) vectorOf(n uint32) []float32 {
	c := ix.vectors[n>>chunkBits]
	i := int(n&chunkMask) * (ix.dim + 1)
	return c.data[i : i+ix.dim : i+ix.dim]
}

// normOf is node n's squared norm.
func (ix *Index) normOf(n uint32) float32 {
	return ix.vectors[n>>chunkBits].data[int(n&chunkMask)*(ix.dim+1)+ix.dim]
}

// docOf is node n's document.
func (ix *Index) docOf(n uint32) uint32 { return ix.nodes[n>>chunkBits].docs[n&chunkMask] }

// nodeOf is the live node of document d, or noNode.
func (ix *Index) nodeOf(d uint32) uint32 {
	if int(d>>chunkBits) >= len(ix.docs) {
		return noNode
	}
	c := ix.docs[d>>chunkBits]
	if c == nil {
		return noNode
	}
	return c.nodes[d&chunkMask]
}

// live reports whether node n holds its document's current vector.
func (ix *Index) live(n uint32) bool { return ix.nodeOf(ix.docOf(n)) == n }

// links is node n's links at a level, read only.
func (ix *Index) links(n uint32, level int) []uint32 {
	c := ix.nodes[n>>chunkBits]
	if level == 0 {
		i := int(n&chunkMask) * (ix.m0 + 1)
		return c.base[i+1 : i+1+int(c.base[i])]
	}
	return c.upper[n&chunkMask][level-1]
}

// writableNodes is node chunk i, copied first unless this writer made it.
func (ix *Index) writableNodes(i int) *nodeChunk {
	c := ix.nodes[i]
	if c.owner == ix.writer {
		return c
	}
	n := &nodeChunk{owner: ix.writer, docs: c.docs, levels: c.levels, base: append([]uint32(nil), c.base...)}
	if c.upper != nil {
		n.upper = make([][][]uint32, chunkSize)
		for j, lv := range c.upper {
			if lv != nil {
				n.upper[j] = make([][]uint32, len(lv))
				for l := range lv {
					n.upper[j][l] = append([]uint32(nil), lv[l]...)
				}
			}
		}
	}
	ix.nodes[i] = n
	return n
}

// setLinks replaces node n's links at a level.
func (ix *Index) setLinks(n uint32, level int, links []uint32) {
	c := ix.writableNodes(int(n >> chunkBits))
	if level == 0 {
		i := int(n&chunkMask) * (ix.m0 + 1)
		c.base[i] = uint32(copy(c.base[i+1:i+1+ix.m0], links))
		return
	}
	c.upper[n&chunkMask][level-1] = append(c.upper[n&chunkMask][level-1][:0], links...)
}

// addNode appends a node holding document d's prepared vector at a level,
// with no links yet.
func (ix *Index) addNode(d uint32, v []float32, level int) uint32 {
	n := uint32(ix.count)
	ix.count++
	ci := int(n >> chunkBits)
	if ci == len(ix.nodes) {
		ix.nodes = append(ix.nodes, &nodeChunk{owner: ix.writer, base: make([]uint32, chunkSize*(ix.m0+1))})
		ix.vectors = append(ix.vectors, &vectorChunk{owner: ix.writer})
	}
	vc := ix.vectors[ci]
	if vc.owner != ix.writer { // another Index reads it up to its own count
		vc = &vectorChunk{owner: ix.writer, data: append(make([]float32, 0, cap(vc.data)), vc.data...)}
		ix.vectors[ci] = vc
	}
	vc.data = append(append(vc.data, v...), dotProduct(v, v)) // nodes are appended in order: at n's place
	c := ix.writableNodes(ci)
	j := int(n & chunkMask)
	c.docs[j] = d
	c.levels[j] = uint8(level)
	if level > 0 {
		if c.upper == nil {
			c.upper = make([][][]uint32, chunkSize)
		}
		c.upper[j] = make([][]uint32, level)
		for l := range c.upper[j] {
			c.upper[j][l] = make([]uint32, 0, ix.m)
		}
	}
	return n
}

// setNode maps document d to node n (noNode: d holds no vector).
func (ix *Index) setNode(d, n uint32) {
	ci := int(d >> chunkBits)
	for len(ix.docs) <= ci {
		ix.docs = append(ix.docs, nil)
	}
	c := ix.docs[ci]
	switch {
	case c == nil:
		c = newDocChunk(ix.writer)
		ix.docs[ci] = c
	case c.owner != ix.writer:
		cp := *c
		cp.owner = ix.writer
		c = &cp
		ix.docs[ci] = c
	}
	c.nodes[d&chunkMask] = n
}

// Bytes is the memory the index's structures hold: vectors with their
// norms, nodes with their links, the document map and the set of
// documents. It counts what is allocated (a chunk's spare capacity too),
// from the structures themselves, so that a figure does not depend on
// what else the process allocates while it is taken.
func (ix *Index) Bytes() int64 {
	const word = 4 // a float32 or a uint32
	var b int64
	for _, c := range ix.vectors {
		b += int64(cap(c.data)) * word
	}
	for _, c := range ix.nodes {
		b += chunkSize*(word+1) + int64(cap(c.base))*word
		for _, lv := range c.upper {
			for _, links := range lv {
				b += int64(cap(links)) * word
			}
		}
	}
	b += int64(len(ix.docs)) * chunkSize * word
	return b + int64(ix.present.GetSizeInBytes())
}
