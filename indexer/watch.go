package indexer

import (
	"sync"
	"time"

	"github.com/ontoindex/ontoindex/indexer/index"
)

// CommitKind says what a Commit changed.
type CommitKind uint8

// Commit kinds.
const (
	// CommitIncremental: Changes moved the serving index from Before to
	// After, within one generation.
	CommitIncremental CommitKind = iota + 1
	// CommitReplaced: the type serves a state unrelated to the one before
	// (a full build swapped in a new generation, or a config reload
	// changed its mapping); watchers must start over from a fresh read.
	CommitReplaced
	// CommitRemoved: a config reload removed the type; it serves no more.
	CommitRemoved
)

// Commit is one change of what an object type serves, as watchers see it
// (Watch): one per committed build, never part of one.
type Commit struct {
	ObjectType string
	Kind       CommitKind
	Generation int
	// Before and After are the index snapshots the build started from and
	// committed (CommitIncremental only). They are immutable and stay valid
	// for as long as they are held. For a type that keeps no embedded
	// index they hold the changed objects alone (lean_commit.go).
	Before, After *index.Snapshot
	// Changes are the documents the build changed: a document of After
	// with its key and new object, or (Object nil) a document of Before
	// that no longer exists (CommitIncremental only).
	Changes []index.Change
	// At is when the commit was served: readers see it from then on.
	At time.Time
}

// watchers are the functions Watch registered, called in registration
// order after each commit.
type watchers struct {
	mu   sync.Mutex
	next int
	fns  map[int]func(Commit)
}

// Watch calls fn after every commit of every object type, on the goroutine
// of the build that committed, once readers see the commit. fn must not
// block: it should hand the commit to a goroutine of its own. stop
// unregisters fn; after it returns, fn is not called again.
func (ix *Indexer) Watch(fn func(Commit)) (stop func()) {
	w := &ix.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fns == nil {
		w.fns = map[int]func(Commit){}
	}
	id := w.next
	w.next++
	w.fns[id] = fn
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		delete(w.fns, id)
	}
}

// watched reports whether anything watches the commits.
func (ix *Indexer) watched() bool {
	w := &ix.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.fns) > 0
}

// publish hands a commit to every watcher. It holds the watchers' lock
// while it calls them, so that stop waits for a call in progress.
func (ix *Indexer) publish(c Commit) {
	w := &ix.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.fns) == 0 {
		return
	}
	c.At = time.Now()
	for _, fn := range w.fns {
		fn(c)
	}
}
