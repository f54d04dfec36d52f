//go:build integration_opensearch

package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/api"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/benchdata"
	"github.com/ontoindex/ontoindex/internal/testkit/cputime"
	"github.com/ontoindex/ontoindex/internal/testkit/opensearchtest"
	"github.com/ontoindex/ontoindex/objects"
)

var openSearchHandlerRows = flag.Int("api.os-rows", 100_000, "customers and orders of the OpenSearch handler benchmark")

// BenchmarkHandler_openSearch measures what the server spends on a
// request its OpenSearch backend answers, beside the node's own CPU: the
// search bench's rows that the backend answers (month histogram, sorted
// page, count, count by city), one request at a time through the API's
// handler (no network on the client's side, no client), on a one-node
// cluster of the kit's bench profile. cpu-ns/op is this process's CPU a
// request (the handler, the backend's client and its garbage: the node
// runs in a process of its own), node-cpu-µs/op the node's (its
// process.cpu of _nodes/stats, in ms). The shard request cache is off, as
// in the search bench. The cluster and the build are the benchmark's: run
// it with -count 1 and compare builds one after the other, with
// -cpuprofile (focus on ServeHTTP: the profile holds the build too).
//
//	go test -tags integration_opensearch -run '^$' -bench Handler_openSearch -benchtime 2000x ./api
func BenchmarkHandler_openSearch(b *testing.B) {
	c := opensearchtest.Must(b, opensearchtest.Options{HeapMB: 1024, Profile: opensearchtest.ProfileBench})
	ix, h := openSearchHandler(b, c, *openSearchHandlerRows)
	for _, bc := range openSearchHandlerRequests() {
		b.Run(bc.name, func(b *testing.B) {
			// Bodies drawn once: the bench's own encoding is no part of a
			// request, and the parameters vary as the search bench's.
			r := rand.New(rand.NewPCG(1, 2))
			bodies := make([][]byte, 64)
			for i := range bodies {
				bodies[i] = bc.body(r)
			}
			serve := func(i int) {
				req := httptest.NewRequest(http.MethodPost, bc.path, bytes.NewReader(bodies[i%len(bodies)]))
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
			for i := range 50 { // the node's JIT and caches
				serve(i)
			}
			node := nodeCPU(b, c)
			cpu := cputime.Process(b)
			i := 0
			for b.Loop() {
				serve(i)
				i++
			}
			cputime.PerOp(b, cpu, cputime.Process)
			b.ReportMetric(float64((nodeCPU(b, c)-node).Microseconds())/float64(b.N), "node-cpu-µs/op")
			for _, typ := range []string{"Customer", "Order"} {
				if st, err := ix.Status(typ); err != nil || st.Backend == nil || st.Backend.Fallbacks != 0 {
					b.Fatalf("%s: %v, backend status %+v: every request should be the backend's", typ, err, st.Backend)
				}
			}
		})
	}
}

// openSearchHandlerRequest is one row: a request to path with bodies
// drawn by body.
type openSearchHandlerRequest struct {
	name, path string
	body       func(r *rand.Rand) []byte
}

// openSearchHandlerRequests are the search bench's rows the backend
// answers (internal/searchbench/queries.go), with its parameters.
func openSearchHandlerRequests() []openSearchHandlerRequest {
	const base = "/api/v2/ontologies/bench/objects/"
	fixed := func(s string) func(*rand.Rand) []byte { return func(*rand.Rand) []byte { return []byte(s) } }
	return []openSearchHandlerRequest{
		{"histogram", base + "Order/aggregate",
			fixed(`{"aggregation":[{"type":"count"}],"groupBy":[{"type":"duration","field":"placedAt","value":1,"unit":"MONTHS"}]}`)},
		{"sorted", base + "Customer/search", func(r *rand.Rand) []byte {
			lo := r.IntN(benchdata.MaxBalance - 50_000)
			city, _ := json.Marshal(benchdata.Cities[r.IntN(len(benchdata.Cities))])
			return fmt.Appendf(nil, `{"where":{"type":"and","value":[{"type":"eq","field":"city","value":%s},{"type":"gte","field":"balance","value":%d},`+
				`{"type":"lt","field":"balance","value":%d},{"type":"eq","field":"active","value":false}]},`+
				`"orderBy":{"fields":[{"field":"balance","direction":"desc"}]},"pageSize":100,"excludeRid":true}`, city, lo, lo+50_000)
		}},
		{"count", base + "Customer/aggregate", func(r *rand.Rand) []byte {
			lo := r.IntN(benchdata.MaxBalance * 9 / 10)
			return fmt.Appendf(nil, `{"aggregation":[{"type":"count"}],"groupBy":[],"where":{"type":"and","value":[`+
				`{"type":"gte","field":"balance","value":%d},{"type":"lt","field":"balance","value":%d}]}}`, lo, lo+benchdata.MaxBalance/10)
		}},
		{"group", base + "Customer/aggregate",
			fixed(`{"aggregation":[{"type":"count"}],"groupBy":[{"type":"exact","field":"city"}],"where":{"type":"eq","field":"active","value":true}}`)},
	}
}

// openSearchHandler is the handler of a server of the bench's customers
// and orders, rows of each, both types in cluster c (the embedded index
// kept too, the default), built, and its indexer.
func openSearchHandler(b *testing.B, c *opensearchtest.Cluster, rows int) (*indexer.Indexer, http.Handler) {
	ctx := context.Background()
	cfg, err := handlerConfig(ctx, b.TempDir(), rows)
	if err != nil {
		b.Fatal(err)
	}
	cfg.Backends = map[string]config.Backend{"cluster": {Type: config.BackendOpenSearch, URLs: c.URLs(), IndexPrefix: "bench-", Replicas: new(0)}}
	for i := range cfg.ObjectTypes {
		cfg.ObjectTypes[i].Backend = "cluster"
		if cfg.ObjectTypes[i].APIName == "Order" {
			cfg.ObjectTypes[i].Properties["placedAt"] = objects.PropertySpec{Column: "placed_at", Search: objects.SearchDate}
		}
	}
	if err := cfg.Validate(); err != nil {
		b.Fatal(err)
	}
	ix, err := indexer.Open(ctx, cfg, indexer.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = ix.Close() }) // before the cluster stops
	start := time.Now()
	for _, res := range ix.BuildAll(ctx, indexer.BuildOptions{}) {
		if res.Error != nil {
			b.Fatal(errors.New(res.Error.Message))
		}
	}
	b.Logf("%d customers and %d orders built into the node in %.1f s", rows, rows, time.Since(start).Seconds())
	c.MustDoNode(b, 0, http.MethodPut, "/bench-*/_settings", []byte(`{"index.requests.cache.enable":false}`), http.StatusOK, nil)
	s, err := api.New(ix, api.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return ix, s.Handler()
}

// nodeCPU is the CPU time the cluster's first node has used so far.
func nodeCPU(b *testing.B, c *opensearchtest.Cluster) time.Duration {
	var stats struct {
		Nodes map[string]struct {
			Process struct {
				CPU struct {
					TotalInMillis int64 `json:"total_in_millis"`
				} `json:"cpu"`
			} `json:"process"`
		} `json:"nodes"`
	}
	c.MustDoNode(b, 0, http.MethodGet, "/_nodes/_local/stats/process", nil, http.StatusOK, &stats)
	for _, n := range stats.Nodes {
		return time.Duration(n.Process.CPU.TotalInMillis) * time.Millisecond
	}
	b.Fatal("_nodes/stats: no node")
	return 0
}
