package index

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/ontoindex/ontoindex/objects"
)

// TestSnapshot_WriteTo writes snapshots (built, then updated) and reads
// them back: every structure must come back exactly, and a damaged file
// must be refused.
func TestSnapshot_WriteTo(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	typ := testType(t)
	want := randState(r, 5000)
	s := mustBuild(t, typ, want)
	var changes []Change
	for _, d := range want.docs() {
		if r.IntN(5) == 0 {
			changes = append(changes, Change{Doc: d})
			delete(want, d)
		}
	}
	u, err := s.Apply(changes, 7)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := u.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := Read(bytes.NewReader(buf.Bytes()), typ)
	if err != nil {
		t.Fatal(err)
	}
	if got.Version() != 7 {
		t.Fatalf("version %d", got.Version())
	}
	verify(t, got, want)

	file := buf.Bytes()
	damaged := map[string][]byte{
		"truncated":   file[:len(file)/2],
		"no checksum": file[:len(file)-8],
		"flipped":     flip(file, len(file)/3),
		"trailing":    append(bytes.Clone(file), 0),
		"empty":       nil,
	}
	for name, b := range damaged {
		if _, err := Read(bytes.NewReader(b), typ); !errors.Is(err, ErrBadFile) {
			t.Errorf("%s file: %v, want ErrBadFile", name, err)
		}
	}
	other := testType(t)
	other.Properties = other.Properties[:len(other.Properties)-1]
	if _, err := Read(bytes.NewReader(file), other); !errors.Is(err, ErrBadFile) {
		t.Errorf("file of another mapping: %v", err)
	}
}

func flip(b []byte, i int) []byte {
	c := bytes.Clone(b)
	c[i] ^= 0x40
	return c
}

// TestSnapshot_Object checks that objects rebuilt from the columns are the
// stored ones, value for value.
func TestSnapshot_Object(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	typ := testType(t)
	// Only scalar properties with values: drop the arrays and the string
	// of role none.
	var props []objects.Property
	var keep []int
	for i, p := range typ.Properties {
		if p.Type.Kind != objects.KindList && p.APIName != "blob" {
			props, keep = append(props, p), append(keep, i)
		}
	}
	typ.Properties = props
	want := state{}
	for i := range 3000 {
		full := randObject(r, int64(i))
		o := &objects.Object{}
		for _, j := range keep {
			o.Values = append(o.Values, full.Values[j])
		}
		want[uint32(i)] = o
	}
	s := mustBuild(t, typ, want)
	if !s.Readable() {
		t.Fatal("snapshot of scalars is not readable")
	}
	for d, o := range want {
		got := s.Object(d)
		for i, p := range typ.Properties {
			var sc objects.Scalar
			s.ReadScalar(d, i, &sc)
			if sv := sc.Value(p.Type.Kind); !bytes.Equal(mustEncode(t, sv), mustEncode(t, o.Values[i])) {
				t.Fatalf("document %d: scalar %s = %v, stored %v", d, p.APIName, sv, o.Values[i])
			}
		}
		a, _ := o.Encode(nil)
		b, _ := got.Encode(nil)
		if !bytes.Equal(a, b) {
			t.Fatalf("document %d: rebuilt %v, stored %v", d, got.Values, o.Values)
		}
	}
	if mustBuild(t, testType(t), state{}).Readable() {
		t.Error("a snapshot with arrays claims to be readable")
	}
}

func mustEncode(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := objects.AppendValue(nil, v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
