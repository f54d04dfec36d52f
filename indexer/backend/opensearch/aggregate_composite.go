package opensearch

import (
	"context"
	"encoding/json"
	"fmt"
)

// bucket is one bucket of a composite aggregation: its key by source
// name, its count and, when the walk computes metrics, its
// sub-aggregations by name.
type bucket struct {
	Key      map[string]json.RawMessage `json:"key"`
	DocCount int64                      `json:"doc_count"`
	subs     map[string]json.RawMessage
}

// compositeAnswer is a page of a composite aggregation without
// sub-aggregations, its buckets decoded in the one pass over the answer.
type compositeAnswer struct {
	Aggregations struct {
		Groups struct {
			AfterKey json.RawMessage `json:"after_key"`
			Buckets  []bucket        `json:"buckets"`
		} `json:"groups"`
	} `json:"aggregations"`
}

// compositeSubsAnswer is a page of a composite aggregation with
// sub-aggregations, whose names are the walk's: each bucket as its fields.
type compositeSubsAnswer struct {
	Aggregations struct {
		Groups struct {
			AfterKey json.RawMessage              `json:"after_key"`
			Buckets  []map[string]json.RawMessage `json:"buckets"`
		} `json:"groups"`
	} `json:"aggregations"`
}

// walkComposite pages a composite aggregation over sources to its end,
// calling each for every bucket.
func (r *Reader) walkComposite(ctx context.Context, match map[string]any, sources []any, aggs map[string]any, each func(*bucket) error) error {
	var after json.RawMessage
	for {
		composite := map[string]any{"size": compositePage, "sources": sources}
		if after != nil {
			composite["after"] = after
		}
		groups := map[string]any{"composite": composite}
		if len(aggs) > 0 {
			groups["aggs"] = aggs
		}
		body := map[string]any{"query": match, "size": 0, "track_total_hits": false, "aggs": map[string]any{"groups": groups}}
		buckets, afterKey, err := r.compositePage(ctx, body, len(aggs) > 0)
		if err != nil {
			return err
		}
		for i := range buckets {
			if err := each(&buckets[i]); err != nil {
				return err
			}
		}
		if len(buckets) < compositePage || afterKey == nil {
			return nil
		}
		after = afterKey
	}
}

// compositePage runs one page of a composite aggregation and returns its
// buckets and its after key; with subs, each bucket's sub-aggregations.
func (r *Reader) compositePage(ctx context.Context, body map[string]any, subs bool) ([]bucket, json.RawMessage, error) {
	if !subs {
		var ans compositeAnswer
		if err := r.search(ctx, body, &ans); err != nil {
			return nil, nil, err
		}
		return ans.Aggregations.Groups.Buckets, ans.Aggregations.Groups.AfterKey, nil
	}
	var ans compositeSubsAnswer
	if err := r.search(ctx, body, &ans); err != nil {
		return nil, nil, err
	}
	buckets := make([]bucket, len(ans.Aggregations.Groups.Buckets))
	for i, fields := range ans.Aggregations.Groups.Buckets {
		b := &buckets[i]
		if err := json.Unmarshal(fields["key"], &b.Key); err != nil {
			return nil, nil, fmt.Errorf("opensearch cluster %q: composite bucket: %w: %w", r.c.opts.Name, errAnswer, err)
		}
		if err := json.Unmarshal(fields["doc_count"], &b.DocCount); err != nil {
			return nil, nil, fmt.Errorf("opensearch cluster %q: composite bucket: %w: %w", r.c.opts.Name, errAnswer, err)
		}
		b.subs = fields
	}
	return buckets, ans.Aggregations.Groups.AfterKey, nil
}
