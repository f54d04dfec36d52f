package vector

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/gonum"
)

// Metric is the similarity of a vector property.
type Metric uint8

// Metrics.
const (
	Cosine Metric = iota
	DotProduct
	Euclidean
)

// ParseMetric reads a config similarity: cosine, dotProduct or euclidean.
func ParseMetric(s string) (Metric, error) {
	switch s {
	case "", "cosine":
		return Cosine, nil
	case "dotProduct":
		return DotProduct, nil
	case "euclidean":
		return Euclidean, nil
	}
	return 0, fmt.Errorf("unknown similarity %q", s)
}

func (m Metric) String() string {
	switch m {
	case DotProduct:
		return "dotProduct"
	case Euclidean:
		return "euclidean"
	}
	return "cosine"
}

// prepare is the vector as the index holds it: a copy, normalized for
// cosine. A zero vector stays zero (its cosine with anything is 0).
func (m Metric) prepare(v []float32) []float32 {
	out := make([]float32, len(v))
	copy(out, v)
	if m == Cosine {
		if n := math.Sqrt(float64(dotProduct(out, out))); n > 0 {
			inv := float32(1 / n)
			for i := range out {
				out[i] *= inv
			}
		}
	}
	return out
}

// query is a vector as distances read it: prepared, with its squared
// norm (which euclidean distances take from a dot product).
type query struct {
	v    []float32
	norm float32
}

func newQuery(v []float32) query { return query{v: v, norm: dotProduct(v, v)} }

// nodeQuery is node n's vector as a query.
func (ix *Index) nodeQuery(n uint32) query { return query{v: ix.vectorOf(n), norm: ix.normOf(n)} }

// distance orders nodes by nearness to q: smaller is nearer. Every metric
// is one dot product, which gonum's BLAS computes with SIMD: euclidean as
// |q|² + |v|² - 2q·v.
func (ix *Index) distance(q query, n uint32) float32 {
	d := dotProduct(q.v, ix.vectorOf(n))
	if ix.metric == Euclidean {
		return max(q.norm+ix.normOf(n)-2*d, 0)
	}
	return -d
}

// Score is the relevance of a hit at distance d: positive, larger is
// nearer. Cosine (1+cos)/2; dot product 1+dot, or 1/(1-dot) below zero;
// euclidean 1/(1+l2²).
func (m Metric) Score(d float32) float64 {
	x := float64(d)
	switch m {
	case Cosine:
		return (1 - x) / 2
	case DotProduct:
		if x > 0 {
			return 1 / (1 + x)
		}
		return 1 - x
	}
	return 1 / (1 + x)
}

// dotProduct is the inner product of two vectors of one length, by
// gonum's Sdot (SIMD), called without blas32.Dot's vector wrapping.
func dotProduct(a, b []float32) float32 {
	return gonum.Implementation{}.Sdot(len(a), a, 1, b[:len(a)], 1)
}
