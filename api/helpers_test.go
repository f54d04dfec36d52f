package api_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/api"
	"github.com/ontoindex/ontoindex/api/serverconfig"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/apidemo"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
)

// Tokens of the test config.
const (
	appToken     = "app-token-0123456789"
	limitedToken = "limited-token-0123456789" // configured by its SHA-256 digest; sees Assignment only
	adminToken   = "admin-token-0123456789"
	ontologyPath = "/api/v2/ontologies/demo"
)

// testEnv is a real server over objects the real engine built from real
// Iceberg tables.
type testEnv struct {
	ix   *indexer.Indexer
	cfg  *config.Config
	srv  *httptest.Server
	api  *api.Server
	logs *bytes.Buffer
	w    *icebergtest.Warehouse // the tables behind the types
}

func sha256Hex(s string) string {
	d := sha256.Sum256([]byte(s))
	return hex.EncodeToString(d[:])
}

// mustEnv builds the demo warehouse, builds Employee and Assignment, and
// serves them. edit may change the config before the server starts.
func mustEnv(tb testing.TB, edit ...func(*config.Config)) *testEnv {
	tb.Helper()
	ctx := context.Background()
	w := icebergtest.MustWarehouse(tb)
	if err := apidemo.Create(ctx, w); err != nil {
		tb.Fatal(err)
	}
	cfg := indexertest.Config(tb, w, apidemo.Specs("warehouse")...)
	cfg.Ontology.APIName = "demo"
	cfg.Ontology.RID = "ri.ontology.main.ontology.demo"
	cfg.Ontology.DisplayName = "Demo"
	cfg.Ontology.Description = "The demo airline"
	cfg.Auth.Tokens = []serverconfig.Token{
		{Name: "app", Token: appToken, ObjectTypes: []string{"*"}},
		{Name: "limited", SHA256: sha256Hex(limitedToken), ObjectTypes: []string{"Assignment"}},
		{Name: "ops", Token: adminToken, ObjectTypes: []string{"*"}, Admin: true},
	}
	for _, fn := range edit {
		fn(cfg)
	}
	if err := cfg.Validate(); err != nil {
		tb.Fatal(err)
	}
	ix := indexertest.Open(tb, cfg)
	for _, name := range apidemo.BuiltTypes() {
		if _, err := ix.Build(ctx, name, indexer.BuildOptions{}); err != nil {
			tb.Fatalf("build %s: %v", name, err)
		}
	}
	logs := &bytes.Buffer{}
	s, err := api.New(ix, api.Options{Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	tb.Cleanup(srv.Close)
	return &testEnv{ix: ix, cfg: cfg, srv: srv, api: s, logs: logs, w: w}
}

// mustFuzzEnv is mustEnv for fuzz targets, whose handler logs nothing:
// millions of inputs neither wait for the debug log nor grow it in memory.
func mustFuzzEnv(tb testing.TB) *testEnv {
	tb.Helper()
	e := mustEnv(tb)
	s, err := api.New(e.ix, api.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		tb.Fatal(err)
	}
	e.api = s
	return e
}

// response is a decoded response.
type response struct {
	status int
	body   []byte
	header http.Header
}

func (r response) json(tb testing.TB) map[string]any {
	tb.Helper()
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		tb.Fatalf("decode %s: %v", r.body, err)
	}
	return m
}

// do sends a request with a token ("" for none).
func (e *testEnv) do(tb testing.TB, method, path, token string, body any) response {
	tb.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		js, err := json.Marshal(b)
		if err != nil {
			tb.Fatal(err)
		}
		rd = bytes.NewReader(js)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	if err != nil {
		tb.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return response{status: resp.StatusCode, body: raw, header: resp.Header}
}

// ok sends a request with the app token and expects 200.
func (e *testEnv) ok(tb testing.TB, method, path string, body any) map[string]any {
	tb.Helper()
	r := e.do(tb, method, path, appToken, body)
	if r.status != http.StatusOK {
		tb.Fatalf("%s %s: status %d: %s", method, path, r.status, r.body)
	}
	return r.json(tb)
}

// fail sends a request with the app token and expects a Conjure error.
func (e *testEnv) fail(tb testing.TB, method, path string, body any, status int, name string) map[string]any {
	tb.Helper()
	return e.failAs(tb, appToken, method, path, body, status, name)
}

func (e *testEnv) failAs(tb testing.TB, token, method, path string, body any, status int, name string) map[string]any {
	tb.Helper()
	r := e.do(tb, method, path, token, body)
	m := r.json(tb)
	if r.status != status || m["errorName"] != name {
		tb.Fatalf("%s %s: got %d %v, want %d %s: %s", method, path, r.status, m["errorName"], status, name, r.body)
	}
	for _, k := range []string{"errorCode", "errorName", "errorInstanceId", "parameters"} {
		if _, ok := m[k]; !ok {
			tb.Fatalf("%s %s: error has no %s: %s", method, path, k, r.body)
		}
	}
	return m
}

// search posts a search body and returns the data and the whole response.
func (e *testEnv) search(tb testing.TB, typ string, body any) ([]map[string]any, map[string]any) {
	tb.Helper()
	m := e.ok(tb, http.MethodPost, ontologyPath+"/objects/"+typ+"/search", body)
	return objectsOf(tb, m), m
}

func objectsOf(tb testing.TB, m map[string]any) []map[string]any {
	tb.Helper()
	data, ok := m["data"].([]any)
	if !ok {
		tb.Fatalf("no data in %v", m)
	}
	out := make([]map[string]any, len(data))
	for i, d := range data {
		out[i] = d.(map[string]any)
	}
	return out
}

// ids returns the primary keys of objects, as text.
func ids(objs []map[string]any) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = fmt.Sprint(o["__primaryKey"])
	}
	return out
}

// where parses a JSON where clause.
func where(s string) json.RawMessage { return json.RawMessage(s) }

// employeeIDs lists the ids of the employee rows that keep returns true
// for, in primary-key order.
func employeeIDs(keep func(r icebergtest.Row) bool) []string {
	var out []string
	for _, r := range apidemo.EmployeeRows() {
		if keep(r) {
			out = append(out, fmt.Sprint(r["id"]))
		}
	}
	return out
}

type indexerConfig = config.Config
