//go:build integration_opensearch

package indexer_test

import (
	"log/slog"
	"net/http"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/backend/opensearch"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/internal/testkit/opensearchtest"
)

// checkNoCopyLeft kills the node of a shard that has no replica: the
// backend's reader fails the searches and aggregations of the type rather
// than answer from the other shards, and a view answers them right (the
// embedded index's answer) or fails them with an error naming the
// cluster. The node is started again before it returns.
func checkNoCopyLeft(t *testing.T, c *opensearchtest.Cluster, edit func(*config.Config)) {
	lone := newBackendFixture(t, "", "lone-", 33, edit, func(cfg *config.Config) {
		b := cfg.Backends["cluster"]
		b.Replicas = new(0)
		cfg.Backends["cluster"] = b
	})
	lone.build(t, indexer.BuildOptions{})
	var shards []struct {
		Shard string `json:"shard"`
		Node  string `json:"node"`
	}
	c.MustDoNode(t, 0, http.MethodGet, "/_cat/shards/lone-item-g1?format=json&h=shard,node", nil, http.StatusOK, &shards)
	if len(shards) != 3 {
		t.Fatalf("shards of lone-item-g1: %+v, want 3 without replicas", shards)
	}
	victim, ok := c.Node(shards[0].Node)
	if !ok {
		t.Fatalf("shard 0 on %q, no node of the cluster", shards[0].Node)
	}
	if err := c.Kill(victim); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	v, err := lone.ix.View("Item")
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	urls := lone.cfg.Backends["cluster"].URLs
	cl, err := opensearch.New(opensearch.Options{Name: "cluster", URLs: urls, IndexPrefix: "lone-"}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	r := cl.Reader(v.Type())
	if res, err := r.Search(t.Context(), &query.Search{PageSize: 1000}); err == nil {
		t.Errorf("search with shard 0's node-%d down: %d objects of %d, want an error", victim, len(res.Keys), len(lone.ids))
	} else {
		t.Logf("search with shard 0's node-%d down: %v", victim, err)
	}
	count := &query.Aggregate{Metrics: []query.Metric{{Kind: query.Count}}}
	if res, err := r.Aggregate(t.Context(), count); err == nil {
		t.Errorf("count with shard 0's node-%d down: %+v, want an error", victim, res)
	}

	got, err := v.Search(t.Context(), &query.Search{PageSize: 1000})
	switch want, werr := indexer.EmbeddedSearch(t.Context(), v, &query.Search{PageSize: 1000}); {
	case werr != nil:
		t.Fatal(werr)
	case err != nil && !namesCluster(err):
		t.Errorf("a view's search with shard 0's node down: %v, want the answer or an error naming the cluster", err)
	case err == nil && (got.Total != want.Total || !slices.Equal(pageKeys(got), pageKeys(want))):
		t.Errorf("a view's search with shard 0's node down: %d objects (total %d), want %d", len(pageKeys(got)), got.Total, want.Total)
	}
	gotCount, err := v.Aggregate(t.Context(), count)
	switch want, werr := indexer.EmbeddedAggregate(t.Context(), v, count); {
	case werr != nil:
		t.Fatal(werr)
	case err != nil && !namesCluster(err):
		t.Errorf("a view's count with shard 0's node down: %v, want the answer or an error naming the cluster", err)
	case err == nil && !reflect.DeepEqual(gotCount, want):
		t.Errorf("a view's count with shard 0's node down: %+v, want %+v", gotCount, want)
	}
	st, _ := lone.ix.Status("Item")
	t.Logf("a view's reads with shard 0's node down: the embedded index answered %d", st.Backend.Fallbacks)

	if err := c.Restart(t.Context(), victim); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitHealth(t.Context(), "green"); err != nil {
		t.Fatal(err)
	}
	t.Logf("node-%d back and the cluster green %s after its kill", victim, time.Since(killed).Round(100*time.Millisecond))
}
