package objects

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Vector is the value of a vector property: a fixed-dimension embedding,
// held as float32 (what embeddings carry, half the memory of float64).
type Vector []float32

// Similarities of a vector property (the config's similarity key).
const (
	SimilarityCosine     = "cosine"
	SimilarityDotProduct = "dotProduct"
	SimilarityEuclidean  = "euclidean"
)

// MaxVectorDimension bounds a vector property's dimension: past it a vector
// is no embedding any model makes, and one object would weigh 16 KiB.
const MaxVectorDimension = 4096

// tagVector is the store tag of a Vector. Set apart from the run of tags in
// value.go so that another new tag appended there cannot take its number.
const tagVector byte = 32

// appendVector appends the store encoding of a vector: its length, then
// each element as a little-endian float32.
func appendVector(b []byte, v Vector) []byte {
	b = binary.AppendUvarint(append(b, tagVector), uint64(len(v)))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// readVector decodes a vector after its tag and returns the rest of b.
func readVector(b []byte) (any, []byte, error) {
	l, n := binary.Uvarint(b)
	if n <= 0 || l > uint64(len(b)-n)/4 {
		return nil, nil, ErrCorrupt
	}
	b = b[n:]
	v := make(Vector, l)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, b[4*l:], nil
}

// vectorJSON renders a vector as an array of numbers, each in the
// shortest form that reads back as the same float32.
func vectorJSON(v Vector) []any {
	out := make([]any, len(v))
	for i, x := range v {
		out[i] = json.Number(strconv.FormatFloat(float64(x), 'g', -1, 32))
	}
	return out
}

// vectorGetter reads a vector property from a list<float> or list<double>
// column. A vector of another dimension, or one holding a null, NaN or an
// infinity, is an invalid value: no similarity is defined over it.
func vectorGetter(arr arrow.Array, dimension int) (getter, error) {
	if ext, ok := arr.(array.ExtensionArray); ok {
		arr = ext.Storage()
	}
	list, ok := arr.(array.ListLike)
	if !ok {
		return nil, fmt.Errorf("column is %s, not a list of floats or doubles", arr.DataType())
	}
	var element func(i int) float64
	values := list.ListValues()
	switch a := values.(type) {
	case *array.Float32:
		element = func(i int) float64 { return float64(a.Value(i)) }
	case *array.Float64:
		element = func(i int) float64 { return a.Value(i) }
	default:
		return nil, fmt.Errorf("column is %s, not a list of floats or doubles", arr.DataType())
	}
	return func(i int) (any, error) {
		if list.IsNull(i) {
			return nil, nil
		}
		start, end := list.ValueOffsets(i)
		if int(end-start) != dimension {
			return nil, fmt.Errorf("vector has %d elements, the property's dimension is %d", end-start, dimension)
		}
		v := make(Vector, dimension)
		for j := start; j < end; j++ {
			if values.IsNull(int(j)) {
				return nil, fmt.Errorf("vector element %d is null", j-start)
			}
			x := element(int(j))
			f := float32(x)
			if math.IsNaN(x) || math.IsInf(float64(f), 0) {
				return nil, fmt.Errorf("vector element %d is %v, not a finite number", j-start, x)
			}
			v[j-start] = f
		}
		return v, nil
	}, nil
}

// vectorProperty resolves a vector property over its column: a list of
// floats or doubles, which the similarity search reads as float32.
func vectorProperty(field string, p Property, ps PropertySpec, c Column) (Property, error) {
	if c.Type.Kind != KindList || c.Type.Elem == nil || (c.Type.Elem.Kind != KindFloat && c.Type.Elem.Kind != KindDouble) {
		return Property{}, &FieldError{Field: field + ".column",
			Msg: fmt.Sprintf("column %q is %s; a vector is read from list<float> or list<double>", c.Name, c.Type)}
	}
	if ps.Search != "" && ps.Search != SearchNone {
		return Property{}, &FieldError{Field: field + ".search",
			Msg: fmt.Sprintf("search role %s does not fit a vector (it is searched by nearestNeighbors)", ps.Search)}
	}
	p.Type = DataType{Kind: KindVector, Dimension: ps.Dimension, Similarity: ps.VectorSimilarity()}
	p.Search = SearchNone
	return p, nil
}

// VectorSimilarity is the similarity of a vector property, with the
// default filled in.
func (ps PropertySpec) VectorSimilarity() string {
	if ps.Similarity == "" {
		return SimilarityCosine
	}
	return ps.Similarity
}

// validateVector checks a property's dimension and similarity keys: set on
// a vector (the dimension required), and on nothing else.
func validateVector(field string, ps PropertySpec, bad func(sub, format string, args ...any)) {
	if ps.Type != KindVector.String() {
		if ps.Dimension != 0 {
			bad(field+".dimension", "applies only to type vector")
		}
		if ps.Similarity != "" {
			bad(field+".similarity", "applies only to type vector")
		}
		return
	}
	if ps.Dimension < 1 || ps.Dimension > MaxVectorDimension {
		bad(field+".dimension", "%d must be 1 to %d (the length of every vector)", ps.Dimension, MaxVectorDimension)
	}
	switch ps.Similarity {
	case "", SimilarityCosine, SimilarityDotProduct, SimilarityEuclidean:
	default:
		bad(field+".similarity", "%q must be cosine, dotProduct or euclidean", ps.Similarity)
	}
}
