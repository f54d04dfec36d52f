package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/internal/vectorbench"
)

// TestBenchVector runs a small `ontolab bench vector` with FAISS (the
// bench installs faiss-cpu into its virtualenv when it lacks it, as
// .ci/install-faiss does on CI): it checks that both sides are built,
// searched and scored against exact search, not how fast.
func TestBenchVector(t *testing.T) {
	code, out, errOut := run("bench", "vector", "--vectors", "3000", "--dimension", "16", "--queries", "50",
		"--min-duration", "100ms", "--json")
	if code != exitOK {
		t.Fatalf("bench vector exit %d: %s%s", code, out, errOut)
	}
	var rep vectorbench.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Vectors != 3000 || rep.Dimension != 16 || rep.FaissVersion == "" || rep.ExactQueriesPerSecond <= 0 || rep.VsExact <= 0 || rep.VsFaiss <= 0 {
		t.Fatalf("figures: %+v", rep)
	}
	for name, s := range map[string]vectorbench.Side{"ontoindex": rep.Ontoindex, "FAISS": rep.Faiss} {
		// At 3000 clustered vectors both graphs find nearly every
		// neighbour: a recall far below says the search or the ids are wrong.
		if s.RecallAtK < 0.9 || s.RecallAtK > 1 || s.QueriesPerSecond <= 0 || s.BuildSeconds <= 0 || s.BytesPerVector < 16*4 {
			t.Errorf("%s: %+v", name, s)
		}
	}
	code, out, _ = run("bench", "vector", "--vectors", "500", "--dimension", "8", "--queries", "10", "--min-duration", "10ms")
	if code != exitOK || !strings.Contains(out, "ontoindex / FAISS q/s") || !strings.Contains(out, "recall@k") {
		t.Errorf("bench vector text (exit %d):\n%s", code, out)
	}
}

func TestBenchVector_usage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"too few vectors", []string{"bench", "vector", "--vectors", "10"}, exitUsage, "--vectors >= 100"},
		{"k beyond the vectors", []string{"bench", "vector", "--vectors", "100", "--k", "101"}, exitUsage, "1 <= --k <= --vectors"},
		{"help", []string{"bench", "vector", "-h"}, exitOK, "usage: ontolab bench vector"},
		{"no faiss", []string{"bench", "vector", "--vectors", "100", "--python", "/nonexistent/python"}, exitFailed, "cannot import faiss"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := run(tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Fatalf("code %d, stderr %q; want %d and %q", code, stderr, tt.code, tt.want)
			}
		})
	}
}
