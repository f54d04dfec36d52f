package vector

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

// clustered draws vectors around a few hundred centres, as embeddings
// bunch by topic; uniform noise in many dimensions has no near
// neighbours to find.
type clustered struct {
	rng     *rand.Rand
	centres [][]float32
}

func newClustered(seed uint64, dim, centres int) *clustered {
	c := &clustered{rng: rand.New(rand.NewPCG(seed, 1))}
	for range centres {
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32(c.rng.NormFloat64())
		}
		c.centres = append(c.centres, v)
	}
	return c
}

func (c *clustered) next() []float32 {
	centre := c.centres[c.rng.IntN(len(c.centres))]
	v := make([]float32, len(centre))
	for i := range v {
		v[i] = centre[i] + 0.35*float32(c.rng.NormFloat64())
	}
	return v
}

// recall is the share of the exact hits a search finds, over queries.
func recall(tb testing.TB, ix *Index, queries [][]float32, k int, allow *roaring.Bitmap) float64 {
	tb.Helper()
	ctx := context.Background()
	found, total := 0, 0
	for _, q := range queries {
		got, err := ix.Search(ctx, q, k, allow)
		if err != nil {
			tb.Fatal(err)
		}
		want, err := ix.Exact(ctx, q, k, allow)
		if err != nil {
			tb.Fatal(err)
		}
		if len(got) != len(want) {
			tb.Fatalf("search found %d hits, exact %d", len(got), len(want))
		}
		for _, h := range got {
			if allow != nil && !allow.Contains(h.Doc) {
				tb.Fatalf("hit %d is outside the filter", h.Doc)
			}
		}
		total += len(want)
		for _, w := range want {
			if slices.ContainsFunc(got, func(h Hit) bool { return h.Doc == w.Doc }) {
				found++
			}
		}
	}
	if total == 0 {
		return 1
	}
	return float64(found) / float64(total)
}

// churn applies rounds of random inserts, vector changes and deletes to
// an index of n documents, and returns it with the documents' vectors.
func churn(tb testing.TB, ix *Index, data *clustered, n, rounds int) (*Index, map[uint32][]float32) {
	tb.Helper()
	rng := rand.New(rand.NewPCG(7, 7))
	vectors := map[uint32][]float32{}
	var changes []Change
	for d := range uint32(n) {
		v := data.next()
		vectors[d] = v
		changes = append(changes, Change{Doc: d, Vector: v})
	}
	ix, err := ix.Apply(changes)
	if err != nil {
		tb.Fatal(err)
	}
	for range rounds {
		changes = changes[:0]
		seen := map[uint32]bool{}
		for range n / 10 {
			d := uint32(rng.IntN(n + n/5)) // some new documents, some deleted ones back
			if seen[d] {
				continue
			}
			seen[d] = true
			if _, ok := vectors[d]; ok && rng.IntN(3) == 0 {
				delete(vectors, d)
				changes = append(changes, Change{Doc: d})
				continue
			}
			v := data.next()
			vectors[d] = v
			changes = append(changes, Change{Doc: d, Vector: v})
		}
		if ix, err = ix.Apply(changes); err != nil {
			tb.Fatal(err)
		}
	}
	return ix, vectors
}

func TestIndex_Search_recall(t *testing.T) {
	const n, dim, k = 6000, 48, 10
	params := DefaultParams()
	params.ExactBelow = 0 // the graph, always
	for _, m := range []Metric{Cosine, DotProduct, Euclidean} {
		t.Run(m.String(), func(t *testing.T) {
			data := newClustered(uint64(m)+1, dim, 60)
			ix, vectors := churn(t, New(dim, m, params), data, n, 8)
			if ix.Len() != len(vectors) {
				t.Fatalf("index holds %d vectors, want %d", ix.Len(), len(vectors))
			}
			if ix.Nodes() <= ix.Len() {
				t.Fatalf("no tombstones after churn: %d nodes", ix.Nodes())
			}
			queries := make([][]float32, 100)
			for i := range queries {
				queries[i] = data.next()
			}
			if r := recall(t, ix, queries, k, nil); r < 0.95 {
				t.Errorf("recall@%d = %.3f, want >= 0.95", k, r)
			}
			half := roaring.New()
			for d := range vectors {
				if d%2 == 0 {
					half.Add(d)
				}
			}
			if r := recall(t, ix, queries, k, half); r < 0.95 {
				t.Errorf("recall@%d over half the documents = %.3f, want >= 0.95", k, r)
			}
		})
	}
}

func TestIndex_Search_exact(t *testing.T) {
	ctx := context.Background()
	data := newClustered(3, 16, 20)
	ix, vectors := churn(t, New(16, Euclidean, DefaultParams()), data, 1500, 3) // below ExactBelow
	few := roaring.New()
	for d := range vectors {
		if d%97 == 0 {
			few.Add(d)
		}
	}
	for _, allow := range []*roaring.Bitmap{nil, few} {
		q := data.next()
		got, err := ix.Search(ctx, q, 10, allow)
		if err != nil {
			t.Fatal(err)
		}
		// The oracle: every vector the test holds, scored from scratch.
		type scored struct {
			doc  uint32
			dist float32
		}
		var all []scored
		for d, v := range vectors {
			if allow == nil || allow.Contains(d) {
				all = append(all, scored{d, squaredDistance(q, v)})
			}
		}
		slices.SortFunc(all, func(a, b scored) int {
			return byDistance(candidate{a.dist, a.doc}, candidate{b.dist, b.doc})
		})
		all = all[:min(10, len(all))]
		if len(got) != len(all) {
			t.Fatalf("got %d hits, want %d", len(got), len(all))
		}
		for i := range all {
			if want := Euclidean.Score(all[i].dist); got[i].Doc != all[i].doc || math.Abs(got[i].Score-want) > 1e-5*want {
				t.Errorf("hit %d = %+v, want document %d at %v", i, got[i], all[i].doc, all[i].dist)
			}
		}
	}
}

func TestIndex_Apply_snapshots(t *testing.T) {
	ctx := context.Background()
	params := DefaultParams()
	params.ExactBelow = 0
	data := newClustered(5, 24, 30)
	old, _ := churn(t, New(24, Cosine, params), data, 3000, 1)
	queries := [][]float32{data.next(), data.next(), data.next()}
	var before [][]Hit
	for _, q := range queries {
		h, err := old.Search(ctx, q, 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		before = append(before, h)
	}
	// Change most documents: the old index must answer as before.
	var changes []Change
	for d := uint32(0); d < 3000; d++ {
		if d%3 == 0 {
			changes = append(changes, Change{Doc: d})
		} else {
			changes = append(changes, Change{Doc: d, Vector: data.next()})
		}
	}
	next, err := old.Apply(changes)
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range queries {
		h, err := old.Search(ctx, q, 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(h, before[i]) {
			t.Errorf("query %d: the old index answers %v after Apply, %v before", i, h, before[i])
		}
	}
	beyond := int(old.Documents().Rank(1<<31) - old.Documents().Rank(2999)) // documents 3000 and up, untouched
	if next.Len() != 2000+beyond {
		t.Errorf("next holds %d vectors, want %d", next.Len(), 2000+beyond)
	}
	if _, err := old.Apply([]Change{{Doc: 1, Vector: make([]float32, 3)}}); err == nil {
		t.Error("a vector of the wrong dimension is applied")
	}
	if _, err := next.Search(ctx, make([]float32, 3), 10, nil); err == nil {
		t.Error("a query of the wrong dimension is searched")
	}
}

// squaredDistance is the oracle's euclidean distance, squared, in float64.
func squaredDistance(a, b []float32) float32 {
	var s float64
	for i := range a {
		d := float64(a[i]) - float64(b[i])
		s += d * d
	}
	return float32(s)
}
