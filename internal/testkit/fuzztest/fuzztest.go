// Package fuzztest holds what fuzz targets of several packages share: seed
// lists kept in one file that each target reads.
package fuzztest

import (
	"os"
	"strings"
	"testing"
)

// Lines returns the seeds of a seed file: one a line, without the lines
// that are empty or start with #.
func Lines(tb testing.TB, path string) []string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("read seeds: %v", err)
	}
	var out []string
	for line := range strings.Lines(string(b)) {
		line = strings.TrimSuffix(line, "\n")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, line)
	}
	if len(out) == 0 {
		tb.Fatalf("seed file %s holds no seeds", path)
	}
	return out
}
