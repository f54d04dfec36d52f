//go:build integration_opensearch

package opensearch

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/internal/testkit/cputime"
	"github.com/ontoindex/ontoindex/internal/testkit/opensearchtest"
)

// BenchmarkReader_search compares the reader's first page of a search
// with the same query DSL posted straight to the alias (net/http, the
// answer read and dropped): what the backend costs over OpenSearch (the
// issue's goal: within 1.15x). The reader opens a point in time for the
// listing (and closes it on a last page), which the straight search does
// not. Each op runs each query once each way, alternating.
//
//	go test -tags integration_opensearch -run '^$' -bench Reader_search -benchtime 200x ./indexer/backend/opensearch
func BenchmarkReader_search(b *testing.B) {
	c := opensearchtest.Must(b, opensearchtest.Options{})
	_, rd, _, _ := itemsOnBoth(b, c, "bench-read-", 2000)
	queries := map[string]query.Search{
		"keyword eq, by code, page 20 of many": {Filter: query.Eq("active", true), Sort: []query.Sort{{Property: "code"}}, PageSize: 20},
		"text term, one page":                  {Filter: query.Text(query.OpAllTerms, "name", "amber cedar"), PageSize: 100},
		"range, by visits (script sort)":       {Filter: query.Compare(query.OpGt, "balance", 0.0), Sort: []query.Sort{{Property: "visits", Desc: true}}, PageSize: 20},
	}
	type pair struct {
		q    query.Search
		body []byte
	}
	var runs []pair
	for _, q := range queries {
		body, err := rd.searchBody(&q)
		if err != nil {
			b.Fatal(err)
		}
		raw, _ := json.Marshal(body)
		runs = append(runs, pair{q, raw})
	}
	reader := func(p pair) {
		if _, err := rd.Search(b.Context(), &p.q); err != nil {
			b.Fatal(err)
		}
	}
	straight := func(p pair) {
		resp, err := http.Post(c.URL()+"/"+rd.alias+"/_search", "application/json", bytes.NewReader(p.body))
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("straight search: %d", resp.StatusCode)
		}
	}
	for _, p := range runs { // warm the JVM
		for range 20 {
			reader(p)
			straight(p)
		}
	}
	var wall, cpu [2]time.Duration
	b.ResetTimer()
	for b.Loop() {
		for _, p := range runs {
			for i, run := range []func(pair){reader, straight} {
				start, startCPU := time.Now(), cputime.Process(b)
				run(p)
				wall[i] += time.Since(start)
				cpu[i] += cputime.Process(b) - startCPU
			}
		}
	}
	n := float64(b.N * len(runs))
	b.ReportMetric(float64(wall[0].Microseconds())/n, "reader-µs/query")
	b.ReportMetric(float64(wall[1].Microseconds())/n, "straight-µs/query")
	b.ReportMetric(wall[0].Seconds()/wall[1].Seconds(), "reader/straight-time")
	b.ReportMetric(float64(cpu[0].Microseconds())/n, "reader-client-µs/query")
	b.ReportMetric(float64(cpu[1].Microseconds())/n, "straight-client-µs/query")
}
