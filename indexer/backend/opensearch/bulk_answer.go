package opensearch

import (
	"bytes"
	"encoding/json"

	opensearchgo "github.com/opensearch-project/opensearch-go/v4"
	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"
)

// bulkAnswer is a bulk request's answer, decoded only as far as Write
// needs it. When the cluster says no item failed (errors false: every
// item indexed or deleted, a delete of an absent document included),
// the items are counted, not decoded: decoding a map per item was a
// sixth of the indexer's CPU during a full build into the backend (a
// profile of the scale run's 400,000-object build), the writes' own
// encoding a tenth.
type bulkAnswer struct {
	// Failed is the cluster's errors flag; nil when the answer has none
	// (a filter_path without it), which decodes the items too.
	Failed *bool
	// Items are the items, decoded unless Failed is false.
	Items []map[string]opensearchapi.BulkRespItem
	// Count is how many items the answer holds.
	Count int
}

func (a *bulkAnswer) UnmarshalJSON(b []byte) error {
	var head struct {
		Errors *bool           `json:"errors"`
		Items  json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return err
	}
	a.Failed = head.Errors
	if a.Failed == nil || *a.Failed {
		if err := json.Unmarshal(head.Items, &a.Items); err != nil {
			return err
		}
		a.Count = len(a.Items)
		return nil
	}
	// Every item, once filtered to its status and error, holds one
	// status field, and no error whose text could hold the word.
	a.Count = bytes.Count(head.Items, []byte(`"status"`))
	return nil
}

// decoded reports whether the items were decoded (some failed, or the
// answer did not say).
func (a *bulkAnswer) decoded() bool { return a.Failed == nil || *a.Failed }

// inspected makes a client response an inspector for Cluster.check.
type inspected struct{ r *opensearchgo.Response }

func (i inspected) Inspect() opensearchapi.Inspect { return opensearchapi.Inspect{Response: i.r} }
