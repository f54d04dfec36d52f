package store

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/objects"
	bolt "go.etcd.io/bbolt"
)

// The merge-on-read state of a generation (object types with mergeOnRead:
// index), in its bucket deletes, made when first written:
//
//	f<delete file path>  kind byte | uvarint data sequence number | uvarint file ids it touched
//	p<8-byte file id>    the positions of the data file that applied deletes removed (roaring64)
//	s                    the sequence number of the checkpoint snapshot
//
// A delete file is applied once; the positions let a deletion vector that
// replaces an earlier one count only its new positions, and tell a rollback
// (a delete file gone while the rows it deleted are back) from a
// compaction.
var (
	bucketDeletes  = []byte("deletes")
	keyDeleteSeq   = []byte("s")
	prefixDelete   = []byte("f")
	prefixPosition = []byte("p")
)

// AppliedDelete is a delete file the baseline has applied: its kind
// (changelog.DeleteKind), data sequence number, and the data files it
// removed rows from (those still in the baseline).
type AppliedDelete struct {
	Kind    byte
	Seq     int64
	Touched []string
}

func (w *Writer) deletes(create bool) (*bolt.Bucket, error) {
	if b := w.b.root.Bucket(bucketDeletes); b != nil || !create {
		return b, nil
	}
	return w.b.root.CreateBucket(bucketDeletes)
}

// AppliedDeletes returns the delete files the generation has applied.
func (w *Writer) AppliedDeletes() (map[string]AppliedDelete, error) {
	out := map[string]AppliedDelete{}
	b, err := w.deletes(false)
	if err != nil || b == nil {
		return out, err
	}
	c := b.Cursor()
	for k, v := c.Seek(prefixDelete); k != nil && bytes.HasPrefix(k, prefixDelete); k, v = c.Next() {
		if len(v) < 1 {
			return nil, objects.ErrCorrupt
		}
		a := AppliedDelete{Kind: v[0]}
		v = v[1:]
		seq, n := binary.Uvarint(v)
		if n <= 0 {
			return nil, objects.ErrCorrupt
		}
		a.Seq, v = int64(seq), v[n:]
		for len(v) > 0 {
			id, n := binary.Uvarint(v)
			if n <= 0 {
				return nil, objects.ErrCorrupt
			}
			v = v[n:]
			// Only a file's own id: an alias id names the file its
			// carried rows live in now, which the delete did not touch.
			if p := w.b.fileIDs.Get(fileIDKey(id)); p != nil {
				if own, ok, err := w.fileID(string(p), false); err != nil {
					return nil, err
				} else if ok && own == id {
					a.Touched = append(a.Touched, string(p))
				}
			}
		}
		out[string(k[len(prefixDelete):])] = a
	}
	return out, nil
}

// PutAppliedDelete records an applied delete file. Its touched files must
// be in the baseline.
func (w *Writer) PutAppliedDelete(path string, a AppliedDelete) error {
	b, err := w.deletes(true)
	if err != nil {
		return err
	}
	v := binary.AppendUvarint([]byte{a.Kind}, uint64(max(a.Seq, 0)))
	for _, p := range a.Touched {
		id, ok, err := w.fileID(p, false)
		if err != nil {
			return err
		}
		if ok {
			v = binary.AppendUvarint(v, id)
		}
	}
	return b.Put(append(bytes.Clone(prefixDelete), path...), v)
}

// DropAppliedDelete forgets a delete file that left the table.
func (w *Writer) DropAppliedDelete(path string) error {
	b, err := w.deletes(false)
	if err != nil || b == nil {
		return err
	}
	return b.Delete(append(bytes.Clone(prefixDelete), path...))
}

// DeletedPositions returns the positions of a baseline data file that
// applied deletes removed (nil: none).
func (w *Writer) DeletedPositions(path string) (*roaring64.Bitmap, error) {
	b, err := w.deletes(false)
	if err != nil || b == nil {
		return nil, err
	}
	id, ok, err := w.fileID(path, false)
	if err != nil || !ok {
		return nil, err
	}
	v := b.Get(append(bytes.Clone(prefixPosition), fileIDKey(id)...))
	if v == nil {
		return nil, nil
	}
	bm := roaring64.New()
	if _, err := bm.ReadFrom(bytes.NewReader(v)); err != nil {
		return nil, fmt.Errorf("object type %s: deleted positions of %s: %w", w.name, path, objects.ErrCorrupt)
	}
	return bm, nil
}

// SetDeletedPositions records the deleted positions of a data file of the
// baseline.
func (w *Writer) SetDeletedPositions(path string, bm *roaring64.Bitmap) error {
	b, err := w.deletes(true)
	if err != nil {
		return err
	}
	id, ok, err := w.fileID(path, false)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("object type %s: deleted positions of data file %s, which the baseline does not hold", w.name, path)
	}
	bm.RunOptimize()
	v, err := bm.ToBytes()
	if err != nil {
		return err
	}
	return b.Put(append(bytes.Clone(prefixPosition), fileIDKey(id)...), v)
}

// dropPositions forgets the deleted positions of a file that left.
func (w *Writer) dropPositions(id uint64) error {
	b, err := w.deletes(false)
	if err != nil || b == nil {
		return err
	}
	return b.Delete(append(bytes.Clone(prefixPosition), fileIDKey(id)...))
}

// DeleteSeq is the sequence number of the snapshot the applied deletes
// are of (0: none recorded).
func (w *Writer) DeleteSeq() (int64, error) {
	b, err := w.deletes(false)
	if err != nil || b == nil {
		return 0, err
	}
	seq, _ := binary.Uvarint(b.Get(keyDeleteSeq))
	return int64(seq), nil
}

// SetDeleteSeq records the sequence number of the checkpoint snapshot.
func (w *Writer) SetDeleteSeq(seq int64) error {
	b, err := w.deletes(true)
	if err != nil {
		return err
	}
	return b.Put(keyDeleteSeq, binary.AppendUvarint(nil, uint64(max(seq, 0))))
}

// unlinkKey drops the file-to-key entry of a key that left a file that
// stays live (a merge-on-read delete, or an update written elsewhere).
func (w *Writer) unlinkKey(fileID uint64, key []byte) error {
	if w.appendOnly {
		return nil
	}
	return w.b.fileKeys.Delete(append(fileIDKey(fileID), key...))
}

// BaselineFile returns a data file of the baseline as the diff knows it:
// path, size and records.
func (w *Writer) BaselineFile(path string) (changelog.DataFile, bool, error) {
	v := w.b.files.Get([]byte(path))
	if v == nil {
		return changelog.DataFile{}, false, nil
	}
	r, err := decodeFileRecord(v)
	if err != nil {
		return changelog.DataFile{}, false, err
	}
	return changelog.DataFile{Path: path, Size: r.Size, Records: r.Records}, true, nil
}
