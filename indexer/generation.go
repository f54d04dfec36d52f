package indexer

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/ontoindex/ontoindex/indexer/index"
)

// generation is one opened generation of an object type: the index
// snapshots that mirror its store, shared by readers that hold a
// reference.
//
// A build stages the snapshot of the version it commits before the commit,
// and promotes it after. A reader that needs the store opens a store
// transaction, reads the version there, and takes the snapshot of that
// version, so the objects it fetches always belong to the snapshot it
// searched, whether it started before, during or after a commit; a reader
// whose snapshot holds every value takes the promoted one (View).
type generation struct {
	ix   *Indexer
	name string
	n    int

	snapMu sync.RWMutex
	cur    *index.Snapshot // the newest committed snapshot
	prev   *index.Snapshot // the one before it, for readers still at its version
	staged *index.Snapshot // the next one, while its commit runs
	// dirty counts the documents changed since the snapshot the index
	// file holds (since the generation's start when noFile).
	dirty  int
	noFile bool // the generation has no index file yet
	// lean, for a type that keeps no embedded index (lean.go), numbers
	// the new documents; cur, prev and staged stay nil then.
	lean *docCounter

	mu      sync.Mutex
	refs    int
	retired bool
	closed  bool
}

func (ix *Indexer) genDir(name string, n int) string {
	return filepath.Join(ix.dir, "types", name, fmt.Sprintf("gen-%d", n))
}

// snapshot returns the committed snapshot.
func (g *generation) snapshot() *index.Snapshot {
	g.snapMu.RLock()
	defer g.snapMu.RUnlock()
	return g.cur
}

// at returns the snapshot of a store version, nil when none is held.
func (g *generation) at(version uint64) *index.Snapshot {
	g.snapMu.RLock()
	defer g.snapMu.RUnlock()
	for _, s := range []*index.Snapshot{g.cur, g.staged, g.prev} {
		if s != nil && s.Version() == version {
			return s
		}
	}
	return nil
}

// stage holds the snapshot a commit is about to make current.
func (g *generation) stage(s *index.Snapshot) {
	g.snapMu.Lock()
	g.staged = s
	g.snapMu.Unlock()
}

// promote makes the staged snapshot current once its commit landed (ok),
// or drops it.
func (g *generation) promote(ok bool, changed int) {
	g.snapMu.Lock()
	defer g.snapMu.Unlock()
	if ok && g.staged != nil {
		g.prev, g.cur = g.cur, g.staged
		g.dirty += changed
	}
	g.staged = nil
}

func (g *generation) acquire() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.refs++
	return true
}

func (g *generation) release() {
	g.mu.Lock()
	g.refs--
	done := g.retired && g.refs == 0 && !g.closed
	if done {
		g.closed = true
	}
	g.mu.Unlock()
	if done {
		g.ix.removeGeneration(g)
	}
}

// retire removes the generation once the last reader released it.
func (g *generation) retire() {
	g.mu.Lock()
	g.retired = true
	done := g.refs == 0 && !g.closed
	if done {
		g.closed = true
	}
	g.mu.Unlock()
	if done {
		g.ix.removeGeneration(g)
	}
}

// close closes the generation, saving its index file when the store has
// moved on since the last one, so that the next start loads it quickly.
func (g *generation) close() error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil
	}
	g.closed = true
	g.mu.Unlock()
	g.snapMu.RLock()
	s, dirty, save := g.cur, g.dirty, g.noFile || g.dirty != 0
	g.snapMu.RUnlock()
	if s != nil && save {
		return g.ix.saveIndex(g, s, dirty)
	}
	return nil
}

func (ix *Indexer) removeGeneration(g *generation) {
	if err := ix.dropGenerations(g.name, func(n int) bool { return n == g.n }); err != nil {
		ix.log.Warn("remove old generation", "objectType", g.name, "generation", g.n, "error", err)
	}
}

// indexFile is the path of a generation's index file.
func (ix *Indexer) indexFile(name string, n int) string {
	return filepath.Join(ix.genDir(name, n), "index.snap")
}

// writeFile writes a file atomically: a temporary file, synced, renamed.
func writeFile(path string, write func(f *os.File) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}
