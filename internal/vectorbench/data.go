package vectorbench

import (
	"math"
	"math/rand/v2"
)

// generator draws vectors of a dimension from a mixture of clusters in a
// latent space of latentDimension, mapped by a fixed random matrix.
type generator struct {
	rng     *rand.Rand
	dim     int
	centres [][]float64 // latent
	project [][]float64 // dim × latent
}

const (
	latentDimension = 24
	clusters        = 1000
	clusterSpread   = 0.5  // latent, per dimension
	noise           = 0.05 // full dimension, per dimension
)

func newGenerator(seed uint64, dim int) *generator {
	g := &generator{rng: rand.New(rand.NewPCG(seed, 0x7ec)), dim: dim}
	for range clusters {
		c := make([]float64, latentDimension)
		for i := range c {
			c[i] = g.rng.NormFloat64()
		}
		g.centres = append(g.centres, c)
	}
	scale := 1 / math.Sqrt(latentDimension)
	for range dim {
		row := make([]float64, latentDimension)
		for i := range row {
			row[i] = g.rng.NormFloat64() * scale
		}
		g.project = append(g.project, row)
	}
	return g
}

// fill draws len(out)/dim vectors into out.
func (g *generator) fill(out []float32) {
	z := make([]float64, latentDimension)
	for off := 0; off+g.dim <= len(out); off += g.dim {
		c := g.centres[g.rng.IntN(len(g.centres))]
		for i := range z {
			z[i] = c[i] + clusterSpread*g.rng.NormFloat64()
		}
		for j, row := range g.project {
			var x float64
			for i, w := range row {
				x += w * z[i]
			}
			out[off+j] = float32(x + noise*g.rng.NormFloat64())
		}
	}
}
