package api_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/api"
	"github.com/ontoindex/ontoindex/api/serverconfig"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
	"github.com/ontoindex/ontoindex/objects"
)

// slowObjects is the size of the type whose regex search is slow: each
// object has a long keyword value the pattern's automaton reads in full.
const slowObjects = 100_000

// mustSlowServe serves a type Item whose search slowSearch
// scans every value: its run is long enough to be cancelled midway.
func mustSlowServe(tb testing.TB) *served {
	tb.Helper()
	ctx := context.Background()
	w := icebergtest.MustWarehouse(tb)
	sc := iceberg.NewSchemaWithIdentifiers(1, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "code", Type: iceberg.PrimitiveTypes.String},
	)
	tbl, err := w.CreateTable(ctx, "slow.items", sc, nil)
	if err != nil {
		tb.Fatal(err)
	}
	rows := make([]icebergtest.Row, slowObjects)
	letters := []byte("abcdefghijklmnopqrstuvwxy") // no z: slowSearch matches nothing
	var code [400]byte
	for i := range rows {
		h := uint64(i+1) * 0x9E3779B97F4A7C15
		for j := range code {
			h ^= h << 13
			h ^= h >> 7
			h ^= h << 17
			code[j] = letters[h%uint64(len(letters))]
		}
		rows[i] = icebergtest.Row{"id": int64(i), "code": string(code[:])}
	}
	if err := tbl.Append(ctx, rows); err != nil {
		tb.Fatal(err)
	}
	cfg := indexertest.Config(tb, w, objects.TypeSpec{APIName: "Item", Table: "warehouse.slow.items",
		Properties: map[string]objects.PropertySpec{"id": {Column: "id"}, "code": {Column: "code", Search: objects.SearchKeyword}}})
	cfg.Ontology.APIName = "demo"
	cfg.Build.ChunkRows = slowObjects
	cfg.Auth.Tokens = []serverconfig.Token{{Name: "app", Token: appToken, ObjectTypes: []string{"*"}}}
	if err := cfg.Validate(); err != nil {
		tb.Fatal(err)
	}
	ix := indexertest.Open(tb, cfg)
	if _, err := ix.Build(ctx, "Item", indexer.BuildOptions{}); err != nil {
		tb.Fatal(err)
	}
	return serveEnv(tb, &testEnv{ix: ix, cfg: cfg})
}

// slowSearch is a search that matches no value, and each of its eight
// patterns' automata reads every value to its end. One pattern (ten steps
// of state) read the 40 MB in 50-80 ms, too short a window to abandon the
// request in on a loaded machine (CI failed it).
func slowSearch() string {
	var or []string
	for i := range 8 {
		var re strings.Builder
		for j := range 10 {
			re.WriteString(".*" + string(rune('a'+(i+j*3)%25)))
		}
		or = append(or, `{"type": "regex", "field": "code", "value": "`+re.String()+`.*z"}`)
	}
	return `{"pageSize": 10, "where": {"type": "or", "value": [` + strings.Join(or, ", ") + `]}}`
}

// TestServer_Serve_clientGoesAway checks that a client that goes away
// ends its request's work: the same search, run to its end once, and
// abandoned by its client midway once, whose request then ends with the
// client-closed status (the engine stopped with the request's context,
// since a search that ran on would have answered 200) and long before the
// whole search's time.
func TestServer_Serve_clientGoesAway(t *testing.T) {
	s := mustSlowServe(t)
	path := "/api/v2/ontologies/demo/objects/Item/search"
	body := []byte(slowSearch())
	post := func(ctx context.Context) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+s.addr+path, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+appToken)
		req.Header.Set("Content-Type", "application/json")
		return http.DefaultClient.Do(req)
	}
	resp, err := post(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	whole := s.waitRequest(t, path)
	if resp.StatusCode != http.StatusOK || whole["status"] != "200" {
		t.Fatalf("the whole search: status %d, log %v", resp.StatusCode, whole)
	}

	// Abandoned three times: on a loaded machine one abandoned request can
	// be scheduled late, but work that never stops is slower every time.
	var fastest map[string]string
	for range 3 {
		abandoned := s.abandon(t, post, path)
		if abandoned["status"] != "499" {
			t.Fatalf("the abandoned search ended with %v, want status 499 (the client closed it)", abandoned)
		}
		if fastest == nil || ms(t, abandoned) < ms(t, fastest) {
			fastest = abandoned
		}
	}
	t.Logf("whole search %s ms, fastest abandoned %s ms", whole["ms"], fastest["ms"])
	if ms(t, fastest) >= ms(t, whole) {
		t.Fatalf("each abandoned search took at least %s ms, the whole one %s ms: the work did not stop", fastest["ms"], whole["ms"])
	}
}

// abandon sends a request with post and cancels it once the server serves
// it, and returns the request's log line.
func (s *served) abandon(t *testing.T, post func(context.Context) (*http.Response, error), path string) map[string]string {
	t.Helper()
	for s.metric(t, api.MetricHTTPInFlight) > 0 { // the previous request is done
		time.Sleep(100 * time.Microsecond)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		resp, err := post(ctx)
		if err == nil {
			resp.Body.Close()
			err = fmt.Errorf("answered %d", resp.StatusCode)
		}
		done <- err
	}()
	for s.metric(t, api.MetricHTTPInFlight) < 1 { // the request is being served
		time.Sleep(100 * time.Microsecond)
	}
	cancel()
	if err := <-done; err == nil || ctx.Err() == nil {
		t.Fatalf("the client's request: %v", err)
	}
	return s.waitRequest(t, path)
}

func ms(tb testing.TB, line map[string]string) float64 {
	tb.Helper()
	var v float64
	if _, err := fmt.Sscan(line["ms"], &v); err != nil {
		tb.Fatalf("ms of %v: %v", line, err)
	}
	return v
}
