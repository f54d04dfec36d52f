package vector

import (
	"fmt"
	"math"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
)

// Params are the graph's parameters, as FAISS and hnswlib name them.
type Params struct {
	M              int // links per node on levels 1 and up; 2M on level 0
	EfConstruction int // candidates an insert searches for its links
	EfSearch       int // candidates a search keeps (at least k)
	// ExactBelow: an index or filter of fewer vectors is searched exactly.
	ExactBelow int
	Seed       uint64 // of the levels nodes are given
}

// DefaultParams are the parameters of a vector property's index.
func DefaultParams() Params {
	return Params{M: 16, EfConstruction: 64, EfSearch: 64, ExactBelow: 2048, Seed: 0x5eed}
}

// Index is the immutable nearest-neighbour index of one vector property
// at one snapshot (doc.go).
type Index struct {
	metric Metric
	dim    int
	params Params
	m, m0  int

	vectors []*vectorChunk
	nodes   []*nodeChunk
	docs    []*docChunk
	count   int             // nodes, live and tombstones
	present *roaring.Bitmap // documents with a vector: those of the live nodes
	entry   uint32
	top     int // the entry's level; -1 when the graph is empty

	writer  *owner     // set while Apply writes this Index, nil once published
	visited *sync.Pool // of *visitSet; shared by the Indexes of one lineage
}

// New returns an empty index of vectors of a dimension.
func New(dim int, metric Metric, p Params) *Index {
	return &Index{metric: metric, dim: dim, params: p, m: p.M, m0: 2 * p.M, present: roaring.New(), top: -1,
		visited: &sync.Pool{}}
}

// Metric is the similarity the index orders by.
func (ix *Index) Metric() Metric { return ix.metric }

// Dimension is the length of every vector.
func (ix *Index) Dimension() int { return ix.dim }

// Len is the number of documents with a vector.
func (ix *Index) Len() int { return int(ix.present.GetCardinality()) }

// Nodes is the number of graph nodes, tombstones included.
func (ix *Index) Nodes() int { return ix.count }

// Documents are the documents with a vector; the bitmap must not be
// modified.
func (ix *Index) Documents() *roaring.Bitmap { return ix.present }

// Change sets a document's vector; a nil Vector removes it.
type Change struct {
	Doc    uint32
	Vector []float32
}

// Apply returns the index after the changes; ix is not modified. A
// vector of the wrong dimension is an error and nothing is applied.
func (ix *Index) Apply(changes []Change) (*Index, error) {
	for _, c := range changes {
		if c.Vector != nil && len(c.Vector) != ix.dim {
			return nil, fmt.Errorf("document %d: vector has %d elements, the index's dimension is %d", c.Doc, len(c.Vector), ix.dim)
		}
	}
	n := ix.clone()
	for _, c := range changes {
		old := n.nodeOf(c.Doc)
		var v []float32
		if c.Vector != nil {
			v = n.metric.prepare(c.Vector)
			if old != noNode && equal(n.vectorOf(old), v) {
				continue // the object changed, not its vector
			}
		}
		if old != noNode {
			n.setNode(c.Doc, noNode)
			n.present.Remove(c.Doc)
		}
		if v != nil {
			node := n.insert(c.Doc, v)
			n.setNode(c.Doc, node)
			n.present.Add(c.Doc)
		}
	}
	if tombstones := n.count - n.Len(); tombstones > chunkSize && tombstones*4 > n.count {
		n = n.rebuilt()
	}
	n.present.RunOptimize()
	n.writer = nil
	return n, nil
}

// clone is a writable copy sharing every chunk.
func (ix *Index) clone() *Index {
	n := *ix
	n.vectors = append([]*vectorChunk(nil), ix.vectors...)
	n.nodes = append([]*nodeChunk(nil), ix.nodes...)
	n.docs = append([]*docChunk(nil), ix.docs...)
	n.present = ix.present.Clone()
	n.writer = &owner{}
	return &n
}

// rebuilt is a new graph of the live vectors alone, in document order.
func (ix *Index) rebuilt() *Index {
	n := New(ix.dim, ix.metric, ix.params)
	n.visited = ix.visited
	n.writer = &owner{}
	it := ix.present.Iterator()
	for it.HasNext() {
		d := it.Next()
		node := n.insert(d, ix.vectorOf(ix.nodeOf(d)))
		n.setNode(d, node)
		n.present.Add(d)
	}
	return n
}

// randomLevel is the level of node n: -ln(u)/ln(M) for a u drawn from the
// node number, so that a rebuilt or reloaded graph draws the same.
func (ix *Index) randomLevel(n uint32) int {
	x := uint64(n) + ix.params.Seed*0x9e3779b97f4a7c15
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	u := (float64(x>>11) + 0.5) / (1 << 53)
	level := int(-math.Log(u) / math.Log(float64(ix.m)))
	return min(level, 16)
}

func equal(a, b []float32) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
