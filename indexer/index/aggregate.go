package index

import (
	"context"
	"errors"
	"fmt"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// Loader reads the stored objects of documents, for the properties the
// index keeps no values of (role none strings and arrays).
type Loader func(docs []uint32) ([]*objects.Object, error)

// Aggregations read the values of the matching documents from the
// columns, in document order, without decoding objects (aggregate_scan.go).
// A count without groups is a count of the filter; a count grouped by one
// property with a dict is an intersection per value, or a lookup per value
// in the pair counts when the filter is one value or range of another
// (aggregate_counts.go, pairs.go). Each document falls in the groups of
// aggregate_groups.go, whose metrics accumulate in aggregate_metrics.go
// (percentiles in aggregate_percentile.go); aggregate_result.go orders
// the groups. A lone duration grouping over a column reads its buckets
// straight from the column's chunks (aggregate_duration.go); a count by
// one duration or ranges grouping over all objects, or a range of the
// grouped property, searches the property's order (aggregate_order.go).

// metric is a metric of the query with the index of its property (nil for
// a count).
type metric struct {
	query.Metric
	pi          *propertyIndex
	exactValues int // Percentile: the values ranked exactly
}

// grouping is a grouping of the query with the index of its property, its
// ranges as value keys, and the parts of the document being added.
type grouping struct {
	query.Group
	pi       *propertyIndex
	ranges   []valueRange
	bucketer *durationBucketer // Duration
	parts    []groupKeyPart    // scratch, per document
}

// valueRange is a range of a grouping: [lo, hi), either bound may be absent.
type valueRange struct {
	lo, hi       valueKey
	hasLo, hasHi bool
}

// aggregation is one running aggregation.
type aggregation struct {
	x            *exec
	metrics      []metric
	groups       []*grouping
	limit        int
	accumulators map[string]*groupAccumulator
	identity     []byte
	load         Loader
	loaded       map[uint32]*objects.Object // loaded for the current batch
	valueBuf     []valueKey
}

// Aggregate computes an aggregation over the documents a filter matches.
// load may be nil when every property involved has values in the index.
func (s *Snapshot) Aggregate(ctx context.Context, q *query.Aggregate, load Loader) (*query.AggregateResult, error) {
	return s.aggregate(ctx, q, load, aggregateOptions{})
}

// aggregateOptions force choices the planner makes, for tests and
// benchmarks that compare every way to an answer.
type aggregateOptions struct {
	noPairs bool // count through the matches, not the pair counts
	// noOrderCounts counts duration buckets and ranges from the matches'
	// values, not by searches in the grouped property's order.
	noOrderCounts bool
	// onlyOrderCounts fails with errNotByOrder unless searches in the
	// grouped property's order answer (tests).
	onlyOrderCounts bool
}

// errNotByOrder: see aggregateOptions.onlyOrderCounts.
var errNotByOrder = errors.New("not a count that the grouped property's order answers")

func (s *Snapshot) aggregate(ctx context.Context, q *query.Aggregate, load Loader, opt aggregateOptions) (*query.AggregateResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	x := &exec{ctx: ctx, s: s, noPairs: opt.noPairs}
	defer x.release()
	root, err := (&compiler{ctx: ctx, s: s, limits: q.Limits}).compile(q.Filter)
	if err != nil {
		return nil, err
	}
	a := &aggregation{x: x, limit: q.Limits.MaxGroups, accumulators: map[string]*groupAccumulator{}, load: load}
	exactValues := q.ExactPercentileValues
	if exactValues <= 0 {
		exactValues = query.DefaultExactPercentileValues
	}
	for _, m := range q.Metrics {
		am := metric{Metric: m, exactValues: exactValues}
		if m.Kind != query.Count {
			if am.pi = s.property(m.Property); am.pi == nil {
				return nil, fmt.Errorf("object type %s has no property %q", s.typ.APIName, m.Property)
			}
		}
		a.metrics = append(a.metrics, am)
	}
	for _, g := range q.Groups {
		ag := &grouping{Group: g, pi: s.property(g.Property)}
		if ag.pi == nil {
			return nil, fmt.Errorf("object type %s has no property %q", s.typ.APIName, g.Property)
		}
		for _, r := range g.Ranges {
			var vr valueRange
			if r.Start != nil {
				if vr.lo, err = valueKeyOf(ag.pi.elementType.Kind, r.Start); err != nil {
					return nil, fmt.Errorf("range of %s: %w", g.Property, err)
				}
				vr.hasLo = true
			}
			if r.End != nil {
				if vr.hi, err = valueKeyOf(ag.pi.elementType.Kind, r.End); err != nil {
					return nil, fmt.Errorf("range of %s: %w", g.Property, err)
				}
				vr.hasHi = true
			}
			ag.ranges = append(ag.ranges, vr)
		}
		if g.Kind == query.Duration {
			if ag.bucketer, err = newDurationBucketer(ag.pi.elementType, g); err != nil {
				return nil, err
			}
		}
		a.groups = append(a.groups, ag)
	}
	if len(a.groups) == 0 {
		// One group of every matching object, even when none matches.
		a.accumulators[""] = &groupAccumulator{metrics: make([]metricAccumulator, len(a.metrics))}
		if a.countsOnly() {
			n, err := x.countNode(root)
			if err != nil {
				return nil, err
			}
			a.accumulators[""].count = n
			return a.result(), nil
		}
	}
	if ok, err := a.byPairs(root); ok || err != nil {
		if err != nil {
			return nil, err
		}
		return a.result(), nil
	}
	byOrder := []func(node) (bool, error){a.byDurationOrder, a.byRangesOrder}
	if opt.noOrderCounts {
		byOrder = nil
	}
	for _, by := range byOrder {
		if ok, err := by(root); ok || err != nil {
			if err != nil {
				return nil, err
			}
			return a.result(), nil
		}
	}
	if opt.onlyOrderCounts {
		return nil, errNotByOrder
	}
	bm, err := root.bitmap(x)
	if err != nil {
		return nil, err
	}
	if ok, err := a.byDict(bm); ok || err != nil {
		if err != nil {
			return nil, err
		}
		return a.result(), nil
	}
	if ok, err := a.byDuration(bm); ok || err != nil {
		if err != nil {
			return nil, err
		}
		return a.result(), nil
	}
	if err := a.scan(bm); err != nil {
		return nil, err
	}
	return a.result(), nil
}

func (a *aggregation) countsOnly() bool {
	for _, m := range a.metrics {
		if m.Kind != query.Count {
			return false
		}
	}
	return true
}
