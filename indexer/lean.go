package indexer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/objects"
)

// A type whose backend keeps no embedded index (backends.<name>.
// embeddedIndex: none) is served by its backend and its store alone: its
// generation holds no index snapshot, so the indexer's memory does not
// grow with its objects. Its builds still diff against the store, which
// numbers the documents of its objects; with no index to know the free
// numbers, the generation numbers new documents above every number it
// gave (docCounter), a counter its builds store with their commits
// (store.Writer.Numbered), so that a start reads no record to find it.
// No index file is read or written, and its incremental builds mark
// nothing dirty. The reads only the embedded index answers are refused
// with a *NoIndexError (read_lean.go).

// keepsIndex reports whether an object type keeps the embedded index:
// every type but those of a backend with embeddedIndex: none.
func (ix *Indexer) keepsIndex(spec *objects.TypeSpec) bool { return keepsIndexIn(ix.Config(), spec) }

// keepsIndexIn is keepsIndex under cfg.
func keepsIndexIn(cfg *config.Config, spec *objects.TypeSpec) bool {
	if spec.Backend == "" {
		return true
	}
	b, ok := cfg.Backends[spec.Backend]
	return !ok || b.WithDefaults().EmbeddedIndex != config.EmbeddedIndexNone
}

// maxDocs is how many document numbers a generation has.
const maxDocs = 1 << 32

// docCounter numbers the new documents of a generation without an index:
// from above every stored document, never a freed one again. A full
// build numbers its objects from 0, so only the inserts between two full
// builds count against maxDocs.
type docCounter struct{ next uint64 }

// Next implements allocator.
func (c *docCounter) Next() uint32 {
	c.next++
	return uint32(c.next - 1)
}

// check fails a build that ran out of document numbers, before it commits.
func (c *docCounter) check(name string) error {
	if c.next > maxDocs {
		return fmt.Errorf("object type %s: %d documents numbered since its last full build, more than a generation holds (%d): rebuild it", name, c.next, uint64(maxDocs))
	}
	return nil
}

// countedDocs is the store.Docs of a full build without an index: it
// numbers the objects and keeps nothing of them.
type countedDocs struct{ docCounter }

// New implements store.Docs.
func (d *countedDocs) New() uint32 { return d.Next() }

// Changed implements store.Docs.
func (d *countedDocs) Changed(uint32, []byte, *objects.Object) error { return nil }

// openLeanGeneration opens a generation that keeps no index: it reads the
// number of its next document from the store (store.DB.NextDoc), and
// removes what an earlier run with the embedded index left (the index
// file and the dirty marks that catch it up), which these builds would
// leave stale.
func (ix *Indexer) openLeanGeneration(ctx context.Context, name string, n int) (*generation, error) {
	file := ix.indexFile(name, n)
	tmps, _ := filepath.Glob(file + ".tmp-*")
	for _, p := range append(tmps, file) {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return nil, fmt.Errorf("object type %s: remove the index file of generation %d: %w", name, n, err)
		}
	}
	// The builds store the counter; a generation they did not (before
	// the counter was stored) is read in full once, and stores it.
	next, version, err := ix.db.NextDoc(ctx, name, n)
	if err != nil {
		return nil, fmt.Errorf("object type %s: open generation %d: %w", name, n, err)
	}
	if err := ix.db.ClearDirty(name, n, version); err != nil {
		return nil, fmt.Errorf("object type %s: generation %d: %w", name, n, err)
	}
	return &generation{ix: ix, name: name, n: n, lean: &docCounter{next: next}}, nil
}

// nextDocs is the counter a build of a generation without an index
// numbers from: a copy, which the generation takes once the build
// committed (counted).
func (g *generation) nextDocs() docCounter {
	g.snapMu.RLock()
	defer g.snapMu.RUnlock()
	return *g.lean
}

// counted records the counter of a committed build.
func (g *generation) counted(c docCounter) {
	g.snapMu.Lock()
	*g.lean = c
	g.snapMu.Unlock()
}
