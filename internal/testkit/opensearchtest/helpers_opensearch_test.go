//go:build integration_opensearch

package opensearchtest

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// mustCreateIndex creates an index of objects {id: keyword, n: long}.
func mustCreateIndex(t *testing.T, c *Cluster, name string, shards, replicas int) {
	t.Helper()
	c.MustDoNode(t, 0, http.MethodPut, "/"+name, map[string]any{
		"settings": map[string]any{"number_of_shards": shards, "number_of_replicas": replicas},
		"mappings": map[string]any{"properties": map[string]any{
			"id": map[string]any{"type": "keyword"},
			"n":  map[string]any{"type": "long"},
		}},
	}, http.StatusOK, nil)
}

// index is a bulk upsert of object id with an external version.
func index(id string, version int64, n int) string {
	return fmt.Sprintf("{\"index\":{\"_id\":%q,\"version\":%d,\"version_type\":\"external\"}}\n{\"id\":%q,\"n\":%d}\n", id, version, id, n)
}

// remove is a bulk delete of object id with an external version.
func remove(id string, version int64) string {
	return fmt.Sprintf("{\"delete\":{\"_id\":%q,\"version\":%d,\"version_type\":\"external\"}}\n", id, version)
}

// bulkItem is the answer to one action of a bulk request.
type bulkItem struct {
	Status  int   `json:"status"`
	Version int64 `json:"_version"`
	Error   struct {
		Type   string `json:"type"`
		Reason string `json:"reason"`
	} `json:"error"`
}

// mustBulk sends the actions to index through node i, refreshing before
// it answers, and returns each action's answer in order.
func mustBulk(t *testing.T, c *Cluster, i int, index string, actions ...string) []bulkItem {
	t.Helper()
	var answer struct {
		Items []map[string]bulkItem `json:"items"`
	}
	c.MustDoNode(t, i, http.MethodPost, "/"+index+"/_bulk?refresh=true", []byte(strings.Join(actions, "")), http.StatusOK, &answer)
	items := make([]bulkItem, len(answer.Items))
	for k, item := range answer.Items {
		for _, v := range item { // one key: the action's name
			items[k] = v
		}
	}
	if len(items) != len(actions) {
		t.Fatalf("bulk of %d actions answered %d", len(actions), len(items))
	}
	return items
}

// wantStatuses checks the statuses of a bulk request's answers.
func wantStatuses(t *testing.T, items []bulkItem, want ...int) {
	t.Helper()
	got := make([]int, len(items))
	for k, item := range items {
		got[k] = item.Status
	}
	if !slices.Equal(got, want) {
		t.Errorf("bulk statuses %v, want %v (answers %+v)", got, want, items)
	}
}

// hit is one search hit, with the version and the n of its document.
type hit struct {
	Index   string
	ID      string
	Version int64
	N       int
}

// mustSearch searches index through node i with body (nil: every
// document) and returns the hits with their versions.
func mustSearch(t *testing.T, c *Cluster, i int, index string, body map[string]any) []hit {
	t.Helper()
	req := map[string]any{"version": true}
	for k, v := range body {
		req[k] = v
	}
	var answer struct {
		Hits struct {
			Hits []struct {
				Index   string `json:"_index"`
				ID      string `json:"_id"`
				Version int64  `json:"_version"`
				Source  struct {
					N int `json:"n"`
				} `json:"_source"`
			} `json:"hits"`
		} `json:"hits"`
	}
	c.MustDoNode(t, i, http.MethodPost, "/"+index+"/_search", req, http.StatusOK, &answer)
	hits := make([]hit, len(answer.Hits.Hits))
	for k, h := range answer.Hits.Hits {
		hits[k] = hit{Index: h.Index, ID: h.ID, Version: h.Version, N: h.Source.N}
	}
	return hits
}

func hitIDs(hits []hit) []string {
	ids := make([]string, len(hits))
	for k, h := range hits {
		ids[k] = h.ID
	}
	return ids
}

// at is hits[k], or the zero hit when there are fewer.
func at(hits []hit, k int) hit {
	if k < len(hits) {
		return hits[k]
	}
	return hit{}
}
