package indexer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ontoindex/ontoindex/indexer/store"
)

// The data dir and its store are created by Open, but a command that
// fails before it builds anything (a missing table, a port in use), or
// one that only reads (check), must not leave them behind: so Open
// remembers what it created, and Close removes it again when nothing was
// stored (removeUnused).

// newDataDir is what Open created of a data dir.
type newDataDir struct {
	store bool   // state.db did not exist
	top   string // the topmost directory created, "" when the dir existed
}

// openDataDir opens the store of a data dir, creating the dir and the
// store when they are missing.
func openDataDir(dir string) (*store.DB, newDataDir, error) {
	path := filepath.Join(dir, "state.db")
	for range 3 {
		created := newDataDir{top: missingAncestor(dir)}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, newDataDir{}, fmt.Errorf("create data dir: %w", err)
		}
		_, err := os.Stat(path)
		created.store = errors.Is(err, fs.ErrNotExist)
		db, err := store.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // the dir went away while this one waited for its lock (below)
		}
		if err != nil {
			// Only empty directories go: another process that created
			// the dir at the same time keeps its store.
			removeEmptyDirs(dir, created.top)
			return nil, newDataDir{}, err
		}
		// The process that held the store when this one started waiting
		// for its lock may have removed it, unused, on close: this one
		// then holds an unlinked file, and what it stored would be lost.
		_, err = os.Stat(path)
		if err == nil {
			return db, created, nil
		}
		_ = db.Close()
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, newDataDir{}, fmt.Errorf("open data dir: %w", err)
		}
	}
	return nil, newDataDir{}, fmt.Errorf("open data dir %s: removed by other processes while this one waited for it", dir)
}

// missingAncestor returns the topmost of dir and its parents that does
// not exist, or "" when dir exists.
func missingAncestor(dir string) string {
	missing := ""
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); !errors.Is(err, fs.ErrNotExist) {
			return missing
		}
		missing = d
		if filepath.Dir(d) == d {
			return missing
		}
	}
}

// removeEmptyDirs removes dir and its parents up to top while they are
// empty; top "" removes nothing.
func removeEmptyDirs(dir, top string) {
	if top == "" {
		return
	}
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if os.Remove(d) != nil || d == top || filepath.Dir(d) == d {
			return
		}
	}
}

// removeUnused removes the store, and the data dir, when Open created
// them and nothing was stored: no checkpoint, build in progress or
// generation. It runs while the store is open and locked, so no other
// process has stored anything there meanwhile, and one that waits for the
// lock sees the file gone and opens a new one (openDataDir).
func (ix *Indexer) removeUnused() {
	if !ix.created.store {
		return
	}
	if empty, err := ix.db.Empty(); err != nil || !empty {
		return
	}
	// types/ holds only index files of generations, useless without the
	// store; anything else in the dir stays, and so does the dir then.
	for _, p := range []string{filepath.Join(ix.dir, "types"), filepath.Join(ix.dir, "state.db")} {
		if err := os.RemoveAll(p); err != nil {
			ix.log.Warn("remove the unused data dir", "dir", ix.dir, "error", err)
			return
		}
	}
	removeEmptyDirs(ix.dir, ix.created.top)
}
