package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandTable checks every command of the table: a unique name, a
// summary, and `-h` answering with exit 0 and a usage line of its own.
func TestCommandTable(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range commandTable() {
		t.Run(c.Name, func(t *testing.T) {
			if c.Name == "" || strings.ContainsAny(c.Name, " \t") || seen[c.Name] {
				t.Fatalf("name %q is empty, not one word, or not unique", c.Name)
			}
			seen[c.Name] = true
			if c.Summary == "" || c.Run == nil {
				t.Errorf("%s: summary %q, Run set %v", c.Name, c.Summary, c.Run != nil)
			}
			code, out, errOut := run(c.Name, "-h")
			first, _, _ := strings.Cut(errOut, "\n")
			if code != exitOK || out != "" || !strings.HasPrefix(first+" ", "usage: ontolab "+c.Name+" ") {
				t.Errorf("%s -h: exit %d, stdout %q, stderr:\n%s", c.Name, code, out, errOut)
			}
		})
	}
	if code, _, errOut := run("serve"); code != exitUsage || !strings.Contains(errOut, `ontolab: unknown command "serve"`) {
		t.Errorf("ontolab serve (indexer's): exit %d, stderr:\n%s", code, errOut)
	}
}

// TestFindIndexer checks where ontolab looks for the indexer it runs: the
// flag, then beside its own executable, then $PATH, else an error that
// says how to build it.
func TestFindIndexer(t *testing.T) {
	mustBinary := func(t *testing.T, path string) string {
		t.Helper()
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	labDir, pathDir, otherDir := t.TempDir(), t.TempDir(), t.TempDir()
	self := filepath.Join(labDir, "ontolab")
	given := mustBinary(t, filepath.Join(otherDir, "indexer-previous"))
	notExecutable := filepath.Join(otherDir, "indexer-text")
	if err := os.WriteFile(notExecutable, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	onPath := mustBinary(t, filepath.Join(pathDir, "indexer"))
	t.Setenv("PATH", pathDir)

	tests := []struct {
		name        string
		given       string
		beside      bool // an indexer next to ontolab
		want, error string
	}{
		{name: "the flag wins", given: given, beside: true, want: given},
		{name: "a flag that names nothing", given: filepath.Join(otherDir, "nope"), error: "--indexer: stat "},
		{name: "a flag that names a directory", given: otherDir, error: "is a directory"},
		{name: "a flag that names a file that cannot run", given: notExecutable, error: "not executable"},
		{name: "beside ontolab before $PATH", beside: true, want: filepath.Join(labDir, "indexer")},
		{name: "on $PATH", want: onPath},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(filepath.Join(labDir, "indexer"))
			if tt.beside {
				mustBinary(t, filepath.Join(labDir, "indexer"))
			}
			got, err := findIndexer(tt.given, self)
			if tt.error != "" {
				if err == nil || !strings.Contains(err.Error(), tt.error) {
					t.Fatalf("findIndexer = %q, %v; want an error with %q", got, err, tt.error)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("findIndexer = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	t.Run("nowhere", func(t *testing.T) {
		os.Remove(filepath.Join(labDir, "indexer"))
		t.Setenv("PATH", otherDir)
		_, err := findIndexer("", self)
		if err == nil || !strings.Contains(err.Error(), "go build -o bin/ ./cmd/...") || !strings.Contains(err.Error(), "--indexer PATH") {
			t.Fatalf("err = %v, want how to build the indexer", err)
		}
	})
}
