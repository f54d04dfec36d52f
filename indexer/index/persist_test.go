package index

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

// TestSnapshot_WriteTo writes snapshots (built, then updated) and reads
// them back: every structure must come back exactly, and a damaged file
// must be refused.
func TestSnapshot_WriteTo(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	typ := testType(t)
	want := state{}
	for i := range 5000 {
		want[uint32(i)] = randObject(r, int64(i))
	}
	s := mustBuild(t, typ, want)
	var changes []Change
	for d := range want {
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
