package store

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/objects"
)

// A Writer is the baseline a build's diff compares with and the sink of
// its changes.
var (
	_ changelog.Baseline = (*Writer)(nil)
	_ changelog.Sink     = (*Writer)(nil)
)

// Lookup implements changelog.Baseline.
func (w *Writer) Lookup(key []byte) (string, uint64, bool, error) {
	w.looked.ok = false
	var v []byte
	if !w.keys.absent(key) {
		v = w.getObject(key)
	}
	if v == nil {
		w.looked = lookedUp{key: append(w.looked.key[:0], key...), ok: true}
		return "", 0, false, nil
	}
	r, err := w.b.record(v)
	if err != nil {
		return "", 0, false, fmt.Errorf("object type %s: stored object: %w", w.name, err)
	}
	w.looked = lookedUp{key: append(w.looked.key[:0], key...), ok: true, found: true, rec: r}
	if _, cached := w.paths[r.fileID]; w.appendOnly && !cached && w.b.fileIDs.Get(fileIDKey(r.fileID)) == nil {
		return "", r.hash, true, nil // compacted since (AppendOnly)
	}
	if to, ok, err := w.carriedTo(r); err != nil || ok {
		return to, r.hash, true, err
	}
	p, err := w.path(r.fileID)
	return p, r.hash, true, err
}

// FileKeys implements changelog.Baseline.
func (w *Writer) FileKeys(path string, fn func(key []byte) error) error {
	id, ok, err := w.fileID(path, false)
	if err != nil || !ok {
		return err
	}
	if all, err := w.allLeft(path, id); err != nil || all {
		return err
	}
	// The keys first, then fn: fn may delete a key's entry (Apply), and a
	// bbolt cursor does not survive deletes in its bucket. Keys carried
	// out of the file in this diff are still recorded under it, and
	// yielded: Lookup finds them in the file they were carried into.
	var keys [][]byte
	for _, id := range w.fileIDs(id) {
		prefix := fileIDKey(id)
		c := w.b.fileKeys.Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			keys = append(keys, bytes.Clone(k[len(prefix):]))
		}
	}
	for _, k := range keys {
		if err := fn(k); err != nil {
			return err
		}
	}
	return nil
}

// Apply implements changelog.Sink.
func (w *Writer) Apply(c *changelog.Change) error {
	switch c.Type {
	case changelog.Delete:
		prev, ok, err := w.lookUp(c.Key)
		if err != nil || !ok {
			return err
		}
		w.uncarry(prev)
		w.previous(prev)
		w.movedObjects()
		if err := w.b.objects.Delete(c.Key); err != nil {
			return err
		}
		if err := w.unlinkKey(prev.fileID, c.Key); err != nil {
			return err
		}
		w.count--
		return w.changed(prev.doc, c.Key, nil)
	case changelog.Insert, changelog.UpdateAfter, changelog.CarryOver:
	default:
		return fmt.Errorf("unexpected change type %s", c.Type)
	}
	prev, ok, err := w.lookUp(c.Key)
	if err != nil {
		return err
	}
	if ok {
		if err := w.left(prev.fileID); err != nil {
			return err
		}
	}
	if ok && c.Type == changelog.CarryOver {
		if carried, err := w.carry(prev, c.File); err != nil || carried {
			return err
		}
	}
	if ok {
		w.uncarry(prev)
	}
	id, _, err := w.fileID(c.File, true)
	if err != nil {
		return err
	}
	r := record{fileID: id, hash: c.Hash, encoded: c.Encoded}
	switch {
	case ok:
		r.doc = prev.doc
		if c.Type != changelog.CarryOver {
			w.previous(prev)
		}
		if prev.fileID != id {
			if err := w.unlinkKey(prev.fileID, c.Key); err != nil {
				return err
			}
		}
		if c.Type == changelog.CarryOver {
			r.encoded = bytes.Clone(prev.encoded)
		}
	case c.Type == changelog.CarryOver:
		return fmt.Errorf("object type %s: carry-over of a key the store does not hold", w.name)
	default:
		r.doc = w.docs.New()
	}
	w.movedObjects()
	if err := w.b.objects.Put(c.Key, r.append(nil)); err != nil {
		return err
	}
	if id != w.runFile {
		w.keys.endRun()
		w.runFile = id
	}
	w.keys.add(c.Key)
	if !w.appendOnly {
		if err := w.b.fileKeys.Put(append(fileIDKey(id), c.Key...), nil); err != nil {
			return err
		}
	}
	if c.Type != changelog.CarryOver {
		if err := w.changed(r.doc, c.Key, c.Object); err != nil {
			return err
		}
	}
	if c.Type == changelog.Insert {
		w.count++
	}
	w.rowsInTx++
	return w.chunk(c)
}

// lookedUp is what the last Lookup found: the diff looks every row's key
// up and then applies the row, and would otherwise search the objects
// twice for each (a full build's every row, an incremental build's every
// row of a rewritten file). Only Apply writes objects, after it takes
// this, so the record (whose encoding is the page's bytes) holds until
// then.
type lookedUp struct {
	key   []byte
	ok    bool // key was looked up last and is not applied yet
	found bool
	rec   record
}

// lookUp returns the stored record of key: the last Lookup's, and forgets
// it, or read now.
func (w *Writer) lookUp(key []byte) (record, bool, error) {
	l := &w.looked
	if l.ok && bytes.Equal(l.key, key) {
		l.ok = false
		return l.rec, l.found, nil
	}
	l.ok = false
	return w.stored(key)
}

// stored reads the record of a key.
func (w *Writer) stored(key []byte) (record, bool, error) {
	if w.keys.absent(key) {
		return record{}, false, nil
	}
	v := w.b.objects.Get(key)
	if v == nil {
		return record{}, false, nil
	}
	r, err := w.b.record(v)
	if err != nil {
		return r, false, fmt.Errorf("object type %s: stored object %x: %w", w.name, key, err)
	}
	return r, true, nil
}

// previous hands the stored state of a document the writer is about to
// change or delete to docs, when it takes it (PreviousDocs): before the
// write, while the record's bytes are the store's.
func (w *Writer) previous(prev record) {
	if p, ok := w.docs.(PreviousDocs); ok && !w.full {
		p.Previous(prev.doc, prev.encoded)
	}
}

// changed hands the new state of a document (o nil: no object any more)
// to the index, and marks it dirty when the writer marks: the entry of a
// freed document holds no key (Gen.Dirty).
func (w *Writer) changed(doc uint32, key []byte, o *objects.Object) error {
	switch {
	case w.docs == nil:
		return nil
	case w.full && o == nil:
		return fmt.Errorf("object type %s: a full build deletes document %d", w.name, doc)
	}
	if err := w.docs.Changed(doc, key, o); err != nil || !w.mark {
		return err
	}
	v := binary.AppendUvarint(nil, w.version)
	if o != nil {
		v = append(v, key...)
	}
	return w.b.dirty.Put(docKey(doc), v)
}

// FileDone implements changelog.Sink: the file is now part of the baseline.
func (w *Writer) FileDone(f changelog.DataFile) error {
	id, _, err := w.fileID(f.Path, true)
	if err != nil {
		return err
	}
	if w.state != nil && w.state.PartialFile == f.Path {
		w.state.PartialFile, w.state.PartialRows = "", 0
	}
	return w.b.files.Put([]byte(f.Path), fileRecord{ID: id, Size: f.Size, Records: f.Records}.encode())
}

// FileRemoved implements changelog.Sink: forget a file and its keys.
func (w *Writer) FileRemoved(path string) error {
	id, ok, err := w.fileID(path, false)
	if err != nil || !ok {
		return err
	}
	ids := w.fileIDs(id)
	w.lastCarry = carryMemo{}
	if to, ok := w.aliasTo[id]; ok {
		// Its rows live on in the file they were carried into.
		if err := w.alias(ids, to); err != nil {
			return err
		}
	} else {
		for _, id := range ids {
			prefix := fileIDKey(id)
			c := w.b.fileKeys.Cursor()
			for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Seek(prefix) {
				if err := c.Delete(); err != nil {
					return err
				}
			}
			if err := w.b.fileIDs.Delete(prefix); err != nil {
				return err
			}
			delete(w.paths, id)
		}
		if err := w.unalias(ids); err != nil {
			return err
		}
	}
	if err := w.dropPositions(id); err != nil {
		return err
	}
	delete(w.ids, path)
	delete(w.paths, id)
	return w.b.files.Delete([]byte(path))
}

// KnownManifest returns the live files of a manifest this generation
// holds, for changelog.LiveFiles.
func (w *Writer) KnownManifest(path string) ([]changelog.DataFile, bool, error) {
	v := w.b.manifests.Get([]byte(path))
	if v == nil {
		return nil, false, nil
	}
	var out []changelog.DataFile
	for len(v) > 0 {
		id, n := binary.Uvarint(v)
		if n <= 0 {
			return nil, false, objects.ErrCorrupt
		}
		v = v[n:]
		p, err := w.path(id)
		if err != nil {
			return nil, false, err
		}
		rv := w.b.files.Get([]byte(p))
		if rv == nil {
			return nil, false, fmt.Errorf("object type %s: manifest %s lists data file %s that the store does not hold", w.name, path, p)
		}
		r, err := decodeFileRecord(rv)
		if err != nil {
			return nil, false, err
		}
		out = append(out, changelog.DataFile{Path: p, Size: r.Size, Records: r.Records})
	}
	return out, true, nil
}

// BaselineFiles iterates the data file paths this generation holds, for
// changelog.PlanDiff.
func (w *Writer) BaselineFiles(yield func(string) bool) {
	c := w.b.files.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		if !yield(string(k)) {
			return
		}
	}
}

// SetManifests records the data manifests of the new checkpoint.
func (w *Writer) SetManifests(ms []changelog.Manifest) error {
	keep := map[string]bool{}
	for _, m := range ms {
		keep[m.Path] = true
		if m.Known {
			continue
		}
		var v []byte
		for _, f := range m.Files {
			id, ok, err := w.fileID(f.Path, false)
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("object type %s: data file %s of manifest %s was not indexed", w.name, f.Path, m.Path)
			}
			v = binary.AppendUvarint(v, id)
		}
		if err := w.b.manifests.Put([]byte(m.Path), v); err != nil {
			return err
		}
	}
	var stale [][]byte
	c := w.b.manifests.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		if !keep[string(k)] {
			stale = append(stale, bytes.Clone(k))
		}
	}
	for _, k := range stale {
		if err := w.b.manifests.Delete(k); err != nil {
			return err
		}
	}
	return nil
}
