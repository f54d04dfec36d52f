package store

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"
)

// Aliases spare a copy-on-write rewrite the writes of the rows it carries
// over. When a data file X leaves the table and its unchanged rows now
// live in an added file X' (changelog.CarryOver), their records keep X's
// file id, and the generation records instead that the id now names X':
//
//	fileids   8-byte id of X -> path of X' (as for any id: the file its records live in)
//	aliases   8-byte id of X' | 8-byte id of X -> (empty)
//
// so that Lookup finds those rows in X' (fileids) and FileKeys of X' also
// yields the keys recorded under X (aliases). files holds X' only, under
// its own id. A later rewrite of X' points X's id at the file after it
// as well: an id never aliases an alias, and an alias whose keys all left
// is dropped. A rewrite costs its rows' read, hash and lookup and its changed rows'
// writes, rather than two writes to every row of the new file.
//
// The first added file X's rows are carried into is its alias; rows of X
// carried into another file (a split) are moved as before. Until the diff
// is done, the documents of the carried rows are held in memory (carried):
// the diff looks a carried key up again (a duplicate in a later file, the
// removal of X) and must then find it in X', though its record still
// names X. A set of documents, not of keys: Lookup has the record's
// document at hand, and testing a bitmap costs no hash of the key and no
// cold probe of a map that holds every row of the file (a third of a
// one-row edit's build at ten million objects).
var bucketAliases = []byte("aliases")

// Removing tells the writer which baseline files the diff removes: rows
// carried over from those may stay where they are recorded (aliases).
func (w *Writer) Removing(paths []string) {
	w.removing = make(map[string]bool, len(paths))
	for _, p := range paths {
		w.removing[p] = true
	}
}

// carry records a carried-over row of a removed file without a write, when
// the file's alias is (or may become) the row's new file; it reports
// whether it did.
func (w *Writer) carry(prev record, file string) (bool, error) {
	if w.appendOnly || w.full || w.b.layout < Layout {
		return false, nil // (an older layout's records have no documents)
	}
	src, _, removed, err := w.source(prev.fileID)
	if err != nil || !removed {
		return false, err
	}
	m := &w.lastCarry
	if m.file != file || m.to == 0 {
		if m.to, _, err = w.fileID(file, true); err != nil {
			m.to = 0
			return false, err
		}
		m.file = file
	}
	to := m.to
	if w.aliasTo == nil {
		w.aliasTo, w.carried = map[uint64]uint64{}, roaring.New()
	}
	if t, ok := w.aliasTo[src]; ok && t != to {
		return false, nil // split: this part moves
	}
	w.aliasTo[src] = to
	w.carried.Add(prev.doc)
	return true, nil
}

// carryMemo is what source and carry found for the last row: the rows of
// a file come one after the other, and the paths need not be hashed again.
type carryMemo struct {
	ok      bool
	fileID  uint64 // a record's file id
	from    string // the path fileID names
	removed bool   // from leaves the table in this diff
	src     uint64 // from's own id
	file    string // the last carried row's new file
	to      uint64 // its id
}

// source returns the file a record's file id names, its own id, and
// whether the diff removes it.
func (w *Writer) source(fileID uint64) (uint64, string, bool, error) {
	m := &w.lastCarry
	if m.ok && m.fileID == fileID {
		return m.src, m.from, m.removed, nil
	}
	from, err := w.path(fileID)
	if err != nil {
		return 0, "", false, err
	}
	var src uint64
	removed := w.removing[from]
	if removed {
		var found bool
		if src, found, err = w.fileID(from, false); err != nil || !found {
			return 0, "", false, err
		}
	}
	m.ok, m.fileID, m.from, m.removed, m.src = true, fileID, from, removed, src
	return src, from, removed, nil
}

// left counts a row of a removed file that an added file holds now.
func (w *Writer) left(fileID uint64) error {
	if w.removing == nil {
		return nil
	}
	src, _, removed, err := w.source(fileID)
	if err != nil || !removed {
		return err
	}
	if w.leftFrom == nil {
		w.leftFrom = map[uint64]int64{}
	}
	w.leftFrom[src]++
	return nil
}

// allLeft reports whether every row of a removed file is in an added file
// now: then no key recorded under it is the file's any more. Every key
// under the file's ids is a distinct row of it, counted once when its row
// was applied from an added file.
func (w *Writer) allLeft(path string, id uint64) (bool, error) {
	n := w.leftFrom[id]
	if n == 0 {
		return false, nil
	}
	f, ok, err := w.BaselineFile(path)
	return ok && n == f.Records, err
}

// carriedTo returns the file the row of a stored record was carried into
// without a write in this diff, if it was: the alias of its file.
func (w *Writer) carriedTo(r record) (string, bool, error) {
	if w.carried == nil || !w.carried.Contains(r.doc) {
		return "", false, nil
	}
	src, _, _, err := w.source(r.fileID)
	if err != nil {
		return "", false, err
	}
	to, ok := w.aliasTo[src]
	if !ok {
		return "", false, fmt.Errorf("object type %s: document %d carried from file id %d, which has no alias", w.name, r.doc, src)
	}
	return w.paths[to], true, nil
}

// uncarry forgets a carried row that the diff now changes.
func (w *Writer) uncarry(r record) {
	if w.carried != nil {
		w.carried.Remove(r.doc)
	}
}

// fileIDs returns the id of a data file and the ids aliased to it.
func (w *Writer) fileIDs(id uint64) []uint64 {
	ids := []uint64{id}
	b := w.b.root.Bucket(bucketAliases)
	if b == nil {
		return ids
	}
	prefix := fileIDKey(id)
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		if len(k) == 16 {
			ids = append(ids, binary.BigEndian.Uint64(k[8:]))
		}
	}
	return ids
}

// hasKeys reports whether any key is recorded under a file id.
func (w *Writer) hasKeys(id uint64) bool {
	prefix := fileIDKey(id)
	k, _ := w.b.fileKeys.Cursor().Seek(prefix)
	return k != nil && bytes.HasPrefix(k, prefix)
}

// alias makes the ids of a removed file (its own and its aliases) name the
// file its rows were carried into, dropping those no key is recorded under
// any more.
func (w *Writer) alias(ids []uint64, to uint64) error {
	target := []byte(w.paths[to])
	b, err := w.b.root.CreateBucketIfNotExists(bucketAliases)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if len(ids) > 1 && id != ids[0] {
			if err := b.Delete(append(fileIDKey(ids[0]), fileIDKey(id)...)); err != nil {
				return err
			}
		}
		if !w.hasKeys(id) {
			if err := w.b.fileIDs.Delete(fileIDKey(id)); err != nil {
				return err
			}
			delete(w.paths, id)
			continue
		}
		if err := w.b.fileIDs.Put(fileIDKey(id), target); err != nil {
			return err
		}
		if err := b.Put(append(fileIDKey(to), fileIDKey(id)...), nil); err != nil {
			return err
		}
		w.paths[id] = string(target)
	}
	return nil
}

// unalias forgets the aliases of a file that left with its keys.
func (w *Writer) unalias(ids []uint64) error {
	b := w.b.root.Bucket(bucketAliases)
	if b == nil {
		return nil
	}
	for _, id := range ids[1:] {
		if err := b.Delete(append(fileIDKey(ids[0]), fileIDKey(id)...)); err != nil {
			return err
		}
	}
	return nil
}
