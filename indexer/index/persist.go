package index

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/ontoindex/ontoindex/objects"
	"github.com/zeebo/xxh3"
)

// A snapshot file holds every structure of a snapshot, so that a restart
// loads it instead of rebuilding it from the store:
//
//	magic "ONTOIDX" 0x01 | uvarint store version | string type fingerprint
//	| uvarint maxDoc | alive | keys | primary-key order | properties
//	| 8-byte xxh3 of everything before
//
// Integers are uvarints or little-endian words, strings and bitmaps are
// length-prefixed. A file that does not end in its checksum, or whose
// fingerprint is not the type's, is refused with ErrBadFile.

// ErrBadFile reports a snapshot file that is truncated, corrupt, or of
// another type or format.
var ErrBadFile = errors.New("index file is corrupt or of another format")

var fileMagic = []byte("ONTOIDX\x01")

// Fingerprint identifies what a snapshot file of type t must have been
// written for: the type's mapping.
func Fingerprint(t *objects.Type) string { return t.MappingHash() }

type encoder struct {
	w   *bufio.Writer
	h   *xxh3.Hasher
	buf []byte
	err error
}

func (e *encoder) flush() {
	if e.err == nil && len(e.buf) > 0 {
		_, _ = e.h.Write(e.buf)
		_, e.err = e.w.Write(e.buf)
	}
	e.buf = e.buf[:0]
}

func (e *encoder) maybeFlush() {
	if len(e.buf) >= 1<<16 {
		e.flush()
	}
}

func (e *encoder) uvarint(v uint64) { e.buf = binary.AppendUvarint(e.buf, v); e.maybeFlush() }
func (e *encoder) str(s string) {
	e.buf = binary.AppendUvarint(e.buf, uint64(len(s)))
	e.buf = append(e.buf, s...)
	e.maybeFlush()
}
func (e *encoder) u64s(vs []uint64) {
	for _, v := range vs {
		e.buf = binary.LittleEndian.AppendUint64(e.buf, v)
		e.maybeFlush()
	}
}
func (e *encoder) u32s(vs []uint32) {
	for _, v := range vs {
		e.buf = binary.LittleEndian.AppendUint32(e.buf, v)
		e.maybeFlush()
	}
}

// packedStrings writes packed strings: their count, offsets and bytes.
func (e *encoder) packedStrings(a *packedStrings) {
	e.uvarint(uint64(a.len()))
	e.u32s(a.offsets[1:])
	e.flush()
	if e.err == nil {
		_, _ = e.h.Write(a.data)
		_, e.err = e.w.Write(a.data)
	}
}

// bitmap writes a bitmap, length-prefixed, straight to the file: a copy
// of each (ToBytes), then another in buf, left the saver's garbage at the
// size of the index's bitmaps, on the heap until the next collection.
func (e *encoder) bitmap(bm *roaring.Bitmap) {
	e.buf = binary.AppendUvarint(e.buf, bm.GetSerializedSizeInBytes())
	e.flush()
	if e.err == nil {
		_, e.err = bm.WriteTo(io.MultiWriter(e.h, e.w))
	}
}
func (e *encoder) flag(ok bool) {
	if ok {
		e.buf = append(e.buf, 1)
	} else {
		e.buf = append(e.buf, 0)
	}
}

// WriteTo writes the snapshot file.
func (s *Snapshot) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	e := &encoder{w: bufio.NewWriterSize(cw, 1<<16), h: xxh3.New()}
	e.buf = append(e.buf, fileMagic...)
	e.uvarint(s.version)
	e.str(Fingerprint(s.typ))
	e.uvarint(uint64(s.maxDoc))
	e.bitmap(s.alive)
	e.uvarint(uint64(len(s.keys.chunks)))
	for _, ch := range s.keys.chunks {
		e.packedStrings(ch.packed)
	}
	e.order(s.keyOrder)
	e.uvarint(uint64(len(s.properties)))
	for _, pi := range s.properties {
		e.property(pi)
	}
	e.flush()
	if e.err == nil {
		e.err = binary.Write(e.w, binary.LittleEndian, e.h.Sum64())
	}
	if e.err == nil {
		e.err = e.w.Flush()
	}
	return cw.n, e.err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func (e *encoder) order(o *order) {
	e.uvarint(uint64(len(o.blocks)))
	for _, b := range o.blocks {
		e.uvarint(uint64(len(b.doc)))
		e.u64s(b.pre)
		e.u32s(b.doc)
	}
}

func (e *encoder) property(pi *propertyIndex) {
	e.bitmap(pi.nulls)
	if pi.vectors != nil { // the type says it is there: no flag
		pi.vectors.Save(vectorEncoder{e})
	}
	e.flag(pi.column != nil)
	if pi.column != nil {
		e.uvarint(uint64(len(pi.column.chunks)))
		for _, ch := range pi.column.chunks {
			e.u64s(ch.pre)
			e.flag(ch.exact != nil)
			if ch.exact != nil {
				e.packedStrings(ch.exact)
			}
		}
	}
	e.flag(pi.listColumn != nil)
	if pi.listColumn != nil {
		e.uvarint(uint64(len(pi.listColumn.chunks)))
		for _, ch := range pi.listColumn.chunks {
			e.u32s(ch.offsets)
			e.u64s(ch.pre)
			e.flag(ch.exact != nil)
			if ch.exact != nil {
				e.packedStrings(ch.exact)
			}
		}
	}
	e.flag(pi.order != nil)
	if pi.order != nil {
		e.order(pi.order)
	}
	e.flag(pi.dict != nil)
	if pi.dict != nil {
		e.uvarint(uint64(len(pi.dict.values)))
		for k, bm := range pi.dict.values {
			e.str(k)
			e.bitmap(bm)
		}
	}
	e.flag(pi.text != nil)
	if pi.text != nil {
		e.uvarint(uint64(len(pi.text.blocks)))
		for _, b := range pi.text.blocks {
			e.packedStrings(b.terms)
			e.u32s(b.postingOffsets[1:])
			e.u32s(b.docs)
			e.uvarint(uint64(len(b.large)))
			for j, bm := range b.large {
				e.uvarint(uint64(j))
				e.bitmap(bm)
			}
		}
	}
}
