//go:build integration_opensearch

package api_test

import (
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/opensearchtest"
	"github.com/ontoindex/ontoindex/objects"
)

// TestServer_openSearchBackend serves the demo with Employee and
// Assignment indexed into an OpenSearch cluster, beside the same demo in
// the embedded index: the API's answers (every page of searches, their
// totals, aggregations, gets, links) are the same, whether the backend's
// types keep the embedded index or not; without it, relevance order is
// refused by name.
func TestServer_openSearchBackend(t *testing.T) {
	c := opensearchtest.Must(t, opensearchtest.Options{})
	embedded := mustEnv(t, assignmentsLink)
	for _, mode := range []string{config.EmbeddedIndexFull, config.EmbeddedIndexNone} {
		t.Run("embeddedIndex "+mode, func(t *testing.T) {
			checkBackendServer(t, c, embedded, mode)
		})
	}
}

// TestStream_openSearchNoIndex: the subscriptions of a type whose
// backend keeps no embedded index follow its builds as those of a type in
// the embedded index do (every set as its changes make it is the set
// loadObjects returns), from the commits' snapshots of the changed
// objects.
func TestStream_openSearchNoIndex(t *testing.T) {
	c := opensearchtest.Must(t, opensearchtest.Options{})
	checkStreamChanges(t, mustStreamEnv(t, func(cfg *config.Config) {
		cfg.Backends = map[string]config.Backend{"cluster": {Type: config.BackendOpenSearch, URLs: c.URLs(), IndexPrefix: "stream-",
			Replicas: new(0), EmbeddedIndex: config.EmbeddedIndexNone}}
		for i := range cfg.ObjectTypes {
			if cfg.ObjectTypes[i].APIName == "Employee" {
				cfg.ObjectTypes[i].Backend = "cluster"
			}
		}
	}))
}

// allPages is the objects of every page of a listing at endpoint of
// objectSets.
func allPages(t *testing.T, e *testEnv, endpoint string, body map[string]any) []any {
	t.Helper()
	var out []any
	for token := ""; ; {
		b := maps.Clone(body)
		if token != "" {
			b["pageToken"] = token
		}
		m := e.ok(t, http.MethodPost, ontologyPath+"/objectSets/"+endpoint, b)
		data, _ := m["data"].([]any)
		out = append(out, data...)
		if token, _ = m["nextPageToken"].(string); token == "" {
			return out
		}
	}
}

// assignmentsLink links Assignment to its Employee (employee), and back
// (assignments).
func assignmentsLink(cfg *config.Config) {
	for i := range cfg.ObjectTypes {
		if cfg.ObjectTypes[i].APIName == "Assignment" {
			cfg.ObjectTypes[i].Links = []objects.LinkSpec{{APIName: "employee", Target: "Employee", ForeignKey: "emp_id", ReverseAPIName: "assignments"}}
		}
	}
}

// checkBackendServer compares the demo of the embedded index with one
// whose Employee and Assignment are in the cluster, of embeddedIndex mode.
func checkBackendServer(t *testing.T, c *opensearchtest.Cluster, embedded *testEnv, mode string) {
	backend := mustEnv(t, assignmentsLink, func(cfg *config.Config) {
		cfg.Backends = map[string]config.Backend{"cluster": {Type: config.BackendOpenSearch, URLs: c.URLs(), IndexPrefix: "api-" + mode + "-",
			Replicas: new(0), EmbeddedIndex: mode}}
		for i := range cfg.ObjectTypes {
			if name := cfg.ObjectTypes[i].APIName; name == "Employee" || name == "Assignment" {
				cfg.ObjectTypes[i].Backend = "cluster"
			}
		}
	})

	searches := []string{
		`{}`,
		`{"where":{"type":"eq","field":"dept","value":"eng"}}`,
		`{"where":{"type":"gt","field":"age","value":30},"orderBy":{"fields":[{"field":"age","direction":"desc"}]}}`,
		`{"where":{"type":"or","value":[{"type":"isNull","field":"title","value":true},{"type":"lte","field":"rating","value":3.5}]},"orderBy":{"fields":[{"field":"hired"}]}}`,
		`{"where":{"type":"not","value":{"type":"eq","field":"active","value":true}},"orderBy":{"fields":[{"field":"dept","direction":"asc"},{"field":"updated","direction":"desc"}]}}`,
		`{"where":{"type":"in","field":"dept","value":["eng","ops"]},"orderBy":{"fields":[{"field":"big","direction":"desc"}]}}`,
		`{"where":{"type":"startsWith","field":"name","value":"A"}}`,
		`{"where":{"type":"containsAnyTerm","field":"bio","value":"kubernetes rust"}}`,
		`{"where":{"type":"wildcard","field":"dept","value":"*n*"},"orderBy":{"fields":[{"field":"salary","direction":"desc"}]}}`,
		`{"where":{"type":"and","value":[{"type":"gte","field":"hired","value":"2020-01-01"},{"type":"contains","field":"tags","value":"remote"}]}}`,
	}
	for i, body := range searches {
		for _, size := range []int{1, 3, 100} {
			t.Run(fmt.Sprintf("search %d, pageSize %d", i, size), func(t *testing.T) {
				pages(t, embedded, backend, "Employee", body, size)
			})
		}
	}
	t.Run("assignments", func(t *testing.T) {
		pages(t, embedded, backend, "Assignment", `{"orderBy":{"fields":[{"field":"hours","direction":"desc"}]}}`, 2)
	})
	if st, _ := backend.ix.Status("Employee"); st.Backend == nil || st.Backend.Fallbacks != 0 {
		t.Fatalf("Employee's backend status %+v: every search should come from the backend", st.Backend)
	}

	aggregates := []map[string]any{
		{"aggregation": []any{metric("count", "")}},
		{"aggregation": []any{metric("count", ""), metric("avg", "age"), metric("max", "rating")}, "groupBy": []any{map[string]any{"type": "exact", "field": "dept"}}},
		{"aggregation": []any{metric("sum", "age"), metric("min", "hired")}, "groupBy": []any{map[string]any{"type": "exact", "field": "active"}},
			"where": map[string]any{"type": "gt", "field": "age", "value": 20}},
		{"aggregation": []any{metric("exactDistinct", "dept")}},
	}
	for i, body := range aggregates {
		path := ontologyPath + "/objects/Employee/aggregate"
		got, want := backend.ok(t, http.MethodPost, path, body), embedded.ok(t, http.MethodPost, path, body)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("aggregate %d:\nbackend  %v\nembedded %v", i, got, want)
		}
	}

	// Gets and listings (their page tokens differ: each backend's cursor).
	for _, path := range []string{"/objects/Employee/10", "/objects/Employee/1", "/objects/Employee?pageSize=4",
		"/objects/Employee/10/links/assignments", "/objects/Employee/20/links/assignments?pageSize=2", "/objects/Assignment/10,Apollo/links/employee"} {
		got, want := backend.do(t, http.MethodGet, ontologyPath+path, appToken, nil), embedded.do(t, http.MethodGet, ontologyPath+path, appToken, nil)
		g, w := got.json(t), want.json(t)
		for _, k := range []string{"errorInstanceId", "nextPageToken"} {
			delete(g, k)
			delete(w, k)
		}
		if got.status != want.status || !reflect.DeepEqual(g, w) {
			t.Errorf("GET %s:\nbackend  %d %s\nembedded %d %s", path, got.status, got.body, want.status, want.body)
		}
	}

	// Sets of several types merge the types' pages at any object's cursor;
	// derived properties read every object of the linked type.
	employee, assignment := map[string]any{"type": "base", "objectType": "Employee"}, map[string]any{"type": "base", "objectType": "Assignment"}
	sets := []struct {
		endpoint, name string
		body           map[string]any
	}{
		{"loadObjectsMultipleObjectTypes", "union", map[string]any{"objectSet": map[string]any{"type": "union", "objectSets": []any{employee, assignment}}, "pageSize": 5}},
		{"loadObjects", "derived", map[string]any{"objectSet": withProps(employee, map[string]any{"n": sel(pivot("assignments"), "count"),
			"h": sel(pivot("assignments"), "max", "selectedPropertyApiName", "hours")}), "pageSize": 7}},
	}
	for _, s := range sets {
		got, want := allPages(t, backend, s.endpoint, s.body), allPages(t, embedded, s.endpoint, s.body)
		if !reflect.DeepEqual(got, want) || len(got) == 0 {
			t.Errorf("%s:\nbackend  %v\nembedded %v", s.name, got, want)
		}
	}

	if mode == config.EmbeddedIndexNone {
		// Relevance order reads the embedded index of Employee.
		body := map[string]any{"where": map[string]any{"type": "containsAnyTerm", "field": "bio", "value": "rust"},
			"orderBy": map[string]any{"orderType": "relevance", "fields": []any{}}}
		got := backend.do(t, http.MethodPost, ontologyPath+"/objects/Employee/search", appToken, body)
		m := got.json(t)
		params, _ := m["parameters"].(map[string]any)
		if got.status != http.StatusConflict || m["errorName"] != "EmbeddedIndexNotKept" || params["objectType"] != "Employee" ||
			params["config"] != "backends.cluster.embeddedIndex" || params["read"] != "relevance order" {
			t.Errorf("relevance order of a type without an index: %d %s", got.status, got.body)
		}
		// A percentile the backend does not compute: the reason says so.
		got = backend.do(t, http.MethodPost, ontologyPath+"/objects/Employee/aggregate", appToken,
			map[string]any{"aggregation": []any{map[string]any{"type": "approximatePercentile", "field": "age", "approximatePercentile": 0.5}}})
		m = got.json(t)
		params, _ = m["parameters"].(map[string]any)
		if reason := fmt.Sprint(params["reason"]); got.status != http.StatusConflict || params["read"] != "this aggregation" ||
			!strings.Contains(reason, "not supported by the OpenSearch backend") || !strings.Contains(reason, "set backends.cluster.embeddedIndex to full") {
			t.Errorf("a percentile of a type without an index: %d %s", got.status, got.body)
		}
	}

	st := backend.do(t, http.MethodGet, "/api/indexer/v1/status/Employee", adminToken, nil).json(t)
	if b, ok := st["backend"].(map[string]any); !ok || b["backend"] != "cluster" || fmt.Sprint(b["writes"]) == "0" {
		t.Errorf("status of a backend type: %v", st["backend"])
	}
}

// pages compares every page of a search of typ on two servers: the
// objects and the totals; each server pages with its own tokens.
func pages(t *testing.T, a, b *testEnv, typ, body string, size int) {
	t.Helper()
	tokA, tokB := "", ""
	for page := 0; ; page++ {
		objsA, respA := a.search(t, typ, withPage(t, body, size, tokA))
		objsB, respB := b.search(t, typ, withPage(t, body, size, tokB))
		if !reflect.DeepEqual(objsA, objsB) || respA["totalCount"] != respB["totalCount"] {
			t.Fatalf("%s page %d:\nembedded %v %v\nbackend  %v %v", body, page, respA["totalCount"], ids(objsA), respB["totalCount"], ids(objsB))
		}
		tokA, _ = respA["nextPageToken"].(string)
		tokB, _ = respB["nextPageToken"].(string)
		if (tokA == "") != (tokB == "") {
			t.Fatalf("%s page %d: embedded next %q, backend next %q", body, page, tokA, tokB)
		}
		if tokA == "" {
			return
		}
	}
}

func withPage(t *testing.T, body string, size int, token string) map[string]any {
	t.Helper()
	m := (response{body: []byte(body)}).json(t)
	m["pageSize"] = size
	if token != "" {
		m["pageToken"] = token
	}
	return m
}
