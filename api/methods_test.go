package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/objects"
)

// mustWordsEnv is mustEnv with Word served too: a type keyed by a string,
// with objects whose keys are the names of the POST endpoints beside GET
// /objects/{objectType}/{primaryKey}.
func mustWordsEnv(tb testing.TB) *testEnv {
	tb.Helper()
	ctx := context.Background()
	words := func(cfg *config.Config) {
		w, err := icebergtest.NewWarehouse(cfg.Catalogs["warehouse"].Properties["warehouse"])
		if err != nil {
			tb.Fatal(err)
		}
		sc := iceberg.NewSchemaWithIdentifiers(1, []int{1}, iceberg.NestedField{ID: 1, Name: "word", Type: iceberg.PrimitiveTypes.String, Required: true})
		tbl, err := w.CreateTable(ctx, "demo.words", sc, nil)
		if err != nil {
			tb.Fatal(err)
		}
		if err := tbl.Append(ctx, []icebergtest.Row{{"word": "search"}, {"word": "hello"}}); err != nil {
			tb.Fatal(err)
		}
		cfg.ObjectTypes = append(cfg.ObjectTypes, objects.TypeSpec{APIName: "Word", Table: "warehouse.demo.words"})
	}
	e := mustEnv(tb, words)
	if _, err := e.ix.Build(ctx, "Word", indexer.BuildOptions{}); err != nil {
		tb.Fatal(err)
	}
	return e
}

// allow sends a request the path does not take and checks the 405: its
// Allow header and the code of the table.
func (e *testEnv) allow(t *testing.T, method, path string, body any, want string) map[string]any {
	t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, nil)
	if body != nil {
		req, err = http.NewRequest(method, e.srv.URL+path, strings.NewReader(body.(string)))
	}
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+appToken)
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != want {
		t.Fatalf("%s %s: status %d, Allow %q; want 405, Allow %q", method, path, resp.StatusCode, resp.Header.Get("Allow"), want)
	}
	m := e.fail(t, method, path, body, http.StatusMethodNotAllowed, "MethodNotAllowed")
	if m["errorCode"] != "METHOD_NOT_ALLOWED" {
		t.Fatalf("%s %s: code %v", method, path, m["errorCode"])
	}
	return m
}

func TestRequests_methods(t *testing.T) {
	e := mustWordsEnv(t)
	objs := ontologyPath + "/objects/"
	t.Run("405 lists the methods of the path", func(t *testing.T) {
		e.allow(t, http.MethodDelete, objs+"Employee/10", nil, "GET")
		e.allow(t, http.MethodPost, objs+"Employee/10", "{}", "GET")
		e.allow(t, http.MethodGet, ontologyPath+"/objectSets/loadObjects", nil, "POST")
		// search is also where GET reads an object keyed "search".
		e.allow(t, http.MethodPut, objs+"Employee/search", "{}", "GET, POST")
	})
	t.Run("GET of a POST endpoint", func(t *testing.T) {
		// Employee keys are integers and Assignment keys have two parts:
		// "search" names no object, so the path takes POST only.
		for _, path := range []string{objs + "Employee/search", objs + "Employee/count", objs + "Assignment/aggregate"} {
			m := e.allow(t, http.MethodGet, path, nil, "POST")
			if msg := m["message"].(string); !strings.Contains(msg, "POST "+path) {
				t.Errorf("GET %s: %q does not say to POST", path, msg)
			}
		}
		// Word keys are strings: GET reads the object keyed "search", and
		// says POST when there is none.
		if m := e.ok(t, http.MethodGet, objs+"Word/search", nil); m["__primaryKey"] != "search" {
			t.Fatalf("GET Word/search: %v", m)
		}
		m := e.fail(t, http.MethodGet, objs+"Word/count", nil, 404, "ObjectNotFound")
		if msg := m["message"].(string); !strings.Contains(msg, "POST "+objs+"Word/count") {
			t.Errorf("GET Word/count: %q does not say to POST", msg)
		}
		e.fail(t, http.MethodGet, objs+"Word/nope", nil, 404, "ObjectNotFound")
	})
	t.Run("pageSize names its range", func(t *testing.T) {
		const want = "pageSize must be an integer from 1 to 10000"
		for _, body := range []string{`{"pageSize":1e30}`, `{"pageSize":1.5}`, `{"pageSize":"ten"}`, `{"pageSize":0}`, `{"pageSize":10001}`, `{"pageSize":true}`} {
			m := e.fail(t, http.MethodPost, objs+"Employee/search", body, 400, "InvalidPageSize")
			if msg := m["message"].(string); !strings.Contains(msg, want) {
				t.Errorf("%s: %q, want %q", body, msg, want)
			}
		}
		m := e.fail(t, http.MethodPost, ontologyPath+"/objectSets/loadObjects", `{"objectSet":{"type":"base","objectType":"Employee"},"pageSize":-1}`, 400, "InvalidPageSize")
		if msg := m["message"].(string); !strings.Contains(msg, want) {
			t.Errorf("loadObjects: %q", msg)
		}
		for _, q := range []string{"ten", "1e3", "0"} {
			m := e.fail(t, http.MethodGet, objs+"Employee?pageSize="+q, nil, 400, "InvalidPageSize")
			if msg := m["message"].(string); !strings.Contains(msg, want) {
				t.Errorf("?pageSize=%s: %q", q, msg)
			}
		}
		if objs, _ := e.search(t, "Employee", `{"pageSize":2.0}`); len(objs) != 2 {
			t.Fatalf("pageSize 2.0: %d objects", len(objs))
		}
	})
}

// TestRequests_typeErrors checks that a body value of the wrong JSON type
// is described as JSON has it: an integer field is an integer, and the
// value is the one sent.
func TestRequests_typeErrors(t *testing.T) {
	e := mustEnv(t)
	agg := ontologyPath + "/objects/Employee/aggregate"
	for body, want := range map[string]string{
		`{"aggregation":[],"groupBy":[{"type":"exact","field":"dept","maxGroupCount":1e30}]}`:   "groupBy: field maxGroupCount must be an integer, not 1e30",
		`{"aggregation":[],"groupBy":[{"type":"exact","field":"dept","maxGroupCount":"many"}]}`: "groupBy: field maxGroupCount must be an integer, not a string",
		`{"aggregation":[],"groupBy":[{"type":"fixedWidth","field":"age","fixedWidth":true}]}`:  "groupBy: field fixedWidth must be a number, not a boolean",
	} {
		m := e.fail(t, http.MethodPost, agg, body, 400, "MalformedRequestBody")
		if r := m["parameters"].(map[string]any)["reason"]; r != want {
			t.Errorf("%s: reason %q, want %q", body, r, want)
		}
	}
}
