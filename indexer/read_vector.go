package indexer

import (
	"context"

	"github.com/ontoindex/ontoindex/indexer/query"
)

// Neighbor is an object nearest a query vector: its encoded primary key
// and score.
type Neighbor struct {
	Key   []byte
	Score float64
}

// Nearest returns the k objects nearest q by a vector property among those
// f matches, nearest first, from the view's snapshot (index.Snapshot.Nearest).
func (v *View) Nearest(ctx context.Context, property string, q []float32, k int, f *query.Filter, limits query.Limits) ([]Neighbor, error) {
	if v.snap == nil {
		return nil, v.refuse("nearestNeighbors (vector search)", nil)
	}
	hits, err := v.snap.Nearest(ctx, property, q, k, f, limits)
	if err != nil {
		return nil, err
	}
	out := make([]Neighbor, len(hits))
	for i, h := range hits {
		out[i] = Neighbor{Key: v.snap.Key(h.Doc), Score: h.Score}
	}
	return out, nil
}
