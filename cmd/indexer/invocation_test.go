package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestInvocationOf(t *testing.T) {
	tests := []struct {
		name, arg0, executable, want string
	}{
		{"go run, temporary build", "/tmp/go-build1316417840/b001/exe/indexer", "/tmp/go-build1316417840/b001/exe/indexer", "go run ./cmd/indexer"},
		{"go run, cached binary", "/root/.cache/go-build/db/db4bca97-d/indexer", "/root/.cache/go-build/db/db4bca97-d/indexer", "go run ./cmd/indexer"},
		{"go run, macOS cache", "/Users/a/Library/Caches/go-build/0f/0f1e-d/indexer", "", "go run ./cmd/indexer"},
		{"relative binary", "bin/indexer", "/home/a/ontoindex/bin/indexer", "bin/indexer"},
		{"binary on PATH", "indexer", "/usr/local/bin/indexer", "indexer"},
		{"absolute binary", "/opt/ontoindex/bin/indexer", "/opt/ontoindex/bin/indexer", "/opt/ontoindex/bin/indexer"},
		{"a path with a space", "/opt/my tools/indexer", "/opt/my tools/indexer", "'/opt/my tools/indexer'"},
		{"nothing known", "", "", "indexer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := invocationOf(tt.arg0, tt.executable); got != tt.want {
				t.Errorf("invocationOf(%q, %q) = %q, want %q", tt.arg0, tt.executable, got, tt.want)
			}
		})
	}
}

// TestMain_demoInvocation runs the demo as a binary outside the go
// command's build directories, bin/indexer: the commands it suggests
// start with bin/indexer, not go run.
func TestMain_demoInvocation(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin", "indexer")
	mustLinkExecutable(t, bin)
	cmd := exec.Command("bin/indexer", "demo", "--once", "--dir", "demo", "--customers", "300")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "INDEXER_TEST_MAIN=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	next := regexp.MustCompile(`(?s)\nNext:\n(.*)$`).FindSubmatch(out)
	if next == nil {
		t.Fatalf("no Next section:\n%s", out)
	}
	lines := strings.Split(strings.TrimRight(string(next[1]), "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d commands:\n%s", len(lines), next[1])
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "  bin/indexer ") {
			t.Errorf("a suggested command does not start with bin/indexer: %q", l)
		}
	}
	if strings.Contains(string(out), "go run") {
		t.Errorf("the output mentions go run:\n%s", out)
	}
}

// mustLinkExecutable puts the test binary (which acts as the indexer
// command, see TestMain) at path: a hard link, else a copy.
func mustLinkExecutable(tb testing.TB, path string) {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if os.Link(exe, path) == nil {
		return
	}
	src, err := os.Open(exe)
	if err != nil {
		tb.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		tb.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		tb.Fatal(err)
	}
}
