package indexer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ontoindex/ontoindex/indexer/backend/opensearch"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// The read side of a type's search backend: a view of a type with a
// backend answers searches and aggregations from the backend's reader,
// the objects of a page from the view's own generation (snapshot or
// store), as the engine path does. What the backend cannot answer, the
// embedded index, still kept for every type, answers: relevance order,
// pages over the backend's result window, and queries the backend refuses
// (doc.go of package opensearch lists them); a type that keeps no index
// refuses them (read_lean.go). A backend that cannot be reached fails
// the read.

// maxBackendPage is the largest page the backend's reader takes
// (index.max_result_window - 1).
const maxBackendPage = 9999

// backendAnswers reports whether the view's backend answers q.
func (v *View) backendAnswers(q *query.Search) bool {
	return v.backend != nil && !q.Relevance && q.PageSize <= v.ix.maxBackendPage()
}

// maxBackendPage is the largest page the backends' readers take.
func (ix *Indexer) maxBackendPage() int {
	if ix.backendWindow > 0 {
		return ix.backendWindow
	}
	return maxBackendPage
}

// backendSearch is Search answered by the backend.
func (v *View) backendSearch(ctx context.Context, q *query.Search) (*Page, error) {
	res, err := timedRead(ctx, v, func() (*opensearch.Result, error) { return v.backend.Search(ctx, q) })
	if err != nil {
		return fallBack(ctx, v, err, "this search", func() (*Page, error) { return v.search(ctx, q, true) })
	}
	return v.backendPage(res, q)
}

// backendAggregate is Aggregate answered by the backend.
func (v *View) backendAggregate(ctx context.Context, q *query.Aggregate) (*query.AggregateResult, error) {
	res, err := timedRead(ctx, v, func() (*query.AggregateResult, error) { return v.backend.Aggregate(ctx, q) })
	if err != nil {
		return fallBack(ctx, v, err, "this aggregation", func() (*query.AggregateResult, error) { return v.embeddedAggregate(ctx, q) })
	}
	return res, nil
}

// timedRead runs read, a read of the view's backend, and records its
// duration or failure in the type's backend status; not a read whose
// context ended, which says nothing of the backend.
func timedRead[T any](ctx context.Context, v *View, read func() (T, error)) (T, error) {
	start := time.Now()
	out, err := read()
	if st := v.ix.backendStats(v.cp.Type.APIName); st != nil && ctx.Err() == nil {
		st.read(time.Since(start), err)
	}
	return out, err
}

// fallBack answers a read the backend failed with err: an unreachable
// backend's error (named by the type); else the embedded index's answer,
// or its error when it refuses the read too (a bad filter, which the API
// knows how to report), but the backend's error when the read goes on
// from the backend's cursor, which the embedded index cannot continue.
// An embedded answer to a read the backend refused is counted in the
// type's backend status. A type without an index refuses the read (read,
// what it was).
func fallBack[T any](ctx context.Context, v *View, err error, read string, embedded func() (T, error)) (T, error) {
	name := v.cp.Type.APIName
	var ue *opensearch.UnreachableError
	var zero T
	if errors.As(err, &ue) || ctx.Err() != nil {
		return zero, fmt.Errorf("object type %s: %w", name, err)
	}
	if v.snap == nil {
		return zero, v.leanRefusal(ctx, read, err)
	}
	out, eerr := embedded()
	switch {
	case errors.Is(eerr, query.ErrBadCursor) && !errors.Is(err, query.ErrBadCursor):
		// The page after one the backend answered: the embedded index
		// cannot go on from the backend's cursor, and the backend's
		// failure is the read's.
		return zero, fmt.Errorf("object type %s: %w", name, err)
	case eerr != nil:
		return out, eerr
	}
	if st := v.ix.backendStats(name); st != nil {
		st.fellBack(err)
	}
	v.ix.log.DebugContext(ctx, "the backend refused a read: the embedded index answered", "objectType", name, "error", err)
	return out, nil
}

// backendPage is the page of the keys the backend found, their objects
// read from the view. A key the view does not hold (the backend took a
// build's changes that the view's version is before) is left out: the
// view's objects are the ones it serves.
func (v *View) backendPage(res *opensearch.Result, q *query.Search) (*Page, error) {
	p := &Page{Next: res.Next, Total: res.Total, sort: q.Sort}
	if v.readable() {
		docs := make([]uint32, 0, len(res.Keys))
		for _, k := range res.Keys {
			if d, ok := v.snap.Lookup(k); ok {
				docs = append(docs, d)
			}
		}
		v.snap.Prefetch(docs)
		p.snap, p.docs = v.snap, docs
		return p, nil
	}
	objs, err := v.GetMany(res.Keys)
	if err != nil {
		return nil, err
	}
	p.keys, p.objects = make([][]byte, 0, len(objs)), make([]*objects.Object, 0, len(objs))
	for i, o := range objs {
		if o != nil {
			p.keys, p.objects = append(p.keys, res.Keys[i]), append(p.objects, o)
			if res.Cursors != nil {
				p.cursors = append(p.cursors, res.Cursors[i])
			}
		}
	}
	return p, nil
}
