package main

import (
	"net/http"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/indexer/daemon"
	"github.com/ontoindex/ontoindex/internal/testkit/daemontest"
	"github.com/ontoindex/ontoindex/internal/testkit/peopletest"
)

// TestServe_noTokenInOutput runs a real `indexer serve` at log level debug
// and uses every path a token goes through: requests with each token and
// with unknown ones, refusals, a rebuild, reloads by SIGHUP and by POST
// (one of them rejected), status, metrics, `indexer status --url`, a
// blocked object type and a graceful stop. Then it greps everything the
// run printed and served for the tokens: none may appear, while the
// tokens' names do (so that the grep looks where the tokens would be).
func TestServe_noTokenInOutput(t *testing.T) {
	t.Setenv("INDEXER_LOG", "debug")
	// A wrong token that holds a real one: any echo of it is caught too.
	wrong := "x" + serveAppToken + "x"
	tokens := []string{serveAppToken, serveAdminToken, wrong}
	sw := mustServeWarehouse(t, 2, 20)
	sw.config(t, peopletest.PeopleType+peopletest.PlaneType, "")
	p := startServe(t, sw.cfgPath)
	p.waitStatus(t, "People", "built", daemontest.UpToDate(sw.tables[peopletest.People]))

	var served []string // every body the server answered
	req := func(method, path, token, body string, want int) {
		t.Helper()
		code, raw := p.do(t, method, path, token, body)
		if code != want {
			t.Fatalf("%s %s: %d %s, want %d", method, path, code, raw, want)
		}
		served = append(served, string(raw))
	}
	const o = "/api/v2/ontologies/serve"
	req(http.MethodGet, o+"/objects/People?pageSize=3", serveAppToken, "", http.StatusOK)
	req(http.MethodPost, o+"/objects/People/search", serveAppToken, `{"where":{"type":"eq","field":"city","value":"Lima"}}`, http.StatusOK)
	req(http.MethodPost, o+"/objects/People/search", serveAppToken, `{"where":{"type":"eq","field":"nope","value":1}}`, http.StatusNotFound)
	req(http.MethodPost, o+"/objects/People/search", serveAppToken, `{"pageSize":-1}`, http.StatusBadRequest)
	req(http.MethodGet, o+"/objects/People", wrong, "", http.StatusUnauthorized)
	req(http.MethodGet, o+"/objects/People", "", "", http.StatusUnauthorized)
	req(http.MethodPost, "/api/indexer/v1/reload", serveAppToken, "", http.StatusForbidden)
	req(http.MethodPost, "/api/indexer/v1/objectTypes/People/rebuild", serveAdminToken, "", http.StatusAccepted)
	p.waitStatus(t, "People", "rebuilt", func(st daemon.TypeStatus) bool { return st.Generation == 2 && st.State == daemon.StateIdle })

	// A merge-on-read delete: an error in status and in the output.
	if err := sw.tables[peopletest.Planes].Delete(t.Context(), iceberg.EqualTo(iceberg.Reference("id"), int64(2))); err != nil {
		t.Fatal(err)
	}
	p.waitStatus(t, "Plane", "blocked", func(st daemon.TypeStatus) bool { return st.State == daemon.StateBlocked })

	// A reload by SIGHUP that applies, one by POST that is rejected.
	cfg, err := os.ReadFile(sw.cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	mustFile(t, sw.cfgPath, strings.Replace(string(cfg), "pollInterval: 50ms", "pollInterval: 60ms", 1))
	p.signal(t, syscall.SIGHUP)
	p.waitOutput(t, regexp.MustCompile(`config reloaded: added \[\], changed \[\], removed \[\]`))
	bad := strings.Replace(string(cfg), `objectTypes: ["*"], admin: true}`, `objectTypes: ["Nobody"], admin: true}`, 1)
	mustFile(t, sw.cfgPath, bad)
	req(http.MethodPost, "/api/indexer/v1/reload", serveAdminToken, "", http.StatusBadRequest)

	req(http.MethodGet, "/api/indexer/v1/status", serveAppToken, "", http.StatusOK)
	req(http.MethodGet, "/api/indexer/v1/status/Plane", serveAppToken, "", http.StatusOK)
	req(http.MethodGet, "/metrics", serveAppToken, "", http.StatusOK)
	req(http.MethodGet, "/readyz", "", "", http.StatusOK)
	code, out, errOut := run("status", "--url", p.base, "--token", serveAppToken)
	if code != exitFailed { // Plane is blocked
		t.Fatalf("indexer status: exit %d\n%s%s", code, out, errOut)
	}
	served = append(served, out, errOut)
	p.stop(t)

	output := p.stderr.String()
	for _, name := range []string{"token=app", "token=ops"} {
		if !strings.Contains(output, name) {
			t.Fatalf("the output names no %s: the request log is not where the test looks:\n%s", name, output)
		}
	}
	for i, tok := range tokens {
		if strings.Contains(output, tok) {
			t.Errorf("token %d is in the output of indexer serve:\n%s", i, output)
		}
		for _, body := range served {
			if strings.Contains(body, tok) {
				t.Errorf("token %d is in a response: %s", i, body)
			}
		}
	}
}
