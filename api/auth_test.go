package api_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/api"
	"github.com/ontoindex/ontoindex/api/serverconfig"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/leaktest"
)

func TestAuth(t *testing.T) {
	e := mustEnv(t)
	path := ontologyPath + "/objects/Employee"
	t.Run("missing token", func(t *testing.T) {
		for _, header := range []string{"", "Basic YWxhZGRpbjpvcGVuc2VzYW1l", "Bearer", "Bearer    "} {
			r := e.do(t, http.MethodGet, path, "", nil)
			if header != "" {
				req, _ := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
				req.Header.Set("Authorization", header)
				resp, err := e.srv.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				r.status = resp.StatusCode
			}
			if r.status != http.StatusUnauthorized {
				t.Fatalf("header %q: status %d", header, r.status)
			}
		}
		e.failAs(t, "", http.MethodGet, path, nil, 401, "MissingCredentials")
		e.failAs(t, "", http.MethodGet, "/api/v2/ontologies", nil, 401, "MissingCredentials")
	})
	t.Run("unknown token", func(t *testing.T) {
		m := e.failAs(t, "wrong-token-0123456789", http.MethodGet, path, nil, 401, "InvalidCredentials")
		if m["errorCode"] != "UNAUTHORIZED" {
			t.Fatalf("got %v", m)
		}
		e.failAs(t, appToken+"x", http.MethodGet, path, nil, 401, "InvalidCredentials")
	})
	t.Run("token by digest", func(t *testing.T) {
		r := e.do(t, http.MethodGet, ontologyPath+"/objects/Assignment", limitedToken, nil)
		if r.status != 200 {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
	})
	t.Run("hidden types are not found everywhere", func(t *testing.T) {
		m := e.do(t, http.MethodGet, ontologyPath+"/objectTypes", limitedToken, nil).json(t)
		if data := m["data"].([]any); len(data) != 1 || data[0].(map[string]any)["apiName"] != "Assignment" {
			t.Fatalf("limited token lists %v", m)
		}
		objs, _ := e.search(t, "Employee", map[string]any{"pageSize": 1})
		rid := objs[0]["__rid"].(string)
		agg := map[string]any{"aggregation": []any{map[string]any{"type": "count"}}, "groupBy": []any{}}
		for _, c := range []struct {
			method, path string
			body         any
		}{
			{http.MethodGet, ontologyPath + "/objectTypes/Employee", nil},
			{http.MethodGet, ontologyPath + "/objects/Employee", nil},
			{http.MethodGet, ontologyPath + "/objects/Employee/10", nil},
			{http.MethodPost, ontologyPath + "/objects/Employee/search", "{}"},
			{http.MethodPost, ontologyPath + "/objects/Employee/count", nil},
			{http.MethodPost, ontologyPath + "/objects/Employee/aggregate", agg},
			{http.MethodGet, ontologyPath + "/objects/Ghost", nil},
			{http.MethodPost, ontologyPath + "/objectSets/loadObjects", map[string]any{"objectSet": base("Employee")}},
			{http.MethodPost, ontologyPath + "/objectSets/loadObjects", map[string]any{"objectSet": map[string]any{"type": "static", "objects": []string{rid}}}},
			{http.MethodPost, ontologyPath + "/objectSets/loadObjects", map[string]any{"objectSet": setOf("union", base("Assignment"), base("Employee"))}},
			{http.MethodPost, ontologyPath + "/objectSets/aggregate", map[string]any{"objectSet": base("Employee"), "aggregation": []any{}, "groupBy": []any{}}},
		} {
			e.failAs(t, limitedToken, c.method, c.path, c.body, 404, "ObjectTypeNotFound")
		}
	})
	t.Run("logs name the token, never the token", func(t *testing.T) {
		logs := e.logs.String()
		if !strings.Contains(logs, "token=app") || !strings.Contains(logs, "token=limited") {
			t.Fatalf("logs do not name tokens:\n%s", logs)
		}
		for _, secret := range []string{appToken, limitedToken, adminToken} {
			if strings.Contains(logs, secret) {
				t.Fatalf("logs hold a token")
			}
		}
	})
}

func TestAuth_anonymous(t *testing.T) {
	e := mustEnv(t, func(c *indexerConfig) { c.Auth.Tokens = nil })
	r := e.do(t, http.MethodGet, ontologyPath+"/objects/Employee?pageSize=1", "", nil)
	if r.status != 200 {
		t.Fatalf("anonymous request: %d %s", r.status, r.body)
	}
}

// fakeListener pretends to listen on a public address.
type fakeListener struct{ addr net.Addr }

func (l fakeListener) Accept() (net.Conn, error) { return nil, errors.New("closed") }
func (l fakeListener) Close() error              { return nil }
func (l fakeListener) Addr() net.Addr            { return l.addr }

func TestServer_Serve(t *testing.T) {
	t.Run("anonymous refuses a public address", func(t *testing.T) {
		e := mustEnv(t, func(c *indexerConfig) { c.Auth.Tokens = nil })
		err := e.api.Serve(context.Background(), fakeListener{&net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 8080}})
		if err == nil || !strings.Contains(err.Error(), "loopback") {
			t.Fatalf("err = %v", err)
		}
		err = e.api.ListenAndServe(context.Background(), "0.0.0.0:0")
		if err == nil || !strings.Contains(err.Error(), "loopback") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("graceful shutdown", func(t *testing.T) {
		e := mustEnv(t)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- e.api.Serve(ctx, ln) }()
		req, _ := http.NewRequest(http.MethodGet, "http://"+ln.Addr().String()+ontologyPath+"/objects/Employee/10", nil)
		req.Header.Set("Authorization", "Bearer "+appToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("Serve: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("Serve did not return after cancel")
		}
		if _, err := http.DefaultClient.Do(req); err == nil {
			t.Fatal("server still answers after shutdown")
		}
	})
}

func TestNew_badConfig(t *testing.T) {
	e := mustEnv(t)
	cfg := *e.cfg
	cfg.Auth.Tokens = []serverconfig.Token{{Name: "x", SHA256: "zz", ObjectTypes: []string{"*"}}}
	if _, err := api.New(engineWithConfig{e.ix, &cfg}, api.Options{}); err == nil {
		t.Fatal("bad digest accepted")
	}
}

type engineWithConfig struct {
	*indexer.Indexer
	cfg *config.Config
}

func (e engineWithConfig) Config() *config.Config { return e.cfg }

// TestServer_tokenDigestsOnly checks that a server keeps the tokens of its
// config only as SHA-256 digests: no string or byte slice reachable from
// it (its engine and the engine's config, the authenticator, the logger
// and its buffer, the metrics) holds a token after it served requests
// with each. The walk reads everything without the locks of the
// goroutines that run while it serves, so it waits until the server and
// the indexer have stopped (what they hold stays reachable).
func TestServer_tokenDigestsOnly(t *testing.T) {
	e := mustEnv(t)
	for _, tok := range []string{appToken, limitedToken, adminToken} {
		if r := e.do(t, http.MethodGet, ontologyPath+"/objectTypes", tok, nil); r.status != http.StatusOK {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
	}
	e.srv.Close()
	if err := e.ix.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{appToken, limitedToken, adminToken} {
		if path := leaktest.Find(e.api, tok); path != "" {
			t.Errorf("the server holds a token in plain text at %s", path)
		}
	}
}
