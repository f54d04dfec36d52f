package indexer

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/ontoindex/ontoindex/indexer/backend/opensearch"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// The reads of a type that keeps no embedded index (lean.go): its backend
// answers searches (every filter it supports, any order but relevance,
// pages larger than its window in several requests, the cursor of every
// object for PartialSearch), aggregations and the distinct values links
// follow (backendDistinct), the store gets, counts, scans and the objects
// of pages; the rest is refused with a *NoIndexError:
//   - relevance order;
//   - a search or aggregation the backend refuses (doc.go of package
//     opensearch lists what it does not support);
//   - Distinct of what the backend does not group by exactly (lists,
//     decimals): following such a link;
//   - nearest neighbours, and CheckIndex.
//
// Subscriptions work: a build's commit carries snapshots of the objects
// it changed (lean_commit.go).

// distinctRead describes Distinct, as a NoIndexError names it.
const distinctRead = "following links (searchAround, linked objects) by"

// refuse is the error of a read the view's type cannot answer without
// the embedded index; cause is the backend's, when it refused it first.
func (v *View) refuse(read string, cause error) error {
	ne := &NoIndexError{ObjectType: v.cp.Type.APIName, Read: read, Backend: v.backendName, Cause: cause}
	if opensearch.Refused(cause) {
		ne.Why = cause.Error()
	}
	return ne
}

// backendDistinct is Distinct answered by the backend: the keys of an
// exact grouping by the property of the objects f matches (a composite
// aggregation walked to its end: exact, and bounded by no group limit, as
// the engine's Distinct is not), in value order. A list is refused, as
// the engine refuses it (its elements would be grouped).
func (v *View) backendDistinct(ctx context.Context, f *query.Filter, property string) ([]any, error) {
	read := distinctRead + " " + property
	switch p, ok := v.cp.Type.Property(property); {
	case !ok:
		return nil, fmt.Errorf("object type %s has no property %q", v.cp.Type.APIName, property)
	case p.Type.Kind == objects.KindList:
		return nil, v.refuse(read+" (a list)", nil)
	}
	res, err := timedRead(ctx, v, func() (*query.AggregateResult, error) {
		return v.backend.Aggregate(ctx, &query.Aggregate{Filter: f, Metrics: []query.Metric{{Kind: query.Count}},
			Groups: []query.Group{{Kind: query.Exact, Property: property}}})
	})
	if err != nil {
		return nil, v.leanRefusal(ctx, read, err)
	}
	out := make([]any, 0, len(res.Groups))
	for _, g := range res.Groups {
		out = append(out, g.Keys[0].Value)
	}
	slices.SortFunc(out, objects.Compare)
	return out, nil
}

// leanPartialSearch is PartialSearch of a type without an index: the
// backend's page with the cursor of every object, at which a merge of
// several types' pages may resume.
func (v *View) leanPartialSearch(ctx context.Context, q *query.Search) (*Page, error) {
	r := *v.backend // the view's reader, with the cursors
	r.Cursors = true
	return v.leanSearch(ctx, q, &r)
}

// leanSearch is a search the backend does not take in one request, of a
// type without an index: a page larger than the backend's window is the
// backend's pages of at most maxBackendPage objects, each after the one
// before (cursors hold sort values: as a client's pages, they go on from
// the last object across builds); relevance order is refused.
func (v *View) leanSearch(ctx context.Context, q *query.Search, r *opensearch.Reader) (*Page, error) {
	if q.Relevance {
		return nil, v.refuse("relevance order", nil)
	}
	rq := *q
	all := &opensearch.Result{}
	for first := true; ; first = false {
		rq.PageSize = min(q.PageSize-len(all.Keys), v.ix.maxBackendPage())
		res, err := timedRead(ctx, v, func() (*opensearch.Result, error) { return r.Search(ctx, &rq) })
		if err != nil {
			return nil, v.leanRefusal(ctx, "this search", err)
		}
		if first {
			all.Total = res.Total // every page counts every match
		}
		all.Keys, all.Next, all.Cursors = append(all.Keys, res.Keys...), res.Next, append(all.Cursors, res.Cursors...)
		if res.Next == nil || len(all.Keys) >= q.PageSize {
			return v.backendPage(all, q)
		}
		rq.After = res.Next
	}
}

// leanRefusal is the error of a read the backend did not answer (err)
// for a type without an index: the cluster's failure, the request's end,
// or a cursor the backend did not make (the API reports a bad page
// token), named by the type; a read it refuses, a NoIndexError.
func (v *View) leanRefusal(ctx context.Context, read string, err error) error {
	if opensearch.Failed(err) || ctx.Err() != nil || errors.Is(err, query.ErrBadCursor) {
		return fmt.Errorf("object type %s: %w", v.cp.Type.APIName, err)
	}
	return v.refuse(read, err)
}
