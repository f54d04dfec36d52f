package indexer

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/objects"
	bolt "go.etcd.io/bbolt"
)

// Layout of state.db:
//
//	types/<ObjectType>/checkpoint      JSON Checkpoint: what the index reflects
//	types/<ObjectType>/build           JSON buildState: a full build in progress
//	types/<ObjectType>/gen-<n>/        one generation:
//	    objects    key -> uvarint file id | 8-byte row hash | object encoding
//	    files      data file path -> uvarint id | uvarint size | uvarint records
//	    fileids    8-byte id -> data file path
//	    filekeys   8-byte file id | key -> (empty)
//	    manifests  manifest path -> uvarint file ids of its live data files
//	    pending    key -> (empty): changed keys the search index may lack
//	    meta       nextFileID, count
//
// Keys are the order-preserving primary-key encodings of package objects.
var (
	bucketTypes   = []byte("types")
	keyCheckpoint = []byte("checkpoint")
	keyBuild      = []byte("build")

	bucketObjects   = []byte("objects")
	bucketFiles     = []byte("files")
	bucketFileIDs   = []byte("fileids")
	bucketFileKeys  = []byte("filekeys")
	bucketManifests = []byte("manifests")
	bucketPending   = []byte("pending")
	bucketMeta      = []byte("meta")

	keyNextFileID = []byte("nextFileID")
	keyCount      = []byte("count")
)

// Checkpoint is the state an object type's index reflects.
type Checkpoint struct {
	SnapshotID      int64         `json:"snapshotId"`
	SchemaID        int           `json:"schemaId"`
	MappingHash     string        `json:"mappingHash"`
	SemanticVersion int           `json:"semanticVersion"`
	Generation      int           `json:"generation"`
	Type            *objects.Type `json:"type"`
	Objects         int64         `json:"objects"`
	BuiltAt         time.Time     `json:"builtAt"`
	InvalidRows     InvalidRows   `json:"invalidRows"`
	LastBuild       *BuildResult  `json:"lastBuild,omitempty"`
}

// InvalidRows counts the rows skipped under onInvalidRow: skip.
type InvalidRows struct {
	Count   int64                  `json:"count"`
	Samples []changelog.InvalidRow `json:"samples"`
}

// buildState records a full build in progress, so that a restart resumes it.
type buildState struct {
	Generation  int           `json:"generation"`
	Target      int64         `json:"target"`
	MappingHash string        `json:"mappingHash"`
	Type        *objects.Type `json:"type"`
	StartedAt   time.Time     `json:"startedAt"`
	// PartialFile and PartialRows: rows of a data file already committed.
	PartialFile string `json:"partialFile,omitempty"`
	PartialRows int64  `json:"partialRows,omitempty"`
	// Stats accumulated by the interrupted runs.
	Skipped int64                  `json:"skipped,omitempty"`
	Samples []changelog.InvalidRow `json:"samples,omitempty"`
}

func genName(n int) []byte { return fmt.Appendf(nil, "gen-%08d", n) }

func typeBucket(tx *bolt.Tx, name string, create bool) (*bolt.Bucket, error) {
	if create {
		root, err := tx.CreateBucketIfNotExists(bucketTypes)
		if err != nil {
			return nil, err
		}
		return root.CreateBucketIfNotExists([]byte(name))
	}
	root := tx.Bucket(bucketTypes)
	if root == nil {
		return nil, nil
	}
	return root.Bucket([]byte(name)), nil
}

func readJSON[T any](b *bolt.Bucket, key []byte) (*T, error) {
	if b == nil {
		return nil, nil
	}
	raw := b.Get(key)
	if raw == nil {
		return nil, nil
	}
	v := new(T)
	if err := json.Unmarshal(raw, v); err != nil {
		return nil, fmt.Errorf("decode %s: %w", key, err)
	}
	return v, nil
}

func putJSON(b *bolt.Bucket, key []byte, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(key, raw)
}

// loadCheckpoint reads the checkpoint and any build in progress of a type.
func loadCheckpoint(db *bolt.DB, name string) (cp *Checkpoint, bs *buildState, err error) {
	err = db.View(func(tx *bolt.Tx) error {
		tb, err := typeBucket(tx, name, false)
		if err != nil || tb == nil {
			return err
		}
		if cp, err = readJSON[Checkpoint](tb, keyCheckpoint); err != nil {
			return err
		}
		bs, err = readJSON[buildState](tb, keyBuild)
		return err
	})
	if cp != nil && cp.Type != nil {
		cp.Type = reindexType(cp.Type)
	}
	return cp, bs, err
}

// reindexType returns a copy whose lookup index is rebuilt after decoding.
func reindexType(t *objects.Type) *objects.Type {
	c := *t
	c.Properties = append([]objects.Property(nil), t.Properties...)
	_ = c.PropertyIndex("") // builds the name index
	return &c
}

// generations lists the generation numbers stored for a type.
func generations(tx *bolt.Tx, name string) ([]int, error) {
	tb, err := typeBucket(tx, name, false)
	if err != nil || tb == nil {
		return nil, err
	}
	var out []int
	err = tb.ForEachBucket(func(k []byte) error {
		var n int
		if _, err := fmt.Sscanf(string(k), "gen-%d", &n); err == nil {
			out = append(out, n)
		}
		return nil
	})
	return out, err
}

// genBuckets are the buckets of one generation inside one transaction.
type genBuckets struct {
	root, objects, files, fileIDs, fileKeys, manifests, pending, meta *bolt.Bucket
}

func openGen(tx *bolt.Tx, name string, gen int, create bool) (*genBuckets, error) {
	tb, err := typeBucket(tx, name, create)
	if err != nil {
		return nil, err
	}
	if tb == nil {
		return nil, fmt.Errorf("object type %s has no stored state", name)
	}
	var g genBuckets
	if create {
		if g.root, err = tb.CreateBucketIfNotExists(genName(gen)); err != nil {
			return nil, err
		}
		for _, x := range []struct {
			b    **bolt.Bucket
			name []byte
		}{{&g.objects, bucketObjects}, {&g.files, bucketFiles}, {&g.fileIDs, bucketFileIDs}, {&g.fileKeys, bucketFileKeys},
			{&g.manifests, bucketManifests}, {&g.pending, bucketPending}, {&g.meta, bucketMeta}} {
			if *x.b, err = g.root.CreateBucketIfNotExists(x.name); err != nil {
				return nil, err
			}
		}
		return &g, nil
	}
	if g.root = tb.Bucket(genName(gen)); g.root == nil {
		return nil, fmt.Errorf("object type %s: generation %d is missing from the store", name, gen)
	}
	g.objects, g.files, g.fileIDs, g.fileKeys = g.root.Bucket(bucketObjects), g.root.Bucket(bucketFiles), g.root.Bucket(bucketFileIDs), g.root.Bucket(bucketFileKeys)
	g.manifests, g.pending, g.meta = g.root.Bucket(bucketManifests), g.root.Bucket(bucketPending), g.root.Bucket(bucketMeta)
	if g.objects == nil || g.files == nil || g.fileIDs == nil || g.fileKeys == nil || g.manifests == nil || g.pending == nil || g.meta == nil {
		return nil, fmt.Errorf("object type %s: generation %d is incomplete in the store", name, gen)
	}
	return &g, nil
}

func (g *genBuckets) count() int64 {
	v, _ := binary.Varint(g.meta.Get(keyCount))
	return v
}

// objectRecord splits a stored object value.
func objectRecord(v []byte) (fileID uint64, hash uint64, encoded []byte, err error) {
	id, n := binary.Uvarint(v)
	if n <= 0 || len(v) < n+8 {
		return 0, 0, nil, objects.ErrCorrupt
	}
	return id, binary.BigEndian.Uint64(v[n:]), v[n+8:], nil
}

func appendObjectRecord(b []byte, fileID, hash uint64, encoded []byte) []byte {
	b = binary.AppendUvarint(b, fileID)
	b = binary.BigEndian.AppendUint64(b, hash)
	return append(b, encoded...)
}

func fileIDKey(id uint64) []byte { return binary.BigEndian.AppendUint64(nil, id) }

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
	// docs, when set, receives the search documents of a full build
	// directly instead of the pending keys.
	docs *docFeeder

	tx       *bolt.Tx
	b        *genBuckets
	rowsInTx int
	paths    map[uint64]string
	ids      map[string]uint64
	count    int64
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
	id, hash, _, err := objectRecord(v)
	if err != nil {
		return "", 0, false, fmt.Errorf("object type %s: stored object: %w", w.name, err)
	}
	p, err := w.path(id)
	return p, hash, true, err
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
		if err := w.b.objects.Delete(c.Key); err != nil {
			return err
		}
		w.count--
		return w.b.pending.Put(c.Key, nil)
	case changelog.Insert, changelog.UpdateAfter, changelog.CarryOver:
	default:
		return fmt.Errorf("unexpected change type %s", c.Type)
	}
	id, _, err := w.fileID(c.File, true)
	if err != nil {
		return err
	}
	encoded := c.Encoded
	if c.Type == changelog.CarryOver {
		_, _, encoded, err = objectRecord(w.b.objects.Get(c.Key))
		if err != nil {
			return err
		}
		encoded = bytes.Clone(encoded)
	}
	if err := w.b.objects.Put(c.Key, appendObjectRecord(nil, id, c.Hash, encoded)); err != nil {
		return err
	}
	if err := w.b.fileKeys.Put(append(fileIDKey(id), c.Key...), nil); err != nil {
		return err
	}
	switch {
	case c.Type == changelog.CarryOver:
	case w.docs != nil:
		if err := w.docs.add(c.Key, c.Object); err != nil {
			return err
		}
	default:
		if err := w.b.pending.Put(c.Key, nil); err != nil {
			return err
		}
	}
	if c.Type == changelog.Insert {
		w.count++
	}
	w.rowsInTx++
	return w.chunk(c)
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
