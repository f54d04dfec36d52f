package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"runtime/metrics"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/zeebo/xxh3"
)

// fileOf returns the index file of a snapshot of n random objects.
func fileOf(tb testing.TB, n int) []byte {
	tb.Helper()
	s := mustBuild(tb, testType(tb), randState(rand.New(rand.NewPCG(uint64(n), 3)), n))
	var buf bytes.Buffer
	if _, err := s.WriteTo(&buf); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// allocated is the heap bytes allocated while fn runs, from
// runtime/metrics: ReadMemStats stops the world, twice per input was most
// of FuzzRead's time. The count may lag by about a span per size class,
// nothing next to the bounds it is checked against.
func allocated(fn func()) uint64 {
	allocs := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(allocs)
	before := allocs[0].Value.Uint64()
	fn()
	metrics.Read(allocs)
	return allocs[0].Value.Uint64() - before
}

// resum replaces the checksum of a file body (all but its last 8 bytes)
// with the right one, so that a damaged body reaches every check of Read.
func resum(file []byte) []byte {
	if len(file) < 8 {
		return file
	}
	body := file[:len(file)-8]
	return binary.LittleEndian.AppendUint64(bytes.Clone(body), xxh3.Hash(body))
}

// FuzzRead reads damaged index files: each is refused with ErrBadFile (or
// read, when the damage left a valid file), never a panic, and never an
// allocation much larger than the file (a length a damaged file claims is
// not allocated before the bytes are there). With fix set the checksum is
// made right, so the damage reaches the structure checks after it too.
func FuzzRead(f *testing.F) {
	typ := testType(f)
	for _, n := range []int{0, 3, 40} {
		file := fileOf(f, n)
		f.Add(file, false)
		f.Add(file[:len(file)/2], false)
		f.Add(flip(file, len(file)/3), true)
	}
	f.Fuzz(func(t *testing.T, file []byte, fix bool) {
		if fix {
			file = resum(file)
		}
		var s *Snapshot
		var err error
		grew := allocated(func() { s, err = Read(bytes.NewReader(file), typ) })
		if err != nil && !errors.Is(err, ErrBadFile) {
			t.Fatalf("error %v is not ErrBadFile", err)
		}
		if err == nil && s == nil {
			t.Fatal("no snapshot and no error")
		}
		if grew > 64<<20+uint64(len(file))*64 {
			t.Fatalf("reading %d bytes allocated %d MiB", len(file), grew>>20)
		}
	})
}

// TestRead_claimedLengths reads files that claim more than they hold:
// huge bitmaps, strings, key chunks, columns and lists. Each is refused as
// truncated without allocating what it claims.
func TestRead_claimedLengths(t *testing.T) {
	typ := testType(t)
	head := func() *bytes.Buffer {
		var b bytes.Buffer
		b.Write(fileMagic)
		b.Write(binary.AppendUvarint(nil, 1)) // version
		fp := Fingerprint(typ)
		b.Write(binary.AppendUvarint(nil, uint64(len(fp))))
		b.WriteString(fp)
		return &b
	}
	uv := func(b *bytes.Buffer, vs ...uint64) *bytes.Buffer {
		for _, v := range vs {
			b.Write(binary.AppendUvarint(nil, v))
		}
		return b
	}
	emptyBitmap := func(b *bytes.Buffer) *bytes.Buffer {
		var bm bytes.Buffer
		_, _ = roaring.New().WriteTo(&bm)
		uv(b, uint64(bm.Len()))
		b.Write(bm.Bytes())
		return b
	}
	for _, tt := range []struct {
		name string
		file []byte
	}{
		{"a bitmap of 1 GiB", uv(head(), 10, 1<<30).Bytes()},
		{"4 million key chunks", uv(emptyBitmap(uv(head(), 1<<32-1)), 1<<22).Bytes()},
		{"a key chunk of 4 GiB of strings", func() []byte {
			b := uv(emptyBitmap(uv(head(), 1)), 1, chunkDocs)
			for i := range chunkDocs { // offsets
				_ = binary.Write(b, binary.LittleEndian, uint32(i)<<22)
			}
			return b.Bytes()
		}()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			grew := allocated(func() { _, err = Read(bytes.NewReader(tt.file), typ) })
			if !errors.Is(err, ErrBadFile) {
				t.Fatalf("err = %v, want ErrBadFile", err)
			}
			if grew > 64<<20 {
				t.Fatalf("a file of %d bytes allocated %d MiB", len(tt.file), grew>>20)
			}
		})
	}
}

func TestAllocated(t *testing.T) {
	var keep []byte
	if got := allocated(func() { keep = make([]byte, 100<<20) }); got < 100<<20 {
		t.Fatalf("allocated %d bytes for a slice of 100 MiB", got)
	}
	_ = keep
}
