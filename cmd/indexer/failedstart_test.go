package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
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
		retrying := mustFile(t, filepath.Join(dir, "retrying.yaml"), string(raw)+"daemon: {pollInterval: 20ms, retryBackoff: 20ms, maxRetryBackoff: 100ms}\n")
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var stderr syncBuffer
		done := make(chan int, 1)
		go func() {
			done <- Main(ctx, []string{"serve", "--config", retrying, "--listen", "127.0.0.1:0"}, &Env{Stdout: &bytes.Buffer{}, Stderr: &stderr})
		}()
		deadline := time.Now().Add(60 * time.Second)
		for !strings.Contains(stderr.String(), "failing  Ghost: object type Ghost: load table lake.ns.ghosts") {
			if time.Now().After(deadline) {
				t.Fatalf("serve did not report the missing table:\n%s", stderr.String())
			}
			time.Sleep(20 * time.Millisecond)
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
