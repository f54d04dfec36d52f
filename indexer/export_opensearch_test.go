//go:build integration_opensearch

package indexer

import (
	"context"

	"github.com/ontoindex/ontoindex/indexer/query"
)

// SetAfterBackend makes fn run after every write of ix to a backend (step
// "write") and every publish of a generation ("publish"); its error fails
// the build as theirs would (nil: none).
func SetAfterBackend(ix *Indexer, fn func(objectType, step string) error) { ix.afterBackend = fn }

// EmbeddedSearch is v's search answered by its embedded index snapshot.
func EmbeddedSearch(ctx context.Context, v *View, q *query.Search) (*Page, error) {
	return v.search(ctx, q, true)
}

// EmbeddedAggregate is v's aggregation answered by its embedded index
// snapshot.
func EmbeddedAggregate(ctx context.Context, v *View, q *query.Aggregate) (*query.AggregateResult, error) {
	return v.embeddedAggregate(ctx, q)
}

// PendingPath is the backend journal of an object type.
func PendingPath(ix *Indexer, name string) string { return ix.pendingPath(name) }
