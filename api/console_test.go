package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/api"
	"github.com/ontoindex/ontoindex/console"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/internal/testkit/apidemo"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

// TestServer_console: Options.Console serves the console at / and
// /console/*; without it those paths are not endpoints.
func TestServer_console(t *testing.T) {
	e := mustEnv(t)
	if r := e.do(t, http.MethodGet, "/", "", nil); r.status != http.StatusNotFound || !strings.Contains(string(r.body), "ApiNotFound") {
		t.Errorf("GET / without a console: %d %s", r.status, r.body)
	}
	s, err := api.New(e.ix, api.Options{Console: console.Handler()})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	for path, want := range map[string]string{"/": "text/html; charset=utf-8", "/console/js/app.js": "text/javascript; charset=utf-8"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != want || resp.Header.Get("Content-Security-Policy") != console.ContentSecurityPolicy {
			t.Errorf("GET %s: %d %v", path, resp.StatusCode, resp.Header)
		}
	}
	// The API beside it is unchanged: it still needs a token.
	resp, err := http.Get(srv.URL + ontologyPath + "/objects/Employee")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("objects without a token: %d", resp.StatusCode)
	}
}

// TestOps_whoami: the token's name and whether it is admin, never the
// token.
func TestOps_whoami(t *testing.T) {
	e := mustEnv(t)
	for token, want := range map[string]string{
		appToken:     `{"name":"app","admin":false}`,
		adminToken:   `{"name":"ops","admin":true}`,
		limitedToken: `{"name":"limited","admin":false}`,
	} {
		r := e.do(t, http.MethodGet, "/api/indexer/v1/whoami", token, nil)
		if r.status != 200 || strings.TrimSpace(string(r.body)) != want {
			t.Errorf("whoami: %d %s, want %s", r.status, r.body, want)
		}
	}
	e.failAs(t, "", http.MethodGet, "/api/indexer/v1/whoami", nil, 401, "MissingCredentials")
	e.failAs(t, "wrong-token-0123456789", http.MethodGet, "/api/indexer/v1/whoami", nil, 401, "InvalidCredentials")
	anon := mustEnv(t, func(c *indexerConfig) { c.Auth.Tokens = nil })
	if r := anon.do(t, http.MethodGet, "/api/indexer/v1/whoami", "", nil); r.status != 200 || strings.TrimSpace(string(r.body)) != `{"name":"anonymous","admin":true}` {
		t.Errorf("anonymous whoami: %d %s", r.status, r.body)
	}
}

// TestGetObject_snapshotHeader: a get names the snapshot the object was
// read at, the checkpoint of the serving generation, and follows builds.
func TestGetObject_snapshotHeader(t *testing.T) {
	ctx := context.Background()
	e := mustEnv(t)
	header := func() (string, string) {
		t.Helper()
		r := e.do(t, http.MethodGet, ontologyPath+"/objects/Employee/20", appToken, nil)
		if r.status != http.StatusOK {
			t.Fatalf("get: %d %s", r.status, r.body)
		}
		return r.header.Get(api.SnapshotHeader), fmt.Sprint(r.json(t)["title"])
	}
	checkpoint := func() string {
		cp, err := e.ix.Checkpoint("Employee")
		if err != nil || cp == nil {
			t.Fatalf("checkpoint %v, %v", cp, err)
		}
		return strconv.FormatInt(cp.SnapshotID, 10)
	}
	if got, _ := header(); got != checkpoint() {
		t.Fatalf("%s = %q, want the checkpoint %s", api.SnapshotHeader, got, checkpoint())
	}
	before := checkpoint()

	w, err := icebergtest.NewWarehouse(e.cfg.Catalogs["warehouse"].Properties["warehouse"])
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := w.LoadTable(ctx, "demo.employees")
	if err != nil {
		t.Fatal(err)
	}
	row := apidemo.EmployeeRows()[1]
	row["title"] = "Captain"
	if err := tbl.Overwrite(ctx, iceberg.EqualTo(iceberg.Reference("id"), int64(20)), []icebergtest.Row{row}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.ix.Build(ctx, "Employee", indexer.BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	got, title := header()
	if got == before || got != checkpoint() || got != strconv.FormatInt(tbl.T.CurrentSnapshot().SnapshotID, 10) || title != "Captain" {
		t.Errorf("after the build: %s = %q (before %s), title %q", api.SnapshotHeader, got, before, title)
	}
	// Listings carry no such header.
	if r := e.do(t, http.MethodGet, ontologyPath+"/objects/Employee?pageSize=1", appToken, nil); r.status != 200 || r.header.Get(api.SnapshotHeader) != "" {
		t.Errorf("a listing has %s", api.SnapshotHeader)
	}
}
