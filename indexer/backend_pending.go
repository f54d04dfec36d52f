package indexer

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ontoindex/ontoindex/indexer/backend/opensearch"
	"github.com/ontoindex/ontoindex/indexer/index"
	"github.com/ontoindex/ontoindex/indexer/store"
)

// The keys an incremental build sends to the backend before its store
// commit are journaled first (synced to disk), and the journal removed
// after the commit. A build that failed or crashed in between leaves the
// backend ahead of the store for those keys: its changes went out, the
// checkpoint stayed. The next build's diff need not hold them (the table
// may have rolled back, or changed them back), so that build sends the
// committed state of every journaled key it does not change itself, at
// its own, higher version: nothing stale stays in the backend.

// pendingPath is the journal of an object type's keys sent and not
// committed.
func (ix *Indexer) pendingPath(name string) string {
	return filepath.Join(ix.dir, "types", name, "backend-pending")
}

// readPending reads the journaled keys of a type (none without a journal).
func (ix *Indexer) readPending(name string) ([][]byte, error) {
	f, err := os.Open(ix.pendingPath(name))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	var keys [][]byte
	for {
		n, err := binary.ReadUvarint(r)
		if err == io.EOF {
			return keys, nil
		}
		if err != nil {
			return nil, fmt.Errorf("object type %s: backend journal: %w", name, err)
		}
		k := make([]byte, n)
		if _, err := io.ReadFull(r, k); err != nil {
			return nil, fmt.Errorf("object type %s: backend journal: %w", name, err)
		}
		keys = append(keys, k)
	}
}

// writePending journals the keys of changes, before they go out.
func (ix *Indexer) writePending(name string, changes []opensearch.Change) error {
	err := writeFile(ix.pendingPath(name), func(f *os.File) error {
		w := bufio.NewWriter(f)
		var n [binary.MaxVarintLen64]byte
		for _, c := range changes {
			if _, err := w.Write(n[:binary.PutUvarint(n[:], uint64(len(c.Key)))]); err != nil {
				return err
			}
			if _, err := w.Write(c.Key); err != nil {
				return err
			}
		}
		return w.Flush()
	})
	if err != nil {
		return fmt.Errorf("object type %s: backend journal: %w", name, err)
	}
	return nil
}

// dropPending removes the journal once the store committed what it
// lists. A failure leaves it: the next build sends those keys again.
func (ix *Indexer) dropPending(name string) {
	if err := os.Remove(ix.pendingPath(name)); err != nil && !errors.Is(err, os.ErrNotExist) {
		ix.log.Warn("remove the backend journal", "objectType", name, "error", err)
	}
}

// pendingRepair reports whether the job's type has a backend journal.
func (j *buildJob) pendingRepair() bool {
	if j.ix.cluster(&j.ts.spec) == nil {
		return false
	}
	_, err := os.Stat(j.ix.pendingPath(j.name()))
	return err == nil
}

// backendChanges are the backend changes of an incremental build: its
// own, then the committed state, read in the build's store transaction,
// of each journaled key it does not change.
func (ix *Indexer) backendChanges(name string, w *store.Writer, changes []index.Change) ([]opensearch.Change, error) {
	out := make([]opensearch.Change, 0, len(changes))
	seen := make(map[string]bool, len(changes))
	for _, ch := range changes {
		if len(ch.Key) > 0 {
			out = append(out, opensearch.Change{Key: ch.Key, Object: ch.Object})
			seen[string(ch.Key)] = true
		}
	}
	pending, err := ix.readPending(name)
	if err != nil {
		return nil, err
	}
	for _, k := range pending {
		if seen[string(k)] {
			continue
		}
		seen[string(k)] = true
		o, err := w.Gen().Object(k)
		if err != nil {
			return nil, fmt.Errorf("object type %s: journaled key %x: %w", name, k, err)
		}
		out = append(out, opensearch.Change{Key: k, Object: o})
	}
	return out, nil
}
