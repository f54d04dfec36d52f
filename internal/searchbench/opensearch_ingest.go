package searchbench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ontoindex/ontoindex/indexer/backend/opensearch"
)

// The ingest comparison: the documents the backend server's full builds
// wrote, read back from the cluster, and sent again straight in bulk
// requests into new indexes of the same settings and mappings, as the
// builds send them: 4096 documents a request (indexer's fullBackendRows;
// none of the bench's reach the writer's 5 MiB), two requests at once per
// type, both types at once (the daemon builds two types at a time), with
// the same action lines (external versions), then a refresh.

const (
	ingestBatch    = 4096
	ingestInFlight = 2
	ingestPage     = 10_000 // documents a search_after page reads back
)

// ingestIndex is the straight copy of alias.
func ingestIndex(alias string) string { return alias + "-straight" }

// measureIngest measures the straight bulk of both types' documents and
// fills f.Ingest.
func (s *openSearchSide) measureIngest(ctx context.Context, f *OpenSearchFigures, say func(string, ...any)) error {
	aliases := []string{"bench-" + strings.ToLower(objectType), "bench-" + strings.ToLower(orderType)}
	in, err := s.straightBulk(ctx, aliases, 0, say)
	if err != nil {
		return err
	}
	if in.BuildSeconds = buildWindow(f.Builds); in.BuildSeconds > 0 {
		in.Ratio = in.BulkSeconds / in.BuildSeconds
	}
	f.Ingest = in
	say("straight bulk of %d documents: %.1f s, the builds' window %.1f s: ratio %.2f", in.Documents, in.BulkSeconds, in.BuildSeconds, in.Ratio)
	return nil
}

// straightBulk reads the documents of each alias back (the first limit
// in the order of their keys; 0: all) and sends them straight in bulk
// requests, the aliases at once, into new indexes like theirs, until
// refreshed; then it deletes those. The figures leave BuildSeconds and
// Ratio to the caller.
func (s *openSearchSide) straightBulk(ctx context.Context, aliases []string, limit int64, say func(string, ...any)) (*IngestFigures, error) {
	bodies := make([][][]byte, len(aliases))
	docs := int64(0)
	for i, alias := range aliases {
		say("reading %s's documents back for the straight bulk", alias)
		b, n, err := s.bulkBodies(ctx, alias, limit)
		if err != nil {
			return nil, fmt.Errorf("ingest: %s: %w", alias, err)
		}
		bodies[i] = b
		docs += n
		if err := s.createLike(ctx, alias, ingestIndex(alias)); err != nil {
			return nil, fmt.Errorf("ingest: %s: %w", alias, err)
		}
	}
	nodes, err := nodeProcesses(ctx, s.cluster)
	if err != nil {
		return nil, err
	}
	stats0, err := nodeSnapshot(ctx, s.cluster, nodes)
	if err != nil {
		return nil, err
	}
	say("sending %d documents straight in bulk requests", docs)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: len(aliases) * ingestInFlight}}
	defer client.CloseIdleConnections()
	pool := sampleWritePool(ctx, s.cluster)
	start := time.Now()
	errs := make(chan error, len(aliases)*ingestInFlight)
	var wg sync.WaitGroup
	requests := 0
	for i, alias := range aliases {
		next := make(chan []byte)
		for range ingestInFlight {
			wg.Go(func() {
				failed := false
				for body := range next { // to the end, so that the sender never waits
					if failed {
						continue
					}
					if err := s.bulk(ctx, client, ingestIndex(alias), body); err != nil {
						errs <- err
						failed = true
					}
				}
			})
		}
		requests += len(bodies[i])
		go func() {
			defer close(next)
			for _, b := range bodies[i] {
				select {
				case next <- b:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	wg.Wait()
	written := pool()
	close(errs)
	if err := <-errs; err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	for _, alias := range aliases {
		if err := s.ok(ctx, http.MethodPost, "/"+ingestIndex(alias)+"/_refresh", nil); err != nil {
			return nil, fmt.Errorf("ingest: %w", err)
		}
	}
	in := &IngestFigures{Documents: docs, BulkSeconds: time.Since(start).Seconds(), Requests: requests}
	stats1, err := nodeSnapshot(ctx, s.cluster, nodes)
	if err != nil {
		return nil, err
	}
	in.Node = stats1.sub(stats0)
	in.Node.WritePool = written
	for _, alias := range aliases {
		if err := s.ok(ctx, http.MethodDelete, "/"+ingestIndex(alias), nil); err != nil {
			return nil, fmt.Errorf("ingest: %w", err)
		}
	}
	return in, nil
}

// buildWindow is the time from the first build's start to the last
// one's end.
func buildWindow(builds []BackendBuild) float64 {
	var first, last time.Time
	for _, b := range builds {
		start := b.FinishedAt.Add(-time.Duration(b.Seconds * float64(time.Second)))
		if first.IsZero() || start.Before(first) {
			first = start
		}
		if b.FinishedAt.After(last) {
			last = b.FinishedAt
		}
	}
	return last.Sub(first).Seconds()
}

// bulkBodies reads the documents of alias in the order of their keys
// (the first limit; 0: every one) and makes the bulk requests of them,
// with the builds' action lines.
func (s *openSearchSide) bulkBodies(ctx context.Context, alias string, limit int64) ([][]byte, int64, error) {
	var bodies [][]byte
	var body []byte
	var after json.RawMessage
	n, inBody := int64(0), 0
	for {
		page := int64(ingestPage)
		if limit > 0 {
			page = min(page, limit-n)
		}
		req := map[string]any{"size": page, "version": true, "sort": []any{map[string]any{"__key": "asc"}}, "track_total_hits": false}
		if after != nil {
			req["search_after"] = after
		}
		var ans struct {
			Hits struct {
				Hits []struct {
					ID      string          `json:"_id"`
					Version int64           `json:"_version"`
					Source  json.RawMessage `json:"_source"`
					Sort    json.RawMessage `json:"sort"`
				} `json:"hits"`
			} `json:"hits"`
		}
		if err := s.getJSON(ctx, "/"+alias+"/_search", req, &ans); err != nil {
			return nil, 0, err
		}
		for _, h := range ans.Hits.Hits {
			id, _ := json.Marshal(h.ID)
			body = fmt.Appendf(body, `{"index":{"_id":%s,"version":%d,"version_type":"external"}}`+"\n", id, h.Version)
			body = append(body, h.Source...)
			body = append(body, '\n')
			n++
			if inBody++; inBody == ingestBatch {
				bodies, body, inBody = append(bodies, body), nil, 0
			}
		}
		if int64(len(ans.Hits.Hits)) < page || n == limit {
			break
		}
		after = ans.Hits.Hits[len(ans.Hits.Hits)-1].Sort
	}
	if len(body) > 0 {
		bodies = append(bodies, body)
	}
	return bodies, n, nil
}

// createLike creates index with the mappings and settings of alias's
// index, not refreshed until the end, as a full build's generation.
func (s *openSearchSide) createLike(ctx context.Context, alias, index string) error {
	var got map[string]struct {
		Mappings json.RawMessage `json:"mappings"`
		Settings struct {
			Index map[string]any `json:"index"`
		} `json:"settings"`
	}
	if err := s.getJSON(ctx, "/"+alias, nil, &got); err != nil {
		return err
	}
	for _, g := range got {
		settings := map[string]any{"refresh_interval": "-1"}
		for _, k := range []string{"number_of_shards", "number_of_replicas", "gc_deletes", "analysis", "max_result_window"} {
			if v, ok := g.Settings.Index[k]; ok {
				settings[k] = v
			}
		}
		body, err := json.Marshal(map[string]any{"settings": map[string]any{"index": settings}, "mappings": g.Mappings})
		if err != nil {
			return err
		}
		_ = s.ok(ctx, http.MethodDelete, "/"+index, nil) // a copy left by an earlier run in the same directory
		return s.ok(ctx, http.MethodPut, "/"+index, body)
	}
	return fmt.Errorf("no index behind %s", alias)
}

// bulk posts one bulk body and fails unless every item was indexed. A
// body the node refuses for load (429: its circuit breaker, before it
// indexes anything) is sent again after a wait that doubles, as the
// writer sends its items again (opensearch.DefaultRetries,
// DefaultRetryWait).
func (s *openSearchSide) bulk(ctx context.Context, client *http.Client, index string, body []byte) error {
	wait := opensearch.DefaultRetryWait
	for try := 0; ; try++ {
		status, answer, err := s.post(ctx, client, index, body)
		if err != nil {
			return err
		}
		if status == http.StatusTooManyRequests && try < opensearch.DefaultRetries {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return ctx.Err()
			}
			wait *= 2
			continue
		}
		if status != http.StatusOK || bytes.Contains(answer[:min(len(answer), 64)], []byte(`"errors":true`)) {
			return fmt.Errorf("bulk into %s: %d %.300s", index, status, answer)
		}
		return nil
	}
}

func (s *openSearchSide) post(ctx context.Context, client *http.Client, index string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.cluster.URL()+"/"+index+"/_bulk", bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/x-ndjson")
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	return resp.StatusCode, answer, err
}

// getJSON sends a request (a GET, or a POST of body marshalled when not
// nil) and decodes a 200's answer into out.
func (s *openSearchSide) getJSON(ctx context.Context, path string, body, out any) error {
	method := http.MethodGet
	if body != nil {
		method = http.MethodPost
	}
	status, raw, err := s.cluster.Do(ctx, method, path, body)
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return fmt.Errorf("%s %s: %d %.300s", method, path, status, raw)
	}
	return json.Unmarshal(raw, out)
}

// ok sends a request and fails unless it is answered 2xx.
func (s *openSearchSide) ok(ctx context.Context, method, path string, body []byte) error {
	var b any
	if body != nil {
		b = body
	}
	status, raw, err := s.cluster.Do(ctx, method, path, b)
	if err != nil {
		return err
	}
	if status/100 != 2 {
		return fmt.Errorf("%s %s: %d %.300s", method, path, status, raw)
	}
	return nil
}
