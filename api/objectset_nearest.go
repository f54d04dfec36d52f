package api

import (
	"fmt"

	"github.com/ontoindex/ontoindex/indexer/query"
)

// NearestNeighbors searches the view of typ that the rest of the request
// reads, so that the objects of a nearestNeighbors set are those of the
// snapshot its pages are read from.
func (d *setDecoder) NearestNeighbors(typ string, f *query.Filter, property string, q []float32, k int) ([][]byte, []float64, error) {
	v, err := d.open(typ, false)
	if err != nil {
		return nil, nil, err
	}
	hits, err := v.Nearest(d.r.Context(), property, q, k, f, d.s.limits())
	if err != nil {
		return nil, nil, fmt.Errorf("nearestNeighbors of %s.%s: %w", typ, property, err)
	}
	keys := make([][]byte, len(hits))
	scores := make([]float64, len(hits))
	for i, h := range hits {
		keys[i], scores[i] = h.Key, h.Score
	}
	return keys, scores, nil
}
