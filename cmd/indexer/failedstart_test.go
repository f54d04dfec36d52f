package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

// TestMain_failedStart: commands against a config whose table is missing
// report the error once (not also as a warning of the engine) and leave
// no data dir behind; so does serve when it cannot listen.
func TestMain_failedStart(t *testing.T) {
	t.Setenv("INDEXER_LOG", "") // the default level, warn, as a new user has it
	dir := t.TempDir()
	if _, err := icebergtest.NewWarehouse(filepath.Join(dir, "warehouse")); err != nil {
		t.Fatal(err)
	}
	cfg := mustFile(t, filepath.Join(dir, "ontology.yaml"), `
dataDir: ./state/data
catalogs:
  lake: {type: hadoop, warehouse: ./warehouse}
objectTypes:
  - apiName: Ghost
    table: lake.ns.ghosts
    primaryKey: [id]
`)
	// The error names the missing table's metadata directory once.
	const errText = "ns/ghosts/metadata"
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string // the line the error is on
	}{
		{"build", []string{"build", "--config", cfg}, exitFailed, "indexer build: object type Ghost: load table lake.ns.ghosts"},
		{"build --json", []string{"build", "--config", cfg, "--json"}, exitFailed, "indexer build: object type Ghost: load table lake.ns.ghosts"},
		{"build --type", []string{"build", "--config", cfg, "--type", "Ghost"}, exitFailed, "indexer build: object type Ghost: load table lake.ns.ghosts"},
		{"check", []string{"check", "--config", cfg}, exitUsage, "indexer check: could not check object type Ghost: load table lake.ns.ghosts"},
		{"export", []string{"export", "--config", cfg, "--type", "Ghost"}, exitFailed, "indexer export: object type Ghost: object type has not been built yet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := run(tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			if !strings.Contains(errOut, tt.stderr) {
				t.Errorf("stderr lacks %q", tt.stderr)
			}
			if strings.Contains(errOut, "level=") {
				t.Errorf("the engine logged it too")
			}
			want := 1
			if tt.name == "export" {
				want = 0 // nothing loads the table: export reads the store
			}
			if n := strings.Count(errOut, errText); n != want {
				t.Errorf("stderr holds the error %d times, want %d", n, want)
			}
			if n := strings.Count(out, errText); n != 0 && !strings.HasSuffix(tt.name, "--json") {
				t.Errorf("stdout holds the error %d times, want it on stderr only", n)
			}
			if _, err := os.Stat(filepath.Join(dir, "state")); !os.IsNotExist(err) {
				t.Errorf("the data dir was left behind (%v)", err)
			}
			if t.Failed() {
				t.Logf("stdout:\n%s\nstderr:\n%s", out, errOut)
			}
		})
	}
	t.Run("serve on an address in use", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		code, _, errOut := run("serve", "--config", cfg, "--listen", ln.Addr().String())
		if code != exitFailed || strings.Count(errOut, "address already in use") != 1 {
			t.Errorf("exit %d, stderr:\n%s", code, errOut)
		}
		if _, err := os.Stat(filepath.Join(dir, "state")); !os.IsNotExist(err) {
			t.Errorf("the data dir was left behind (%v)", err)
		}
	})
	t.Run("serve while the table is missing", func(t *testing.T) {
		// serve keeps going (the table may come), retrying every 20 to
		// 100 ms: the failure is reported once, not at every retry.
		raw, err := os.ReadFile(cfg)
		if err != nil {
			t.Fatal(err)
		}
		retrying := mustFile(t, filepath.Join(dir, "retrying.yaml"), string(raw)+"ontology: {apiName: ghosts}\n"+
			"daemon: {pollInterval: 20ms, retryBackoff: 20ms, maxRetryBackoff: 100ms}\n")
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var stderr syncBuffer
		done := make(chan int, 1)
		go func() {
			done <- Main(ctx, []string{"serve", "--config", retrying, "--listen", "127.0.0.1:0"}, &Env{Stdout: &bytes.Buffer{}, Stderr: &stderr})
		}()
		// The log says what is wrong, what the daemon does, what searches
		// answer meanwhile.
		logged := regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d failing  Ghost: table lake\.ns\.ghosts does not exist \(object type Ghost: load table lake\.ns\.ghosts: .*\); ` +
			`the daemon looks for it again every 20ms \(the poll interval\); until a first build, searches of Ghost answer 409 ObjectTypeNotSynced$`)
		deadline := time.Now().Add(60 * time.Second)
		for !logged.MatchString(stderr.String()) {
			if time.Now().After(deadline) {
				t.Fatalf("serve did not report the missing table as %s:\n%s", logged, stderr.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
		// So does the error of a search.
		base := listening.FindStringSubmatch(stderr.String())[1]
		resp, err := http.Post(base+"/api/v2/ontologies/ghosts/objects/Ghost/search", "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]any
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		const reason = "Ghost has no build to serve yet: table lake.ns.ghosts does not exist; the daemon looks for it again every 20ms (the poll interval) " +
			"(GET /api/indexer/v1/status/Ghost has the details)"
		if err != nil || resp.StatusCode != http.StatusConflict || body["errorName"] != "ObjectTypeNotSynced" || body["message"] != "ObjectTypeNotSynced: "+reason {
			t.Errorf("search: %d %v %v; want 409 with the message %q", resp.StatusCode, body, err, reason)
		}
		if strings.Contains(fmt.Sprint(body), "metadata") {
			t.Errorf("the error shows the catalog's message: %v", body)
		}
		time.Sleep(500 * time.Millisecond) // several retries
		cancel()
		if code := <-done; code != exitOK {
			t.Errorf("serve exited with %d", code)
		}
		if n := strings.Count(stderr.String(), errText); n != 1 || strings.Contains(stderr.String(), "level=") {
			t.Errorf("stderr holds the error %d times, want once and no log line:\n%s", n, stderr.String())
		}
		if _, err := os.Stat(filepath.Join(dir, "state")); !os.IsNotExist(err) {
			t.Errorf("the data dir was left behind (%v)", err)
		}
	})
}
