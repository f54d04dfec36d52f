package main

import (
	"os"
	"strings"
	"testing"
)

// TestBenchOpenSearch_usage: the options are checked before anything
// starts (the run itself is internal/searchbench's TestRunScale, on a
// node of the test kit).
func TestBenchOpenSearch_usage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"two nodes", []string{"bench", "opensearch", "--nodes", "2"}, exitUsage, "nodes 2 (1 or 3)"},
		{"as many replicas as nodes", []string{"bench", "opensearch", "--replicas", "3"}, exitUsage, "replicas 3 (0..nodes-1)"},
		{"no edits", []string{"bench", "opensearch", "--edits", "0"}, exitUsage, "edits 0 (1..rows)"},
		{"help", []string{"bench", "opensearch", "-h"}, exitOK, "usage: ontolab bench opensearch"},
		{"the build bench names it", []string{"bench", "-h"}, exitOK, "bench opensearch -h"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := run(append(tt.args, "--indexer", os.Args[0])...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Fatalf("code %d, stderr %q; want %d and %q", code, stderr, tt.code, tt.want)
			}
		})
	}
}
