//go:build integration_opensearch

package indexer

import (
	"context"
	"fmt"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// SetAfterBackend makes fn run after every write of ix to a backend (step
// "write") and every publish of a generation ("publish"); its error fails
// the build as theirs would (nil: none).
func SetAfterBackend(ix *Indexer, fn func(objectType, step string) error) { ix.afterBackend = fn }

// SetBeforeBackendWrite makes fn run before every write of ix to a
// backend, with its count of changes; its error fails the write before
// anything is sent (nil: none).
func SetBeforeBackendWrite(ix *Indexer, fn func(objectType string, changes int) error) {
	ix.beforeBackendWrite = fn
}

// EmbeddedSearch is v's search answered by its embedded index snapshot.
func EmbeddedSearch(ctx context.Context, v *View, q *query.Search) (*Page, error) {
	return v.search(ctx, q, true)
}

// EmbeddedAggregate is v's aggregation answered by its embedded index
// snapshot.
func EmbeddedAggregate(ctx context.Context, v *View, q *query.Aggregate) (*query.AggregateResult, error) {
	return v.embeddedAggregate(ctx, q)
}

// SetBackendWindow makes n the largest page ix's backends take (0: the
// backend's own).
func SetBackendWindow(ix *Indexer, n int) { ix.backendWindow = n }

// PendingPath is the backend journal of an object type.
func PendingPath(ix *Indexer, name string) string { return ix.pendingPath(name) }

// HoldsIndex reports whether the generation an object type serves holds
// an index snapshot.
func HoldsIndex(ix *Indexer, name string) (bool, error) {
	ts, err := ix.state(name)
	if err != nil {
		return false, err
	}
	ts.mu.RLock()
	gen := ts.gen
	ts.mu.RUnlock()
	if gen == nil {
		return false, ErrNotBuilt
	}
	gen.snapMu.RLock()
	defer gen.snapMu.RUnlock()
	return gen.cur != nil || gen.prev != nil || gen.staged != nil, nil
}

// StoredDocs are the documents of the stored objects of the generation an
// object type serves, in key order.
func StoredDocs(ctx context.Context, ix *Indexer, name string) ([]uint32, error) {
	v, err := ix.View(name)
	if err != nil {
		return nil, err
	}
	defer v.Release()
	r, err := v.reader()
	if err != nil {
		return nil, err
	}
	var docs []uint32
	_, err = r.EachDoc(ctx, func(doc uint32, _ []byte, _ *objects.Object) error {
		docs = append(docs, doc)
		return nil
	})
	return docs, err
}

// NextDoc is the document the next new object of an object type without
// the embedded index takes.
func NextDoc(ix *Indexer, name string) (uint64, error) {
	ts, err := ix.state(name)
	if err != nil {
		return 0, err
	}
	ts.mu.RLock()
	gen := ts.gen
	ts.mu.RUnlock()
	if gen == nil || gen.lean == nil {
		return 0, fmt.Errorf("object type %s: not built without the embedded index", name)
	}
	c := gen.nextDocs()
	return c.next, nil
}
