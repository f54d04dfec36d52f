package opensearch

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/query"
)

// TestReader_wholeResults: every search the reader sends, a page's and
// an aggregation's, asks the cluster to fail rather than answer without
// a shard, and the cluster's refusal is the reader's error.
func TestReader_wholeResults(t *testing.T) {
	var mu sync.Mutex
	var partial []string // allow_partial_search_results of each search
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/_search") {
			http.Error(w, "unexpected "+r.URL.Path, http.StatusBadRequest)
			return
		}
		mu.Lock()
		partial = append(partial, r.URL.Query().Get("allow_partial_search_results"))
		mu.Unlock()
		// What a cluster answers when a shard has no copy to ask.
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"error":{"type":"search_phase_execution_exception","reason":"Partial shards failure",` +
			`"root_cause":[{"type":"no_shard_available_action_exception","reason":"no shard available"}]},"status":503}`))
	}))
	defer srv.Close()
	c, err := New(Options{Name: "c", URLs: []string{srv.URL}, IndexPrefix: "x-"}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := c.Reader(flightType())
	tests := []struct {
		name string
		read func() error
	}{
		{"search", func() error {
			_, err := r.Search(t.Context(), &query.Search{PageSize: 10})
			return err
		}},
		{"aggregate", func() error {
			_, err := r.Aggregate(t.Context(), &query.Aggregate{Metrics: []query.Metric{{Kind: query.Count}}})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			partial = nil
			mu.Unlock()
			err := tt.read()
			if err == nil || !strings.Contains(err.Error(), "no_shard_available_action_exception") || !strings.Contains(err.Error(), `"c"`) {
				t.Errorf("err = %v, want the cluster's refusal, naming it", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(partial) == 0 {
				t.Fatal("no search sent")
			}
			for i, p := range partial {
				if p != "false" {
					t.Errorf("search %d: allow_partial_search_results %q, want false", i, p)
				}
			}
		})
	}
}
