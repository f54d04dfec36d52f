package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/api"
	"github.com/ontoindex/ontoindex/internal/testkit/apidemo"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/objects"
)

// nested returns a where clause nested depth levels deep.
func nested(depth int) string {
	return wrap(depth, `{"type":"not","value":`, `{"type":"eq","field":"dept","value":"Sales"}`, `}`)
}

// wrap returns inner inside depth-1 pairs of open and close, built in
// linear time (tests nest tens of thousands of levels).
func wrap(depth int, open, inner, close string) string {
	return strings.Repeat(open, depth-1) + inner + strings.Repeat(close, depth-1)
}

func TestLimits(t *testing.T) {
	e := mustEnv(t, func(c *indexerConfig) {
		c.Server.MaxBodyBytes = 2000
		c.Server.MaxWhereDepth = 5
		c.Server.MaxWhereClauses = 10
		c.Server.MaxQueryTerms = 2
	})
	search := ontologyPath + "/objects/Employee/search"
	t.Run("body size", func(t *testing.T) {
		body := `{"where":{"type":"eq","field":"dept","value":"` + strings.Repeat("x", 2000) + `"}}`
		m := e.fail(t, http.MethodPost, search, body, 413, "RequestEntityTooLarge")
		if m["errorCode"] != "REQUEST_ENTITY_TOO_LARGE" {
			t.Fatalf("got %v", m)
		}
		// Without Content-Length the limit holds while reading.
		req, _ := http.NewRequest(http.MethodPost, e.srv.URL+search, io.MultiReader(strings.NewReader(body)))
		req.ContentLength = -1
		req.Header.Set("Authorization", "Bearer "+appToken)
		resp, err := e.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 413 {
			t.Fatalf("chunked body: status %d", resp.StatusCode)
		}
		e.ok(t, http.MethodPost, search, `{"pageSize":1}`)
	})
	t.Run("where depth", func(t *testing.T) {
		e.ok(t, http.MethodPost, search, `{"where":`+nested(5)+`}`)
		e.fail(t, http.MethodPost, search, `{"where":`+nested(6)+`}`, 400, "WhereClauseTooComplex")
		e.fail(t, http.MethodPost, ontologyPath+"/objectSets/loadObjects", map[string]any{"objectSet": filter(filter(filter(base("Employee"), nested(3)), wSales), wSales)}, 400, "WhereClauseTooComplex")
	})
	t.Run("where clauses", func(t *testing.T) {
		vals := make([]string, 9)
		for i := range vals {
			vals[i] = fmt.Sprint(i)
		}
		e.ok(t, http.MethodPost, search, `{"where":{"type":"in","field":"age","value":[`+strings.Join(vals, ",")+`]}}`)
		e.fail(t, http.MethodPost, search, `{"where":{"type":"in","field":"age","value":[`+strings.Join(vals, ",")+`,9]}}`, 400, "WhereClauseTooComplex")
		ors := strings.Repeat(`{"type":"eq","field":"dept","value":"Sales"},`, 10)
		e.fail(t, http.MethodPost, search, `{"where":{"type":"or","value":[`+strings.TrimSuffix(ors, ",")+`]}}`, 400, "WhereClauseTooComplex")
	})
	t.Run("query terms", func(t *testing.T) {
		// name terms starting with "a": ada, alan, allen: more than 2.
		e.fail(t, http.MethodPost, search, `{"where":{"type":"startsWith","field":"name","value":"a"}}`, 400, "QueryTooExpensive")
		e.fail(t, http.MethodPost, search, `{"where":{"type":"containsAllTermsInOrderPrefixLastTerm","field":"bio","value":"the a"}}`, 400, "QueryTooExpensive")
		e.ok(t, http.MethodPost, search, `{"where":{"type":"startsWith","field":"name","value":"ada"}}`)
	})
	t.Run("wildcards match any number of values", func(t *testing.T) {
		// A leading wildcard on a keyword matching more values than
		// maxQueryTerms (3 depts of 4) is an ordinary query.
		got, _ := e.search(t, "Employee", `{"where":{"type":"wildcard","field":"dept","value":"*a*"}}`)
		want := employeeIDs(func(r icebergtest.Row) bool { return strings.Contains(r["dept"].(string), "a") })
		if !slices.Equal(ids(got), want) {
			t.Fatalf("got %v, want %v", ids(got), want)
		}
		got, _ = e.search(t, "Employee", `{"where":{"type":"wildcard","field":"name","value":"*"}}`)
		if len(got) != apidemo.Employees {
			t.Fatalf("wildcard * on name: %d objects, want %d", len(got), apidemo.Employees)
		}
		m := e.ok(t, http.MethodPost, ontologyPath+"/objects/Employee/aggregate", `{"aggregation":[{"type":"count"}],"groupBy":[],"where":{"type":"regex","field":"name","value":".*n"}}`)
		n := 0
		for _, r := range apidemo.EmployeeRows() {
			if strings.HasSuffix(r["name"].(string), "n") {
				n++
			}
		}
		if c := m["data"].([]any)[0].(map[string]any)["metrics"].([]any)[0].(map[string]any)["value"]; fmt.Sprint(c) != fmt.Sprint(n) {
			t.Fatalf("regex .*n on name counts %v, want %d", c, n)
		}
	})
}

func TestLimits_requestTimeout(t *testing.T) {
	e := mustEnv(t, func(c *indexerConfig) { c.Server.RequestTimeout = time.Nanosecond })
	m := e.fail(t, http.MethodPost, ontologyPath+"/objects/Employee/search", `{"where":{"type":"eq","field":"dept","value":"Sales"}}`, 500, "RequestTimeout")
	if m["errorCode"] != "TIMEOUT" {
		t.Fatalf("got %v", m)
	}
	e.fail(t, http.MethodPost, ontologyPath+"/objects/Employee/aggregate", `{"aggregation":[],"groupBy":[],"where":{"type":"eq","field":"dept","value":"Sales"}}`, 500, "RequestTimeout")
}

// failingEngine fails to resolve object types, with an error that holds
// internals.
type failingEngine struct{ engineWithConfig }

func (failingEngine) ObjectType(context.Context, string) (*objects.Type, error) {
	return nil, errors.New("open /var/secret/state.db: disk on fire")
}

func TestErrors_internalSaysNothing(t *testing.T) {
	e := mustEnv(t)
	logs := &bytes.Buffer{}
	s, err := api.New(failingEngine{engineWithConfig{e.ix, e.cfg}}, api.Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodGet, srv.URL+ontologyPath+"/objectTypes/Employee", nil)
	req.Header.Set("Authorization", "Bearer "+appToken)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 500 || m["errorName"] != "Internal" || m["errorCode"] != "INTERNAL" {
		t.Fatalf("got %d %s", resp.StatusCode, body)
	}
	if params := m["parameters"].(map[string]any); len(params) != 0 || strings.Contains(string(body), "secret") {
		t.Fatalf("internal error says too much: %s", body)
	}
	if !strings.Contains(logs.String(), m["errorInstanceId"].(string)) || !strings.Contains(logs.String(), "disk on fire") {
		t.Fatalf("the log does not hold the error and its instance id:\n%s", logs)
	}
}
