package indexer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync/atomic"

	"github.com/ontoindex/ontoindex/indexer/index"
	"github.com/ontoindex/ontoindex/indexer/store"
	"github.com/ontoindex/ontoindex/objects"
)

// The index of a generation lives in memory; its file lets a restart load
// it instead of rebuilding it from the store. The file is written after a
// full build, after incremental builds once enough documents changed, and
// when the indexer closes. Documents changed since the file are listed in
// the generation's dirty bucket (with the version that changed them), in
// the same transaction as the change, so a start loads the file and
// re-reads only those documents from the store. A missing, damaged or
// outdated file is rebuilt from the store, which is the source of truth.

// saveEvery is how many changed documents make an incremental build write
// the index file, at least (a sixteenth of the objects for large types).
const saveEvery = 20_000

// openGeneration opens a generation and its index (none when the type
// keeps none: withIndex false).
func (ix *Indexer) openGeneration(ctx context.Context, name string, n int, t *objects.Type, withIndex bool) (*generation, error) {
	if !withIndex {
		return ix.openLeanGeneration(ctx, name, n)
	}
	g := &generation{ix: ix, name: name, n: n}
	s, dirty, err := ix.loadIndex(ctx, name, n, t)
	if err != nil {
		return nil, err
	}
	g.cur, g.dirty = s, dirty
	return g, nil
}

// loadIndex loads the index file of a generation and brings it to the
// store's version, or rebuilds the index from the store.
func (ix *Indexer) loadIndex(ctx context.Context, name string, n int, t *objects.Type) (*index.Snapshot, int, error) {
	// A write a crash interrupted leaves its temporary file.
	if tmps, _ := filepath.Glob(ix.indexFile(name, n) + ".tmp-*"); len(tmps) > 0 {
		for _, p := range tmps {
			_ = os.Remove(p)
		}
	}
	s, err := ix.readIndexFile(name, n, t)
	if err == nil {
		var dirty int
		if s, dirty, err = ix.catchUp(ctx, name, n, s); err == nil {
			return s, dirty, nil
		}
	}
	if !errors.Is(err, fs.ErrNotExist) {
		ix.log.Warn("rebuilding the index from the store", "objectType", name, "generation", n, "error", err)
	}
	s, layout, err := ix.rebuildIndex(ctx, name, n, t)
	if err != nil {
		return nil, 0, err
	}
	if layout < store.Layout {
		return s, 0, nil // served read-only until a full build replaces it
	}
	if err := ix.saveIndexFile(name, n, s); err != nil {
		ix.log.Warn("save index file", "objectType", name, "generation", n, "error", err)
		return s, 1, nil
	}
	return s, 0, nil
}

func (ix *Indexer) readIndexFile(name string, n int, t *objects.Type) (*index.Snapshot, error) {
	f, err := os.Open(ix.indexFile(name, n))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := index.Read(f, t)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", f.Name(), err)
	}
	return s, nil
}

// catchUp applies the documents changed since the file was written.
func (ix *Indexer) catchUp(ctx context.Context, name string, n int, s *index.Snapshot) (*index.Snapshot, int, error) {
	var changes []index.Change
	var version uint64
	dirty := 0
	err := ix.db.ViewGen(name, n, func(g *store.Gen) error {
		if version = g.Version(); version < s.Version() || !g.HasDirty() {
			return fmt.Errorf("index file is at version %d, the store at %d", s.Version(), version)
		}
		var err error
		dirty, err = g.Dirty(ctx, s.Version(), func(doc uint32, key []byte, o *objects.Object) error {
			// The key lives in the transaction.
			changes = append(changes, index.Change{Doc: doc, Key: bytes.Clone(key), Object: o})
			return nil
		})
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	if len(changes) == 0 && version == s.Version() {
		return s, dirty, nil
	}
	next, err := s.Apply(changes, version)
	return next, dirty, err
}

// rebuildIndex builds the index of a generation from its store.
func (ix *Indexer) rebuildIndex(ctx context.Context, name string, n int, t *objects.Type) (*index.Snapshot, uint64, error) {
	b := index.NewBuilder(t)
	var version, layout uint64
	err := ix.db.ViewGen(name, n, func(g *store.Gen) error {
		version, layout = g.Version(), g.Layout()
		_, err := fillBuilder(ctx, g, b)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("object type %s: rebuild index of generation %d: %w", name, n, err)
	}
	return b.Finish(version), layout, nil
}

// fillBuilder adds every stored object of a generation to b and returns
// the first document number no object holds (store.Gen.EachDoc).
func fillBuilder(ctx context.Context, g *store.Gen, b *index.Builder) (uint32, error) {
	return g.EachDoc(ctx, b.Add)
}

// saveIndexFile writes the index file of a snapshot and forgets the dirty
// documents it covers.
func (ix *Indexer) saveIndexFile(name string, n int, s *index.Snapshot) error {
	err := writeFile(ix.indexFile(name, n), func(f *os.File) error {
		_, err := s.WriteTo(f)
		return err
	})
	if err != nil {
		return fmt.Errorf("write index file: %w", err)
	}
	return ix.db.ClearDirty(name, n, s.Version())
}

// saveIndex writes the index file of a generation's snapshot s, which was
// current when the generation counted dirty documents: those changed after
// it (commits while the file was written) stay dirty.
func (ix *Indexer) saveIndex(g *generation, s *index.Snapshot, dirty int) error {
	if err := ix.saveIndexFile(g.name, g.n, s); err != nil {
		return fmt.Errorf("object type %s: generation %d: %w", g.name, g.n, err)
	}
	g.saved(dirty)
	return nil
}

// saved records that the index file holds the snapshot that was current
// when dirty documents were counted. Commits during the write stay
// counted: had the generation stayed "no file yet" because of them, a
// type committed to more often than its file takes to write (30 s at ten
// million objects) would have its file written again and again, a core's
// worth.
func (g *generation) saved(dirty int) {
	g.snapMu.Lock()
	g.dirty -= dirty
	g.noFile = false
	g.snapMu.Unlock()
}

// needsSave reports whether a generation's file is missing or enough
// documents changed since it was written, and returns the snapshot to
// save with the count of dirty documents it covers.
func (g *generation) needsSave() (*index.Snapshot, int, bool) {
	g.snapMu.RLock()
	defer g.snapMu.RUnlock()
	if g.cur == nil || (!g.noFile && g.dirty == 0) {
		return nil, 0, false
	}
	return g.cur, g.dirty, g.noFile || g.dirty >= max(saveEvery, int(g.cur.Objects()/16))
}

// saver writes index files in the background, so that a build is served
// as soon as it commits. It is owned by the Indexer: started by Open,
// stopped (and waited for) by Close, which then saves what is left.
type saver struct {
	kick   chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
	// collect asks for the garbage to go back to the OS at the next
	// look, whether or not a file is saved: a full build of a type
	// without an index saves none (poke).
	collect atomic.Bool
}

func (sv *saver) start(ix *Indexer) {
	ctx, cancel := context.WithCancel(context.Background())
	sv.kick, sv.cancel, sv.done = make(chan struct{}, 1), cancel, make(chan struct{})
	go func() {
		defer close(sv.done)
		for {
			select {
			case <-ctx.Done():
				return
			case <-sv.kick:
			}
			saved := false
			for _, g := range ix.servedGenerations() {
				if ctx.Err() != nil {
					g.release()
					continue
				}
				if s, changed, ok := g.needsSave(); ok {
					if err := ix.saveIndex(g, s, changed); err != nil {
						// The store stays the truth; a start rebuilds what it must.
						ix.log.Warn("save index file", "objectType", g.name, "generation", g.n, "error", err)
					}
					saved = true
				}
				g.release()
			}
			if sv.collect.Swap(false) || saved {
				// A save follows a full build or many changes, which leave
				// garbage of the order of the index (rows read, sort
				// buffers, the file's writes) that the runtime would hand
				// back to the OS only slowly: collect it and return it now,
				// off the build's path, so that the process serves at about
				// the size of what it serves.
				debug.FreeOSMemory()
			}
		}
	}()
}

// collectAfter asks the saver to return the garbage of a full build to
// the OS, as it does after it saves the index file of one.
func (sv *saver) collectAfter() {
	sv.collect.Store(true)
	sv.poke()
}

// freeAfterLoad is how many objects the indexes Open loaded hold, at
// least, for it to return the garbage of loading them to the OS.
const freeAfterLoad = 100_000

// returnLoadGarbage collects what loading the indexes left and returns it
// to the OS. Reading an index file back (or rebuilding it from the store)
// allocates as it goes, so the heap ends between the live index and twice
// what was live at the last collection, and the runtime keeps what it
// freed: at ten million objects 2.3 GB resident for 1.7 GB live. One
// collection of an index that holds few pointers is cheap (about 0.1 s of
// CPU at that size); a small one is not worth a forced collection.
func (ix *Indexer) returnLoadGarbage() {
	var n int64
	for _, g := range ix.servedGenerations() {
		if s := g.snapshot(); s != nil {
			n += s.Objects()
		}
		g.release()
	}
	if n >= freeAfterLoad {
		debug.FreeOSMemory()
	}
}

// poke asks the saver to look for generations to save.
func (sv *saver) poke() {
	if sv.kick != nil {
		select {
		case sv.kick <- struct{}{}:
		default:
		}
	}
}

func (sv *saver) stop() {
	if sv.cancel != nil {
		sv.cancel()
		<-sv.done
		sv.cancel = nil
	}
}

// servedGenerations returns the serving generations, acquired: the caller
// releases each.
func (ix *Indexer) servedGenerations() []*generation {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	var out []*generation
	for _, ts := range ix.types {
		ts.mu.RLock()
		g := ts.gen
		ts.mu.RUnlock()
		if g != nil && g.acquire() {
			out = append(out, g)
		}
	}
	return out
}
