package vector

import (
	"fmt"
	"math"
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
		if n := math.Sqrt(float64(dot(out, out))); n > 0 {
			inv := float32(1 / n)
			for i := range out {
				out[i] *= inv
			}
		}
	}
	return out
}

// distance orders vectors by nearness to a: smaller is nearer.
func (m Metric) distance(a, b []float32) float32 {
	if m == Euclidean {
		return squaredL2(a, b)
	}
	return -dot(a, b)
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

// dot is the inner product, over eight accumulators so that the loop
// carries no dependency from one multiply-add to the next.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
		s4 += a[i+4] * b[i+4]
		s5 += a[i+5] * b[i+5]
		s6 += a[i+6] * b[i+6]
		s7 += a[i+7] * b[i+7]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3) + (s4 + s5) + (s6 + s7)
}

// squaredL2 is the squared euclidean distance.
func squaredL2(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		d0, d1, d2, d3 := a[i]-b[i], a[i+1]-b[i+1], a[i+2]-b[i+2], a[i+3]-b[i+3]
		d4, d5, d6, d7 := a[i+4]-b[i+4], a[i+5]-b[i+5], a[i+6]-b[i+6], a[i+7]-b[i+7]
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
		s4 += d4 * d4
		s5 += d5 * d5
		s6 += d6 * d6
		s7 += d7 * d7
	}
	for ; i < len(a); i++ {
		d := a[i] - b[i]
		s0 += d * d
	}
	return (s0 + s1) + (s2 + s3) + (s4 + s5) + (s6 + s7)
}
