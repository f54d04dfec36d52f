package objects

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/peterstace/simplefeatures/geom"
)

// wkbWriter writes well-known binary in either byte order, so the tests
// can say what no encoder would: counts the bytes do not hold.
type wkbWriter struct {
	big bool
	b   []byte
}

func newWKBWriter(big bool) *wkbWriter { return &wkbWriter{big: big} }

func (w *wkbWriter) order() interface {
	binary.ByteOrder
	binary.AppendByteOrder
} {
	if w.big {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

func (w *wkbWriter) header(code uint32) *wkbWriter {
	if w.big {
		w.b = append(w.b, 0)
	} else {
		w.b = append(w.b, 1)
	}
	w.b = w.order().AppendUint32(w.b, code)
	return w
}

func (w *wkbWriter) count(n uint32) *wkbWriter {
	w.b = w.order().AppendUint32(w.b, n)
	return w
}

func (w *wkbWriter) floats(fs ...float64) *wkbWriter {
	for _, f := range fs {
		w.b = w.order().AppendUint64(w.b, math.Float64bits(f))
	}
	return w
}

func TestGeoShapeFromWKB_counts(t *testing.T) {
	deep := newWKBWriter(false)
	for range maxWKBDepth + 2 {
		deep.header(7).count(1)
	}
	deep.header(1).floats(1, 2)
	tests := []struct {
		name string
		wkb  []byte
		want string
	}{
		{"line of four billion points", newWKBWriter(true).header(2).count(math.MaxUint32).b, "claims 4294967295 points"},
		{"XYZM line", newWKBWriter(false).header(3002).count(1<<30).floats(1, 2, 3).b, "claims 1073741824 points"},
		{"polygon rings", newWKBWriter(false).header(3).count(1 << 31).b, "claims 2147483648 rings"},
		{"polygon ring points", newWKBWriter(true).header(3).count(1).count(1<<28).floats(0, 0).b, "claims 268435456 points"},
		{"multipolygon", newWKBWriter(false).header(6).count(math.MaxUint32).b, "claims 4294967295 geometries"},
		{"line inside a collection", newWKBWriter(false).header(7).count(2).header(1).floats(1, 2).header(2).count(1 << 29).b, "claims 536870912 points"},
		{"nesting", deep.b, "more than 32 deep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := GeoShapeFromWKB(tt.wkb); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("GeoShapeFromWKB error = %v, want one containing %q", err, tt.want)
			}
			if _, err := DecodeGeoShape(tt.wkb); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("DecodeGeoShape error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// randomWKB writes a random geometry of the kind given (any kind for 0)
// with the dimensions given, collections nested up to depth.
func randomWKB(r *rand.Rand, w *wkbWriter, kind, dims uint32, depth int) {
	coords := func(n int) {
		for range n * int([]uint32{2, 3, 3, 4}[dims]) {
			w.floats(r.Float64()*10 - 5)
		}
	}
	if kind == 0 {
		kind = uint32(1 + r.IntN(7))
	}
	if depth == 0 && kind == 7 {
		kind = 1
	}
	w.header(dims*1000 + kind)
	switch kind {
	case 1:
		coords(1)
	case 2:
		n := r.IntN(5)
		w.count(uint32(n))
		coords(n)
	case 3:
		rings := r.IntN(3)
		w.count(uint32(rings))
		for range rings {
			n := r.IntN(6)
			w.count(uint32(n))
			coords(n)
		}
	default:
		inner := map[uint32]uint32{4: 1, 5: 2, 6: 3}[kind]
		n := r.IntN(4)
		w.count(uint32(n))
		for range n {
			randomWKB(r, w, inner, dims, depth-1)
		}
	}
}

// TestCheckWKBCounts_random checks the walk against the parser: on random
// well-formed WKB it consumes exactly the bytes the parser reads, and on
// random damage to it, WKB the walk lets through never makes the parser
// allocate much more than its length.
func TestCheckWKBCounts_random(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 24))
	var before, after runtime.MemStats
	for i := range 3000 {
		w := newWKBWriter(r.IntN(2) == 0)
		randomWKB(r, w, 0, uint32(r.IntN(4)), 3)
		if _, err := geom.UnmarshalWKB(w.b, geom.NoValidate{}); err != nil {
			t.Fatalf("case %d: the parser refuses the generator's WKB %x: %v", i, w.b, err)
		}
		rest, err := walkWKB(w.b, 0)
		if err != nil || rest == nil || len(rest) != 0 {
			t.Fatalf("case %d: walk of %x = %d bytes left, %v; want all read", i, w.b, len(rest), err)
		}

		damaged := append([]byte(nil), w.b...)
		for range 1 + r.IntN(3) {
			damaged[r.IntN(len(damaged))] = byte(r.Uint32())
		}
		if checkWKBCounts(damaged) != nil {
			continue
		}
		runtime.ReadMemStats(&before)
		geom.UnmarshalWKB(damaged, geom.NoValidate{}) //nolint:errcheck // only its allocation matters
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > uint64(64*len(damaged)+64<<10) {
			t.Fatalf("case %d: parsing %d bytes of %x allocated %d bytes", i, len(damaged), damaged, grew)
		}
	}
}

// BenchmarkDecodeGeoShape measures the count check against the decode it
// guards, on a polygon of 64 vertices (the index decodes a candidate's
// shape per geo filter test).
func BenchmarkDecodeGeoShape(b *testing.B) {
	w := newWKBWriter(false).header(3).count(1).count(65)
	for i := range 65 {
		a := 2 * math.Pi * float64(i%64) / 64
		w.floats(math.Cos(a), math.Sin(a))
	}
	b.Run("check", func(b *testing.B) {
		for b.Loop() {
			if err := checkWKBCounts(w.b); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			if _, err := DecodeGeoShape(w.b); err != nil {
				b.Fatal(err)
			}
		}
	})
}
