package store

import (
	"encoding/binary"
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/objects"
	bolt "go.etcd.io/bbolt"
)

// Docs is the search index side of a Writer: it numbers new documents and
// receives the new state of every document the writer changes. The store
// assigns the documents of its objects, so the index can always be
// rebuilt from it.
type Docs interface {
	// New returns the document of a new object.
	New() uint32
	// Changed receives the new state of a document: its key and object,
	// or nil ones when it holds no object any more. key and o are the
	// diff's buffers, valid only during the call.
	Changed(doc uint32, key []byte, o *objects.Object) error
}

// PreviousDocs is a Docs that also takes the state each document had
// before an incremental writer changes or deletes it: Previous is called
// before Changed, with the stored encoding of its object
// (objects.DecodeObject), valid only during the call. A document the
// writer numbered (New) has no previous state until it is changed again.
type PreviousDocs interface {
	Docs
	Previous(doc uint32, encoded []byte)
}

// Writer applies a diff to one generation. It is the changelog.Baseline
// and changelog.Sink of a build. A full build (Full) commits every chunk of
// rows into a fresh generation; otherwise everything is one transaction
// that the caller commits (incremental builds).
type Writer struct {
	db        *bolt.DB
	name      string
	gen       int
	chunkRows int
	// state, when set, is the full build record saved with each commit.
	state *BuildState
	// docs, when set, receives the changed documents; full says they go to
	// a full build, which never deletes one.
	docs Docs
	full bool
	// version, when set, is the version of the objects commits write; with
	// mark, each changed document is marked dirty at it.
	version uint64
	mark    bool
	// finish: the next commit ends a full build and drops its record.
	finish bool
	// appendOnly: the writer keeps the append-only baseline (AppendOnly).
	appendOnly bool

	tx       *bolt.Tx
	b        *Gen
	rowsInTx int
	paths    map[uint64]string
	ids      map[string]uint64
	count    int64
	// looked is what the last Lookup found, until Apply takes it.
	looked lookedUp
	// keys covers the keys of the objects (keyRanges): Lookup searches
	// the objects only for a key it covers.
	keys    keyRanges
	runFile uint64 // the data file of the keys' run
	// removing, carried and aliasTo are the aliases of the diff in
	// progress (writer_alias.go): the files it removes, the documents of
	// the rows carried over without a write, and the file each removed
	// file's id will name.
	removing map[string]bool
	carried  *roaring.Bitmap
	aliasTo  map[uint64]uint64
	// leftFrom counts, per removed file, its rows that added files hold.
	leftFrom map[uint64]int64
	// lastCarry memoizes carry's answers for the last row.
	lastCarry carryMemo
	// cursor reads the objects Lookup looks up (writer_cursor.go).
	cursor objectsCursor
	// beforeCommit, when set, runs before every commit (BeforeCommit).
	beforeCommit func() error
	// next, when set, is the counter the documents are numbered from,
	// stored with every commit of a version (Numbered).
	next func() uint64
}

// OpenWriter opens a writer on a generation of an object type (creating it
// with create) and begins its first transaction.
func OpenWriter(db *DB, name string, gen int, create bool) (*Writer, error) {
	w := &Writer{db: db.db, name: name, gen: gen, paths: map[uint64]string{}, ids: map[string]uint64{}}
	if err := w.begin(create); err != nil {
		return nil, err
	}
	c := w.b.objects.Cursor()
	first, _ := c.First()
	last, _ := c.Last()
	w.keys.cover(first, last)
	return w, nil
}

// Incremental makes the writer hand the documents it changes to docs and
// mark them dirty at version, the version its commit writes: the index
// file of the generation no longer has them right.
func (w *Writer) Incremental(docs Docs, version uint64) {
	w.docs, w.version, w.mark = docs, version, true
}

// Unmarked makes an Incremental writer mark no document dirty: for a
// generation that has no index file to catch up (a type that keeps no
// embedded index), the marks would only grow.
func (w *Writer) Unmarked() { w.mark = false }

// Full makes the writer hand every object it writes to docs, and commit
// every rows rows with state, updated, as the build record.
func (w *Writer) Full(docs Docs, rows int, state *BuildState) {
	w.docs, w.full, w.chunkRows, w.state = docs, true, rows, state
	w.fill()
	if state != nil && state.PartialFile != "" {
		w.adoptPartial(state.PartialFile)
	}
}

// fullBuildFill is how full a full build's writes leave the pages of
// objects and file keys when bbolt splits them: a full build inserts its
// keys in runs of ascending keys (file keys always, objects when the table
// was written in key order), and bbolt's default (half) would leave every
// page half empty, twice the pages to write at each commit and to hold
// in the page cache. Incremental builds keep the default, which leaves
// room for the keys they insert between.
const fullBuildFill = 0.9

// fill sets the fill of the buckets a full build inserts into, for the
// open transaction (bbolt keeps it per transaction).
func (w *Writer) fill() {
	if w.full && w.b != nil {
		w.b.objects.FillPercent, w.b.fileKeys.FillPercent = fullBuildFill, fullBuildFill
	}
}

// adoptPartial gives the partial file of a resumed build the id its
// interrupted part gave it: the rows that part committed are recorded
// under that id, and they must leave with the file when it leaves the
// table. Only the baseline's files map paths to ids; the partial file is
// not in the baseline until it is done, so its id is found in fileids.
func (w *Writer) adoptPartial(path string) {
	if _, ok := w.ids[path]; ok || w.b.files.Get([]byte(path)) != nil {
		return
	}
	c := w.b.fileIDs.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if string(v) == path && len(k) == 8 {
			id := binary.BigEndian.Uint64(k)
			w.ids[path], w.paths[id] = id, path
			return
		}
	}
}

// AppendOnly makes the writer keep the cheaper baseline of an append-only
// read (changelog.Input.AppendOnly): no file keys, and records whose file
// may have left the baseline since (a compaction's inputs leave it, its
// outputs join it unread, and the records keep the old file id). That
// baseline knows which files are indexed and which keys exist, not which
// key lives in which file or with which row hash, so it must never be
// diffed by a changelog read: the checkpoint records the read mode, and a
// switch to changelog builds in full.
func (w *Writer) AppendOnly() { w.appendOnly = true }

// Finish readies the last commit of a full build: it writes version, the
// first version of the generation's objects, and drops the build record.
func (w *Writer) Finish(version uint64) {
	w.docs, w.full, w.state = nil, false, nil
	w.version, w.finish = version, true
}

// BeforeCommit makes every commit run fn first, and roll back instead
// when it fails: a full build's search backend acknowledges the objects a
// chunk holds before the chunk commits, since a resumed build skips the
// rows of the committed chunks.
func (w *Writer) BeforeCommit(fn func() error) { w.beforeCommit = fn }

// Gen is the generation in the open transaction.
func (w *Writer) Gen() *Gen { return w.b }

// Count is the number of objects of the generation, as written so far.
func (w *Writer) Count() int64 { return w.count }

// Begin begins a new transaction after a commit.
func (w *Writer) Begin() error { return w.begin(false) }

func (w *Writer) begin(create bool) error {
	tx, err := w.db.Begin(true)
	if err != nil {
		return err
	}
	b, err := openGen(tx, w.name, w.gen, create)
	if err != nil {
		_ = tx.Rollback()
		return err
	}
	w.tx, w.b, w.rowsInTx, w.looked.ok = tx, b, 0, false
	w.carried, w.aliasTo, w.leftFrom, w.lastCarry, w.cursor = nil, nil, nil, carryMemo{}, objectsCursor{}
	w.count = b.Count()
	w.fill()
	return nil
}

// Rollback abandons the open transaction, if any.
func (w *Writer) Rollback() {
	if w.tx != nil {
		_ = w.tx.Rollback()
		w.tx = nil
	}
}

// flush writes the counters and build state into the open transaction.
func (w *Writer) flush() error {
	if err := w.b.meta.Put(keyCount, binary.AppendVarint(nil, w.count)); err != nil {
		return err
	}
	if w.version != 0 {
		if err := w.b.meta.Put(keyVersion, binary.AppendUvarint(nil, w.version)); err != nil {
			return err
		}
	}
	if err := w.putNextDoc(); err != nil {
		return err
	}
	if w.state == nil && !w.finish {
		return nil
	}
	tb, err := typeBucket(w.tx, w.name, false)
	if err != nil {
		return err
	}
	if w.finish {
		return tb.Delete(keyBuild)
	}
	return putJSON(tb, keyBuild, w.state)
}

// Commit commits the open transaction: BeforeCommit's function first, then
// fn, if set, inside it.
func (w *Writer) Commit(fn func() error) error {
	if w.beforeCommit != nil {
		if err := w.beforeCommit(); err != nil {
			w.Rollback()
			return err
		}
	}
	if err := w.flush(); err != nil {
		w.Rollback()
		return err
	}
	if fn != nil {
		if err := fn(); err != nil {
			w.Rollback()
			return err
		}
	}
	err := w.tx.Commit()
	w.tx = nil
	return err
}

// PutCheckpoint stores the checkpoint of the object type (as JSON) in the
// open transaction: for Commit's fn.
func (w *Writer) PutCheckpoint(cp any) error {
	tb, err := typeBucket(w.tx, w.name, false)
	if err != nil {
		return err
	}
	return putJSON(tb, keyCheckpoint, cp)
}

// chunk commits a full build's chunk once it holds enough rows.
func (w *Writer) chunk(c *changelog.Change) error {
	if w.chunkRows <= 0 || w.rowsInTx < w.chunkRows {
		return nil
	}
	if w.state != nil {
		w.state.PartialFile, w.state.PartialRows = c.File, c.Row+1
	}
	if err := w.Commit(nil); err != nil {
		return fmt.Errorf("object type %s: generation %d: commit a chunk: %w", w.name, w.gen, err)
	}
	return w.begin(false)
}

func (w *Writer) path(id uint64) (string, error) {
	if p, ok := w.paths[id]; ok {
		return p, nil
	}
	v := w.b.fileIDs.Get(fileIDKey(id))
	if v == nil {
		return "", fmt.Errorf("object type %s: store references unknown data file id %d", w.name, id)
	}
	// Not cached in ids: an alias id names a file whose own id is another.
	p := string(v)
	w.paths[id] = p
	return p, nil
}

// fileID returns the id of a data file, allocating one for a new file.
func (w *Writer) fileID(path string, alloc bool) (uint64, bool, error) {
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
