//go:build integration_opensearch

package opensearch

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/internal/testkit/cputime"

	"github.com/ontoindex/ontoindex/internal/testkit/opensearchtest"
)

// BenchmarkWriter_bulk compares the writer's ingest with OpenSearch's own
// bulk rate for the same documents: the writer encodes objects, sends
// them and reads every item's answer; raw posts the writer's bulk bodies,
// encoded beforehand, with net/http and reads nothing of the answers. One
// op writes 5,000 flights into a new index with the writer, then into
// another one raw, so that the two alternate under the same load;
// writer/raw-rate is the figure to compare (the goal: at least
// 0.8), and the client's CPU per document is what the writer costs on a
// machine too loaded for rates.
//
//	go test -tags integration_opensearch -run '^$' -bench Writer_bulk -benchtime 5x ./indexer/backend/opensearch
func BenchmarkWriter_bulk(b *testing.B) {
	const docs = 5000
	c := opensearchtest.Must(b, opensearchtest.Options{})
	typ := flightType()
	cl, err := New(Options{Name: "bench", URLs: c.URLs(), IndexPrefix: "bench-", Replicas: 0}, slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	w := cl.Writer(typ)
	r := rand.New(rand.NewPCG(1, 1))
	changes := make([]Change, docs)
	for n := range changes {
		o := randomFlight(r, n)
		changes[n] = Change{Key: key(typ, o), Object: o}
	}
	// The raw bodies: the writer's lines, in requests of its size.
	var bodies [][]byte
	var body []byte
	for _, ch := range changes {
		lines, err := w.encode(ch, 1)
		if err != nil {
			b.Fatal(err)
		}
		if len(body) > 0 && len(body)+len(lines) > DefaultBulkBytes {
			bodies, body = append(bodies, body), nil
		}
		body = append(body, lines...)
	}
	bodies = append(bodies, body)
	ctx := context.Background()
	gen := uint64(0)
	fresh := func() {
		if gen > 0 {
			if err := w.Drop(ctx, gen); err != nil {
				b.Fatal(err)
			}
		}
		gen++
		if err := w.CreateIndex(ctx, gen); err != nil {
			b.Fatal(err)
		}
	}
	writer := func() {
		if _, err := w.Write(ctx, gen, 1, changes); err != nil {
			b.Fatal(err)
		}
	}
	raw := func() {
		for _, body := range bodies {
			rawBulk(b, c, w.Index(gen), body)
		}
	}
	// A first round of each, off the figures, warms the JVM.
	fresh()
	writer()
	fresh()
	raw()
	// Then the two alternate, each into a new index, and each is timed
	// by the wall clock and by this process's CPU (the client's cost).
	var wall, cpu [2]time.Duration
	b.ResetTimer()
	for b.Loop() {
		for i, run := range []func(){writer, raw} {
			b.StopTimer()
			fresh()
			b.StartTimer()
			start, startCPU := time.Now(), cputime.Process(b)
			run()
			wall[i] += time.Since(start)
			cpu[i] += cputime.Process(b) - startCPU
		}
	}
	n := float64(docs * b.N)
	b.ReportMetric(n/wall[0].Seconds(), "writer-docs/s")
	b.ReportMetric(n/wall[1].Seconds(), "raw-docs/s")
	b.ReportMetric(wall[1].Seconds()/wall[0].Seconds(), "writer/raw-rate")
	b.ReportMetric(float64(cpu[0].Microseconds())/n, "writer-client-µs/doc")
	b.ReportMetric(float64(cpu[1].Microseconds())/n, "raw-client-µs/doc")
}

// rawBulk posts one bulk body to index and fails unless every item was
// written.
func rawBulk(b *testing.B, c *opensearchtest.Cluster, index string, body []byte) {
	resp, err := http.Post(c.URL()+"/"+index+"/_bulk", "application/x-ndjson", bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK || bytes.Contains(answer[:min(len(answer), 64)], []byte(`"errors":true`)) {
		b.Fatal(fmt.Errorf("raw bulk: %d %v %.200s", resp.StatusCode, err, answer))
	}
}
