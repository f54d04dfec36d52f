package index

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/ontoindex/ontoindex/objects"
	"github.com/zeebo/xxh3"
)

type decoder struct {
	r   *bufio.Reader
	h   *xxh3.Hasher
	err error
	tmp []byte
	// scratch holds the bytes of a read that is decoded into memory of
	// its own (words, a bitmap's containers): one buffer for the file,
	// where a buffer a read left as much garbage as the index (a 10M
	// index file read back, 1.7 GB live, allocated 3.6 GB).
	scratch []byte
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", ErrBadFile, fmt.Sprintf(format, args...))
	}
}

// ReadByte feeds the checksum with every byte read.
func (d *decoder) ReadByte() (byte, error) {
	b, err := d.r.ReadByte()
	if err == nil {
		d.tmp = append(d.tmp[:0], b)
		_, _ = d.h.Write(d.tmp)
	}
	return b, err
}

// fullStep is what full allocates ahead of the bytes it has read.
const fullStep = 1 << 20

// full reads n bytes into a slice the caller keeps.
func (d *decoder) full(n int) []byte {
	if d.err != nil {
		return nil
	}
	return d.readInto(make([]byte, 0, min(n, fullStep)), n)
}

// transient reads n bytes into the decoder's scratch buffer, valid until
// the next read.
func (d *decoder) transient(n int) []byte {
	if d.err != nil {
		return nil
	}
	b := d.readInto(d.scratch[:0], n)
	if b != nil {
		d.scratch = b
	}
	return b
}

// readInto reads n bytes into b, which it returns. A damaged file may
// claim any length, up to the bounds of count: the buffer grows as the
// bytes arrive (doubling from fullStep) instead of being allocated for
// the claim, so a file claims no more memory than it holds.
func (d *decoder) readInto(b []byte, n int) []byte {
	for len(b) < n {
		if len(b) == cap(b) {
			b = slices.Grow(b, min(max(len(b), fullStep), n-len(b)))
		}
		k, err := io.ReadFull(d.r, b[len(b):min(cap(b), n)])
		b = b[:len(b)+k]
		if err != nil {
			d.fail("truncated")
			return nil
		}
	}
	_, _ = d.h.Write(b)
	return b
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, err := binary.ReadUvarint(d)
	if err != nil {
		d.fail("truncated")
	}
	return v
}

// count reads a length and checks it against a bound.
func (d *decoder) count(limit uint64, what string) int {
	n := d.uvarint()
	if n > limit {
		d.fail("%s: %d is out of range", what, n)
		return 0
	}
	return int(n)
}

const maxString = 1 << 30

func (d *decoder) str() string { return string(d.full(d.count(maxString, "string length"))) }

// u64s reads n words; after an error it returns nil (the file is refused,
// what was decoded is dropped), as u32s and strsUpTo do.
func (d *decoder) u64s(n int) []uint64 {
	b := d.transient(8 * n)
	if d.err != nil {
		return nil
	}
	out := make([]uint64, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return out
}

func (d *decoder) u32s(n int) []uint32 {
	// Read before allocating: a damaged file may claim any count.
	b := d.transient(4 * n)
	if d.err != nil {
		return nil
	}
	return decodeU32s(make([]uint32, n), b)
}

// u32sInto reads len(out) words into out, which it returns (nil after an
// error): the offsets of packed strings and postings are read after the 0
// they start with, with no copy. The caller bounds len(out).
func (d *decoder) u32sInto(out []uint32) []uint32 {
	b := d.transient(4 * len(out))
	if d.err != nil {
		return nil
	}
	return decodeU32s(out, b)
}

func decodeU32s(out []uint32, b []byte) []uint32 {
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

// packedStrings reads packed strings written by encoder.packedStrings;
// n is their count.
func (d *decoder) packedStrings(n int) *packedStrings {
	a := d.packedStringsUpTo(uint64(n))
	if d.err == nil && a.len() != n {
		d.fail("%d strings, want %d", a.len(), n)
	}
	return a
}

// strsUpTo reads packed strings, at most limit of them; none after an
// error.
func (d *decoder) packedStringsUpTo(limit uint64) *packedStrings {
	n := d.count(limit, "strings")
	a := &packedStrings{offsets: make([]uint32, n+1)}
	if d.u32sInto(a.offsets[1:]) == nil {
		return packStrings(nil)
	}
	for i := 1; i <= n; i++ {
		if a.offsets[i] < a.offsets[i-1] {
			d.fail("string offsets out of order")
			return packStrings(nil)
		}
	}
	a.data = d.full(int(a.offsets[n]))
	if a.data == nil {
		return packStrings(nil)
	}
	return a
}

func (d *decoder) bitmap() *roaring.Bitmap {
	// ReadFrom copies the containers out of the bytes.
	b := d.transient(d.count(maxString, "bitmap length"))
	bm := roaring.New()
	if d.err == nil {
		if _, err := bm.ReadFrom(bytes.NewReader(b)); err != nil {
			d.fail("bitmap: %v", err)
		}
	}
	return bm
}

func (d *decoder) flag() bool {
	b := d.full(1)
	if b == nil {
		return false
	}
	if b[0] > 1 {
		d.fail("flag %d", b[0])
	}
	return b[0] == 1
}

// Read reads a snapshot file written for type t.
func Read(r io.Reader, t *objects.Type) (*Snapshot, error) {
	d := &decoder{r: bufio.NewReaderSize(r, 1<<16), h: xxh3.New()}
	if m := d.full(len(fileMagic)); d.err != nil || !bytes.Equal(m, fileMagic) {
		return nil, fmt.Errorf("%w: not an index file", ErrBadFile)
	}
	s := &Snapshot{typ: t, keys: &keyColumn{}, bitsets: &sync.Pool{}}
	s.version = d.uvarint()
	if fp := d.str(); d.err == nil && fp != Fingerprint(t) {
		return nil, fmt.Errorf("%w: written for another mapping of %s", ErrBadFile, t.APIName)
	}
	s.maxDoc = uint32(d.count(1<<32-1, "document count"))
	s.alive = d.bitmap()
	nk := d.count(uint64(s.maxDoc)/chunkDocs+1, "key chunks")
	for range nk {
		if d.err != nil {
			break // a damaged count may claim millions of chunks
		}
		s.keys.chunks = append(s.keys.chunks, &keyChunk{packed: d.packedStrings(chunkDocs)})
	}
	s.keyOrder = d.order()
	if n := d.count(uint64(len(t.Properties)), "properties"); d.err == nil && n != len(t.Properties) {
		d.fail("%d properties, type %s has %d", n, t.APIName, len(t.Properties))
	}
	for i, p := range t.Properties {
		if d.err != nil {
			break
		}
		s.properties = append(s.properties, d.property(i, p))
	}
	if d.err != nil {
		return nil, d.err
	}
	for _, pi := range s.properties {
		if isGeo(pi.property) && pi.column != nil { // not saved: loaded again from the column (geo.go)
			pi.geo = buildGeo(pi, s.alive)
		}
	}
	sum := d.h.Sum64()
	var tail [8]byte
	if _, err := io.ReadFull(d.r, tail[:]); err != nil || binary.LittleEndian.Uint64(tail[:]) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrBadFile)
	}
	if _, err := d.r.ReadByte(); err != io.EOF {
		return nil, fmt.Errorf("%w: data after the checksum", ErrBadFile)
	}
	return s, nil
}

func (d *decoder) order() *order {
	n := d.count(1<<31, "order blocks")
	// Room for what a file of its size can hold, not for the claim: a
	// damaged count of 100 million blocks cost 900 MiB before the first
	// block was read (FuzzRead).
	blocks := make([]*orderBlock, 0, min(n, 1024))
	for range n {
		m := d.count(blockMax, "order block")
		if d.err != nil {
			break
		}
		if m == 0 {
			d.fail("empty order block")
			break
		}
		blocks = append(blocks, &orderBlock{pre: d.u64s(m), doc: d.u32s(m)})
	}
	return newOrder(blocks)
}

func (d *decoder) property(i int, p objects.Property) *propertyIndex {
	pi := &propertyIndex{property: p, position: i, elementType: p.Type.Primitive(), isList: p.Type.Kind == objects.KindList}
	pi.nulls = d.bitmap()
	if p.Type.Kind == objects.KindVector {
		pi.vectors = d.readVectors(p)
	}
	if d.flag() {
		pi.column = &column{exact: hasExact(pi.elementType.Kind)}
		n := d.count(1<<20, "column chunks")
		for range n {
			ch := &columnChunk{pre: d.u64s(chunkDocs)}
			if d.flag() {
				ch.exact = d.packedStrings(chunkDocs)
			}
			pi.column.chunks = append(pi.column.chunks, ch)
			if d.err != nil {
				return pi
			}
		}
	}
	if d.flag() {
		pi.listColumn = &listColumn{exact: hasExact(pi.elementType.Kind)}
		n := d.count(1<<20, "list chunks")
		for range n {
			ch := &listChunk{offsets: d.u32s(chunkDocs + 1)}
			if d.err != nil {
				return pi
			}
			m := int(ch.offsets[chunkDocs])
			for o := 1; o <= chunkDocs; o++ {
				if ch.offsets[o] < ch.offsets[o-1] {
					d.fail("list offsets out of order")
					return pi
				}
			}
			ch.pre = d.u64s(m)
			if d.flag() {
				ch.exact = d.packedStrings(m)
			}
			pi.listColumn.chunks = append(pi.listColumn.chunks, ch)
		}
	}
	if d.flag() {
		pi.order = d.order()
	}
	if d.flag() {
		pi.dict = &dict{values: map[string]*roaring.Bitmap{}}
		n := d.count(1<<20, "dict values")
		for range n {
			k := d.str()
			if len(k) < 8 {
				d.fail("dict key")
				return pi
			}
			pi.dict.values[k] = d.bitmap()
		}
	}
	if d.flag() {
		pi.text = &terms{length: &textLength{}}
		n := d.count(1<<31, "term blocks")
		for range n {
			b := &termBlock{}
			b.terms = d.packedStringsUpTo(blockMax)
			m := b.terms.len()
			b.postingOffsets = make([]uint32, m+1)
			d.u32sInto(b.postingOffsets[1:])
			if d.err != nil {
				return pi
			}
			for j := 1; j <= m; j++ {
				if b.postingOffsets[j] < b.postingOffsets[j-1] {
					d.fail("posting offsets out of order")
					return pi
				}
			}
			b.docs = d.u32s(int(b.postingOffsets[m]))
			if nb := d.count(uint64(m), "large postings"); nb > 0 {
				b.large = make(map[int32]*roaring.Bitmap, nb)
				for range nb {
					j := d.count(uint64(m-1), "posting")
					b.large[int32(j)] = d.bitmap()
				}
			}
			if d.err != nil || m == 0 {
				d.fail("term block")
				return pi
			}
			pi.text.blocks = append(pi.text.blocks, b)
		}
	}
	return pi
}
