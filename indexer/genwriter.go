package indexer

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/indexer/index"
	"github.com/ontoindex/ontoindex/objects"
	bolt "go.etcd.io/bbolt"
)

// genWriter applies a diff to one generation. It is the changelog.Baseline
// and changelog.Sink of a build. With chunkRows > 0 it commits every
// chunkRows rows (full builds into a fresh generation); otherwise everything
// is one transaction that the caller commits (incremental builds).
type genWriter struct {
	db        *bolt.DB
	name      string
	gen       int
	chunkRows int
	// state, when set, is the full build record saved with each commit.
	state *buildState
	// Exactly one of docs and builder says where objects go: docs (an
	// incremental build) collects the changes of the index snapshot the
	// build commits, builder (a full build) indexes them directly.
	docs    *docChanges
	builder *index.Builder
	nextDoc uint32 // the next document of a full build

	tx       *bolt.Tx
	b        *genBuckets
	rowsInTx int
	paths    map[uint64]string
	ids      map[string]uint64
	count    int64
}

// docChanges collects, for an incremental build, the new state of every
// document it changes, and marks them dirty in the store: the index file
// of the generation no longer has them right.
type docChanges struct {
	alloc   *index.Allocator
	version uint64 // the version the build commits
	changes map[uint32]index.Change
}

func newDocChanges(base *index.Snapshot) *docChanges {
	return &docChanges{alloc: base.NewAllocator(), version: base.Version() + 1, changes: map[uint32]index.Change{}}
}

// list returns the changes for index.Snapshot.Apply.
func (dc *docChanges) list() []index.Change {
	out := make([]index.Change, 0, len(dc.changes))
	for _, c := range dc.changes {
		out = append(out, c)
	}
	return out
}

func newGenWriter(db *bolt.DB, name string, gen int, create bool) (*genWriter, error) {
	w := &genWriter{db: db, name: name, gen: gen, paths: map[uint64]string{}, ids: map[string]uint64{}}
	if err := w.begin(create); err != nil {
		return nil, err
	}
	return w, nil
}

func (w *genWriter) begin(create bool) error {
	tx, err := w.db.Begin(true)
	if err != nil {
		return err
	}
	b, err := openGen(tx, w.name, w.gen, create)
	if err != nil {
		_ = tx.Rollback()
		return err
	}
	w.tx, w.b, w.rowsInTx = tx, b, 0
	w.count = b.count()
	return nil
}

// rollback abandons the open transaction.
func (w *genWriter) rollback() {
	if w.tx != nil {
		_ = w.tx.Rollback()
		w.tx = nil
	}
}

// flush writes the counters and build state into the open transaction.
func (w *genWriter) flush() error {
	if err := w.b.meta.Put(keyCount, binary.AppendVarint(nil, w.count)); err != nil {
		return err
	}
	if w.docs != nil {
		if err := w.b.meta.Put(keyVersion, binary.AppendUvarint(nil, w.docs.version)); err != nil {
			return err
		}
	}
	if w.state != nil {
		tb, err := typeBucket(w.tx, w.name, false)
		if err != nil {
			return err
		}
		return putJSON(tb, keyBuild, w.state)
	}
	return nil
}

// commit commits the open transaction; fn, if set, runs inside it first.
func (w *genWriter) commit(fn func(tx *bolt.Tx, b *genBuckets) error) error {
	if err := w.flush(); err != nil {
		w.rollback()
		return err
	}
	if fn != nil {
		if err := fn(w.tx, w.b); err != nil {
			w.rollback()
			return err
		}
	}
	err := w.tx.Commit()
	w.tx = nil
	return err
}

func (w *genWriter) chunk(c *changelog.Change) error {
	if w.chunkRows <= 0 || w.rowsInTx < w.chunkRows {
		return nil
	}
	if w.state != nil {
		w.state.PartialFile, w.state.PartialRows = c.File, c.Row+1
	}
	if err := w.commit(nil); err != nil {
		return err
	}
	return w.begin(false)
}

func (w *genWriter) path(id uint64) (string, error) {
	if p, ok := w.paths[id]; ok {
		return p, nil
	}
	v := w.b.fileIDs.Get(fileIDKey(id))
	if v == nil {
		return "", fmt.Errorf("object type %s: store references unknown data file id %d", w.name, id)
	}
	p := string(v)
	w.paths[id], w.ids[p] = p, id
	return p, nil
}

// fileID returns the id of a data file, allocating one for a new file.
func (w *genWriter) fileID(path string, alloc bool) (uint64, bool, error) {
	if id, ok := w.ids[path]; ok {
		return id, true, nil
	}
	if v := w.b.files.Get([]byte(path)); v != nil {
		r, err := decodeFileRecord(v)
		if err != nil {
			return 0, false, err
		}
		w.ids[path], w.paths[r.ID] = r.ID, path
		return r.ID, true, nil
	}
	if !alloc {
		return 0, false, nil
	}
	next, _ := binary.Uvarint(w.b.meta.Get(keyNextFileID))
	next++
	if err := w.b.meta.Put(keyNextFileID, binary.AppendUvarint(nil, next)); err != nil {
		return 0, false, err
	}
	if err := w.b.fileIDs.Put(fileIDKey(next), []byte(path)); err != nil {
		return 0, false, err
	}
	w.ids[path], w.paths[next] = next, path
	return next, true, nil
}

// Lookup implements changelog.Baseline.
func (w *genWriter) Lookup(key []byte) (string, uint64, bool, error) {
	v := w.b.objects.Get(key)
	if v == nil {
		return "", 0, false, nil
	}
	r, err := w.b.record(v)
	if err != nil {
		return "", 0, false, fmt.Errorf("object type %s: stored object: %w", w.name, err)
	}
	p, err := w.path(r.fileID)
	return p, r.hash, true, err
}

// FileKeys implements changelog.Baseline.
func (w *genWriter) FileKeys(path string, fn func(key []byte) error) error {
	id, ok, err := w.fileID(path, false)
	if err != nil || !ok {
		return err
	}
	prefix := fileIDKey(id)
	c := w.b.fileKeys.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		if err := fn(bytes.Clone(k[len(prefix):])); err != nil {
			return err
		}
	}
	return nil
}

// Apply implements changelog.Sink.
func (w *genWriter) Apply(c *changelog.Change) error {
	switch c.Type {
	case changelog.Delete:
		prev, ok, err := w.stored(c.Key)
		if err != nil || !ok {
			return err
		}
		if err := w.b.objects.Delete(c.Key); err != nil {
			return err
		}
		w.count--
		return w.changed(prev.doc, nil, nil)
	case changelog.Insert, changelog.UpdateAfter, changelog.CarryOver:
	default:
		return fmt.Errorf("unexpected change type %s", c.Type)
	}
	id, _, err := w.fileID(c.File, true)
	if err != nil {
		return err
	}
	r := record{fileID: id, hash: c.Hash, encoded: c.Encoded}
	prev, ok, err := w.stored(c.Key)
	switch {
	case err != nil:
		return err
	case ok:
		r.doc = prev.doc
		if c.Type == changelog.CarryOver {
			r.encoded = bytes.Clone(prev.encoded)
		}
	case c.Type == changelog.CarryOver:
		return fmt.Errorf("object type %s: carry-over of a key the store does not hold", w.name)
	default:
		r.doc = w.newDoc()
	}
	if err := w.b.objects.Put(c.Key, r.append(nil)); err != nil {
		return err
	}
	if err := w.b.fileKeys.Put(append(fileIDKey(id), c.Key...), nil); err != nil {
		return err
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

// stored reads the record of a key.
func (w *genWriter) stored(key []byte) (record, bool, error) {
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

func (w *genWriter) newDoc() uint32 {
	if w.docs != nil {
		return w.docs.alloc.Next()
	}
	w.nextDoc++
	return w.nextDoc - 1
}

// changed hands the new state of a document (nil: no object any more) to
// the index.
func (w *genWriter) changed(doc uint32, key []byte, o *objects.Object) error {
	switch {
	case w.builder != nil:
		if o == nil {
			return fmt.Errorf("object type %s: a full build deletes document %d", w.name, doc)
		}
		return w.builder.Add(doc, key, o)
	case w.docs == nil:
		return nil
	}
	ch := index.Change{Doc: doc}
	if o != nil {
		// The diff reuses its object and key buffers.
		ch.Key, ch.Object = bytes.Clone(key), &objects.Object{Values: slices.Clone(o.Values)}
	}
	w.docs.changes[doc] = ch
	v := binary.AppendUvarint(nil, w.docs.version)
	return w.b.dirty.Put(docKey(doc), append(v, key...))
}

// FileDone implements changelog.Sink: the file is now part of the baseline.
func (w *genWriter) FileDone(f changelog.DataFile) error {
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
func (w *genWriter) FileRemoved(path string) error {
	id, ok, err := w.fileID(path, false)
	if err != nil || !ok {
		return err
	}
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
	delete(w.ids, path)
	delete(w.paths, id)
	return w.b.files.Delete([]byte(path))
}

// knownManifest returns the live files of a manifest this generation holds.
func (w *genWriter) knownManifest(path string) ([]changelog.DataFile, bool, error) {
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

// baselineFiles iterates the data file paths this generation holds.
func (w *genWriter) baselineFiles(yield func(string) bool) {
	c := w.b.files.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		if !yield(string(k)) {
			return
		}
	}
}

// setManifests records the data manifests of the new checkpoint.
func (w *genWriter) setManifests(ms []changelog.Manifest) error {
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
