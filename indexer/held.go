package indexer

import (
	"fmt"

	"github.com/ontoindex/ontoindex/indexer/index"
)

// HeldSnapshot is a view's snapshot kept after the view is released, so
// that later requests read exactly what the first one read (listings with
// snapshot: true). It keeps its generation open, and with it the memory
// of whatever builds have replaced since: holders bound how long they
// keep one. It holds no store transaction, since a long-lived bbolt read
// transaction would block a build that grows the file.
type HeldSnapshot struct {
	ix   *Indexer
	gen  *generation
	cp   *Checkpoint
	snap *index.Snapshot
}

// Hold keeps the view's snapshot; the caller releases the result. It
// returns nil when the generation is closing.
func (v *View) Hold() *HeldSnapshot {
	if !v.gen.acquire() {
		return nil
	}
	return &HeldSnapshot{ix: v.ix, gen: v.gen, cp: v.cp, snap: v.snap}
}

// View opens a view of the held snapshot, released as any view. A
// snapshot that holds every value needs nothing else; one whose objects
// are read from the store needs the store at the snapshot's version, and
// returns ErrStoreMoved once a build has committed since.
func (h *HeldSnapshot) View() (*View, error) {
	if !h.gen.acquire() {
		return nil, fmt.Errorf("object type %s: %w", h.gen.name, ErrClosed)
	}
	if h.snap.Readable() {
		return &View{ix: h.ix, gen: h.gen, cp: h.cp, snap: h.snap}, nil
	}
	r, err := h.ix.db.Read(h.gen.name, h.gen.n)
	if err != nil {
		h.gen.release()
		return nil, err
	}
	if r.Version() != h.snap.Version() {
		r.Close()
		h.gen.release()
		return nil, fmt.Errorf("object type %s: %w", h.gen.name, ErrStoreMoved)
	}
	return &View{ix: h.ix, gen: h.gen, cp: h.cp, r: r, snap: h.snap}, nil
}

// Release gives the held snapshot back.
func (h *HeldSnapshot) Release() { h.gen.release() }
