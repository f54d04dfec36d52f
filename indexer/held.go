package indexer

import (
	"fmt"

	"github.com/ontoindex/ontoindex/indexer/backend/opensearch"
	"github.com/ontoindex/ontoindex/indexer/index"
)

// HeldSnapshot is a view's snapshot kept after the view is released, so
// that later requests read exactly what the first one read (listings with
// snapshot: true). It keeps its generation open, and with it the memory
// of whatever builds have replaced since: holders bound how long they
// keep one. It holds no store transaction, since a long-lived bbolt read
// transaction would block a build that grows the file.
//
// A type that keeps no index (lean.go) holds the version of the view's
// store transaction instead of a snapshot, and its view's backend: its
// held snapshot reads the store until the next build commits
// (ErrStoreMoved then), and searches the backend.
type HeldSnapshot struct {
	ix   *Indexer
	gen  *generation
	cp   *Checkpoint
	snap *index.Snapshot
	// version and the backend, without snap.
	version     uint64
	backend     *opensearch.Reader
	backendName string
}

// Hold keeps the view's snapshot; the caller releases the result. It
// returns nil when the generation is closing.
func (v *View) Hold() *HeldSnapshot {
	if !v.gen.acquire() {
		return nil
	}
	h := &HeldSnapshot{ix: v.ix, gen: v.gen, cp: v.cp, snap: v.snap}
	if v.snap == nil {
		h.version, h.backend, h.backendName = v.r.Version(), v.backend, v.backendName
	}
	return h
}

// View opens a view of the held snapshot, released as any view. A
// snapshot that holds every value needs nothing else; one whose objects
// are read from the store needs the store at the snapshot's version, and
// returns ErrStoreMoved once a build has committed since.
func (h *HeldSnapshot) View() (*View, error) {
	if !h.gen.acquire() {
		return nil, fmt.Errorf("object type %s: %w", h.gen.name, ErrClosed)
	}
	if h.snap != nil && h.snap.Readable() {
		return &View{ix: h.ix, gen: h.gen, cp: h.cp, snap: h.snap}, nil
	}
	r, err := h.ix.db.Read(h.gen.name, h.gen.n)
	if err != nil {
		h.gen.release()
		return nil, err
	}
	version := h.version
	if h.snap != nil {
		version = h.snap.Version()
	}
	if r.Version() != version {
		r.Close()
		h.gen.release()
		return nil, fmt.Errorf("object type %s: %w", h.gen.name, ErrStoreMoved)
	}
	return &View{ix: h.ix, gen: h.gen, cp: h.cp, r: r, snap: h.snap, backend: h.backend, backendName: h.backendName}, nil
}

// Release gives the held snapshot back.
func (h *HeldSnapshot) Release() { h.gen.release() }
