package index

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// vectorType is a type with a key, a keyword and a vector.
func vectorType(dimension int, similarity string) *objects.Type {
	return objects.NewType(objects.Type{APIName: "Doc", PrimaryKey: []string{"id"}, TitleProperty: "id", Properties: []objects.Property{
		{APIName: "id", Column: "id", Type: objects.DataType{Kind: objects.KindLong}, Search: objects.SearchNumeric},
		{APIName: "topic", Column: "topic", Type: objects.DataType{Kind: objects.KindString}, Search: objects.SearchKeyword},
		{APIName: "embedding", Column: "emb", Type: objects.DataType{Kind: objects.KindVector, Dimension: dimension, Similarity: similarity}, Search: objects.SearchNone},
	}})
}

func randomVector(r *rand.Rand, dimension int) objects.Vector {
	v := make(objects.Vector, dimension)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

func vectorObject(r *rand.Rand, id int64, dimension int) *objects.Object {
	var v any = randomVector(r, dimension)
	if r.IntN(20) == 0 {
		v = nil
	}
	return &objects.Object{Values: []any{id, []string{"a", "b", "c"}[r.IntN(3)], v}}
}

// bruteNearest is the oracle: every object scored from scratch in float64.
func bruteNearest(objs map[uint32]*objects.Object, q objects.Vector, k int, similarity string, keep func(*objects.Object) bool) []uint32 {
	type scored struct {
		doc   uint32
		score float64
	}
	var all []scored
	norm := func(v objects.Vector) float64 {
		var s float64
		for _, x := range v {
			s += float64(x) * float64(x)
		}
		return math.Sqrt(s)
	}
	for d, o := range objs {
		v, ok := o.Values[2].(objects.Vector)
		if !ok || !keep(o) {
			continue
		}
		var dotp, l2 float64
		for i := range v {
			dotp += float64(v[i]) * float64(q[i])
			l2 += (float64(v[i]) - float64(q[i])) * (float64(v[i]) - float64(q[i]))
		}
		score := -l2
		switch similarity {
		case objects.SimilarityCosine:
			score = dotp / norm(v) / norm(q)
		case objects.SimilarityDotProduct:
			score = dotp
		}
		all = append(all, scored{d, score})
	}
	slices.SortFunc(all, func(a, b scored) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return int(a.doc) - int(b.doc)
	})
	var out []uint32
	for _, s := range all[:min(k, len(all))] {
		out = append(out, s.doc)
	}
	return out
}

func TestSnapshot_Nearest(t *testing.T) {
	ctx := context.Background()
	const dimension, n = 8, 1500 // below ExactBelow: exact, so equal to the oracle
	for _, similarity := range []string{objects.SimilarityCosine, objects.SimilarityDotProduct, objects.SimilarityEuclidean} {
		t.Run(similarity, func(t *testing.T) {
			r := rand.New(rand.NewPCG(4, 4))
			typ := vectorType(dimension, similarity)
			objs := map[uint32]*objects.Object{}
			b := NewBuilder(typ)
			for d := range uint32(n) {
				o := vectorObject(r, int64(d), dimension)
				objs[d] = o
				if err := b.Add(d, mustKey(t, typ, o), o); err != nil {
					t.Fatal(err)
				}
			}
			s := b.Finish(1)
			// Edits: new vectors, nulls, deletes and new documents.
			var changes []Change
			for d := uint32(0); d < n+100; d += 3 {
				if d%2 == 0 && d < n {
					changes = append(changes, Change{Doc: d})
					delete(objs, d)
					continue
				}
				o := vectorObject(r, int64(d), dimension)
				objs[d] = o
				changes = append(changes, Change{Doc: d, Key: mustKey(t, typ, o), Object: o})
			}
			s, err := s.Apply(changes, 2)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if _, err := s.WriteTo(&buf); err != nil {
				t.Fatal(err)
			}
			read, err := Read(bytes.NewReader(buf.Bytes()), typ)
			if err != nil {
				t.Fatal(err)
			}
			topicA := &query.Filter{Op: query.OpEq, Property: "topic", Value: "a"}
			for _, snap := range []*Snapshot{s, read} {
				for _, f := range []*query.Filter{nil, topicA} {
					q := randomVector(r, dimension)
					got, err := snap.Nearest(ctx, "embedding", q, 10, f, query.Limits{})
					if err != nil {
						t.Fatal(err)
					}
					want := bruteNearest(objs, q, 10, similarity, func(o *objects.Object) bool { return f == nil || o.Values[1] == "a" })
					var docs []uint32
					for _, h := range got {
						docs = append(docs, h.Doc)
					}
					if !slices.Equal(docs, want) {
						t.Errorf("filter %v: nearest %v, want %v", f, docs, want)
					}
					for i := 1; i < len(got); i++ {
						if got[i].Score > got[i-1].Score || got[i].Score <= 0 {
							t.Errorf("scores not positive and decreasing: %v", got)
						}
					}
				}
			}
			if _, err := s.Nearest(ctx, "topic", make([]float32, dimension), 10, nil, query.Limits{}); err == nil {
				t.Error("a keyword is searched as a vector")
			}
			if _, err := s.Nearest(ctx, "embedding", make([]float32, dimension+1), 10, nil, query.Limits{}); err == nil {
				t.Error("a query of another dimension is searched")
			}
		})
	}
}
