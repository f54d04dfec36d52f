package store

import (
	"encoding/binary"

	"github.com/ontoindex/ontoindex/objects"
)

// record is one stored object.
type record struct {
	fileID  uint64
	doc     uint32
	hash    uint64
	encoded []byte
}

// record splits a stored object value.
func (g *Gen) record(v []byte) (record, error) {
	var r record
	id, n := binary.Uvarint(v)
	if n <= 0 {
		return r, objects.ErrCorrupt
	}
	r.fileID, v = id, v[n:]
	if g.layout >= Layout {
		doc, n := binary.Uvarint(v)
		if n <= 0 || doc > 1<<32-1 {
			return r, objects.ErrCorrupt
		}
		r.doc, v = uint32(doc), v[n:]
	}
	if len(v) < 8 {
		return r, objects.ErrCorrupt
	}
	r.hash, r.encoded = binary.BigEndian.Uint64(v), v[8:]
	return r, nil
}

func (r record) append(b []byte) []byte {
	b = binary.AppendUvarint(b, r.fileID)
	b = binary.AppendUvarint(b, uint64(r.doc))
	b = binary.BigEndian.AppendUint64(b, r.hash)
	return append(b, r.encoded...)
}

func docKey(d uint32) []byte     { return binary.BigEndian.AppendUint32(nil, d) }
func fileIDKey(id uint64) []byte { return binary.BigEndian.AppendUint64(nil, id) }

// fileRecord is the baseline entry of one data file.
type fileRecord struct {
	ID      uint64
	Size    int64
	Records int64
}

func (r fileRecord) encode() []byte {
	b := binary.AppendUvarint(nil, r.ID)
	b = binary.AppendUvarint(b, uint64(r.Size))
	return binary.AppendUvarint(b, uint64(r.Records))
}

func decodeFileRecord(v []byte) (fileRecord, error) {
	var r fileRecord
	var vals [3]uint64
	for i := range vals {
		x, n := binary.Uvarint(v)
		if n <= 0 {
			return r, objects.ErrCorrupt
		}
		vals[i], v = x, v[n:]
	}
	return fileRecord{ID: vals[0], Size: int64(vals[1]), Records: int64(vals[2])}, nil
}
