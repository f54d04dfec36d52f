package api

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ontoindex/ontoindex/api/wire"
)

// TestAccumulateNumbers checks counts, sums and averages per source object
// against a brute-force evaluation: linked objects with one origin or
// several, null values, and source objects no value reaches (whose sum
// and average are null).
func TestAccumulateNumbers(t *testing.T) {
	for _, n := range []int{1, 63, 64, 65, 130, 1000} {
		for _, op := range []string{"count", "sum", "avg"} {
			t.Run(fmt.Sprintf("%s of %d", op, n), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(n), 7))
				type linked struct {
					origins []int32
					x       float64
					ok      bool
				}
				var objs []linked
				for range 3 * n {
					l := linked{x: float64(r.IntN(200) - 100), ok: r.IntN(5) > 0}
					// Origins from the first half: the second half is never reached.
					for range 1 + r.IntN(3) {
						l.origins = append(l.origins, int32(r.IntN(max(1, n/2))))
					}
					objs = append(objs, l)
				}
				def := &wire.DerivedDef{Op: op}
				got := accumulateNumbers(def, n, func(add func([]int32, float64, bool)) {
					for _, l := range objs {
						if op == "count" {
							add(l.origins, 0, false)
							continue
						}
						add(l.origins, l.x, l.ok)
					}
				})
				counts, sums := make([]int64, n), make([]float64, n)
				for _, l := range objs {
					for _, o := range l.origins {
						if op == "count" || l.ok {
							counts[o]++
							sums[o] += l.x
						}
					}
				}
				for j := range n {
					var want any
					switch {
					case op == "count":
						want = counts[j]
					case counts[j] == 0:
						want = nil
					case op == "sum":
						want = sums[j]
					default:
						want = sums[j] / float64(counts[j])
					}
					if have := got.at(j); have != want {
						t.Fatalf("object %d: %v, want %v", j, have, want)
					}
				}
			})
		}
	}
}
