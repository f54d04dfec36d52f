package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a buffer the server goroutine writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var listening = regexp.MustCompile(`listening on (https?://\S+)`)

func TestMain_serve(t *testing.T) {
	dir := t.TempDir()
	cfg, _ := mustWarehouse(t, dir, nil)
	raw, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("SERVE_TEST_TOKEN", "serve-test-token-0123")
	mustFile(t, cfg, string(raw)+`
ontology: {apiName: people}
server: {listen: "127.0.0.1:1"}
auth:
  tokens:
    - {name: app, token: "${SERVE_TEST_TOKEN}", objectTypes: ["*"]}
`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"serve", "--config", cfg, "--listen", "127.0.0.1:0", "--build"}, &Env{Stdout: &bytes.Buffer{}, Stderr: &stderr})
	}()
	var base string
	for deadline := time.Now().Add(60 * time.Second); base == ""; {
		if m := listening.FindStringSubmatch(stderr.String()); m != nil {
			base = m[1]
			break
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited with %d: %s", code, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start: %s", stderr.String())
		}
	}
	get := func(path, token string) (int, map[string]any) {
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, m
	}
	code, m := get("/api/v2/ontologies/people/objects/Person?pageSize=5", "serve-test-token-0123")
	if code != 200 || m["totalCount"] != "12" || len(m["data"].([]any)) != 5 {
		t.Fatalf("list: %d %v", code, m)
	}
	if code, m := get("/api/v2/ontologies/people/objects/Person/3", ""); code != 401 || m["errorName"] != "MissingCredentials" {
		t.Fatalf("without token: %d %v", code, m)
	}
	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Fatalf("serve exited with %d after cancel: %s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop after cancel")
	}
	if !strings.Contains(stderr.String(), "stopped") {
		t.Fatalf("stderr: %s", stderr.String())
	}
	if strings.Contains(stderr.String(), "serve-test-token-0123") {
		t.Fatal("stderr holds the token")
	}
}

func TestMain_serveRefuses(t *testing.T) {
	dir := t.TempDir()
	cfg, _ := mustWarehouse(t, dir, nil)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no config", []string{"serve"}, exitUsage, "--config is required"},
		{"anonymous on all interfaces", []string{"serve", "--config", cfg, "--listen", "0.0.0.0:0"}, exitUsage, "loopback"},
		{"anonymous on a public address", []string{"serve", "--config", cfg, "--listen", "192.0.2.1:8080"}, exitUsage, "loopback"},
		{"bad flag", []string{"serve", "--config", cfg, "--port", "1"}, exitUsage, "flag provided but not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := run(tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Fatalf("code %d, stderr %q; want %d and %q", code, stderr, tt.code, tt.want)
			}
		})
	}
	t.Run("config refuses anonymous on all interfaces", func(t *testing.T) {
		bad := filepath.Join(dir, "public.yaml")
		raw, _ := os.ReadFile(cfg)
		mustFile(t, bad, string(raw)+"server: {listen: \"0.0.0.0:8080\"}\n")
		code, _, stderr := run("serve", "--config", bad)
		if code != exitUsage || !strings.Contains(stderr, "auth.tokens") {
			t.Fatalf("code %d, stderr %q", code, stderr)
		}
	})
}
