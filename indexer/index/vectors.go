package index

import (
	"context"
	"errors"
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/indexer/vector"
	"github.com/ontoindex/ontoindex/objects"
)

// A vector property has no column, order or dict: its values are in a
// vector.Index (indexer/vector), built, applied and saved with the
// snapshot, and searched by Nearest.

// newVectorIndex is the empty index of a vector property.
func newVectorIndex(p objects.Property) *vector.Index {
	m, err := vector.ParseMetric(p.Type.Similarity)
	if err != nil {
		m = vector.Cosine // Resolve checked it; a type read back keeps it
	}
	return vector.New(p.Type.Dimension, m, vector.DefaultParams())
}

// vectorChange is the change of document d's vector to value v (nil:
// none).
func vectorChange(d uint32, v any) (vector.Change, error) {
	if v == nil {
		return vector.Change{Doc: d}, nil
	}
	x, ok := v.(objects.Vector)
	if !ok {
		return vector.Change{}, fmt.Errorf("a %T value is not a vector", v)
	}
	return vector.Change{Doc: d, Vector: x}, nil
}

// applyVectors applies the changes to a vector property's index.
func applyVectors(pi *propertyIndex, changes []Change) (*vector.Index, error) {
	vcs := make([]vector.Change, 0, len(changes))
	for _, c := range changes {
		var v any
		if c.Object != nil {
			v = c.Object.Values[pi.position]
		}
		vc, err := vectorChange(c.Doc, v)
		if err != nil {
			return nil, err
		}
		vcs = append(vcs, vc)
	}
	return pi.vectors.Apply(vcs)
}

// Neighbor is a document nearest a query vector, and its score.
type Neighbor = vector.Hit

// ErrNotVector reports a nearest-neighbour search of a property that is
// not a vector.
var ErrNotVector = errors.New("not a vector property")

// Nearest returns the k documents nearest q by a vector property among
// those f matches (nil: all), nearest first: filtered first, then the
// nearest among the matches, exactly when the matches are few (see
// vector.Index.Search).
func (s *Snapshot) Nearest(ctx context.Context, property string, q []float32, k int, f *query.Filter, limits query.Limits) ([]Neighbor, error) {
	i := s.typ.PropertyIndex(property)
	if i < 0 || s.properties[i].vectors == nil {
		return nil, fmt.Errorf("property %s: %w", property, ErrNotVector)
	}
	var allow *roaring.Bitmap
	if f != nil && f.Op != query.OpAll {
		x := &exec{ctx: ctx, s: s}
		defer x.release()
		c := &compiler{ctx: ctx, s: s, limits: limits}
		root, err := c.compile(f)
		if err != nil {
			return nil, err
		}
		if allow, err = root.bitmap(x); err != nil {
			return nil, err
		}
	}
	return s.properties[i].vectors.Search(ctx, q, k, allow)
}

// VectorIndex is the index of a vector property, for benchmarks and
// tests; nil for other properties.
func (s *Snapshot) VectorIndex(property string) *vector.Index {
	if i := s.typ.PropertyIndex(property); i >= 0 {
		return s.properties[i].vectors
	}
	return nil
}

// vectorEncoder writes a vector index through the file's encoder.
type vectorEncoder struct{ e *encoder }

func (v vectorEncoder) Uvarint(x uint64)          { v.e.uvarint(x) }
func (v vectorEncoder) Uint32s(xs []uint32)       { v.e.u32s(xs) }
func (v vectorEncoder) Bitmap(bm *roaring.Bitmap) { v.e.bitmap(bm) }

// vectorDecoder reads a vector index through the file's decoder.
type vectorDecoder struct{ d *decoder }

func (v vectorDecoder) Count(limit uint64, what string) int {
	x := v.d.uvarint()
	if x > limit {
		v.d.fail("%s: %d is out of range", what, x)
		return 0
	}
	return int(x)
}
func (v vectorDecoder) Uint32s(n int) []uint32          { return v.d.u32s(n) }
func (v vectorDecoder) Bitmap() *roaring.Bitmap         { return v.d.bitmap() }
func (v vectorDecoder) Fail(format string, args ...any) { v.d.fail(format, args...) }
func (v vectorDecoder) Err() error                      { return v.d.err }

// readVectors reads the index of vector property p.
func (d *decoder) readVectors(p objects.Property) *vector.Index {
	empty := newVectorIndex(p)
	ix := vector.Load(vectorDecoder{d}, p.Type.Dimension, empty.Metric())
	if ix == nil {
		d.fail("vector index of %s", p.APIName)
		return empty
	}
	return ix
}

// nearestScores are the scores of the keys of a nearestNeighbors result
// that f requires (itself, or a kid of an and), by encoded key; nil when
// f requires none. A union or negation of one gives no scores, as Foundry
// returns none for sets composed with other sets.
func nearestScores(f *query.Filter) map[string]float64 {
	switch {
	case f == nil:
		return nil
	case f.Op == query.OpKeys && f.Scores != nil:
		m := make(map[string]float64, len(f.Keys))
		for i, k := range f.Keys {
			m[string(k)] = f.Scores[i]
		}
		return m
	case f.Op == query.OpAnd:
		for _, k := range f.Kids {
			if m := nearestScores(k); m != nil {
				return m
			}
		}
	}
	return nil
}
