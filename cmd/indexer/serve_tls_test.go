package main

import (
	"crypto/tls"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/ontoindex/ontoindex/internal/testkit/tlstest"
)

// TestMain_serveTLS serves with server.tls, its files named relative to
// the config: `listening on https://`, HTTP/2 with the test's CA, and a
// renewed certificate served after SIGHUP.
func TestMain_serveTLS(t *testing.T) {
	dir := t.TempDir()
	cfg, _ := mustWarehouse(t, dir, nil)
	files, ca, err := tlstest.WriteFiles(filepath.Dir(cfg))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("SERVE_TEST_TOKEN", "serve-test-token-0123")
	mustFile(t, cfg, string(raw)+`
ontology: {apiName: people}
server: {tls: {certFile: `+filepath.Base(files.Cert)+`, keyFile: `+filepath.Base(files.Key)+`}}
auth:
  tokens:
    - {name: app, token: "${SERVE_TEST_TOKEN}", objectTypes: ["*"]}
`)
	p := startServe(t, cfg, "--build")
	if !strings.HasPrefix(p.base, "https://") {
		t.Fatalf("listening on %s, want https://", p.base)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.Pool()}, ForceAttemptHTTP2: true}
	defer tr.CloseIdleConnections()
	get := func() *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, p.base+"/api/v2/ontologies/people/objects/Person?pageSize=1", nil)
		req.Header.Set("Authorization", "Bearer serve-test-token-0123")
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.ProtoMajor != 2 {
			t.Fatalf("status %d over %s, want 200 over HTTP/2", resp.StatusCode, resp.Proto)
		}
		return resp
	}
	first := get().TLS.PeerCertificates[0].SerialNumber
	next := ca.MustServer(t)
	if err := next.Write(files.Cert, files.Key); err != nil {
		t.Fatal(err)
	}
	p.signal(t, syscall.SIGHUP)
	p.waitOutput(t, regexp.MustCompile(`config reloaded`))
	tr.CloseIdleConnections() // a new connection, a new handshake
	if got := get().TLS.PeerCertificates[0].SerialNumber; got.Cmp(next.Leaf.SerialNumber) != 0 {
		t.Fatalf("serial %s after SIGHUP, want the renewed %s (first %s)", got, next.Leaf.SerialNumber, first)
	}
}
