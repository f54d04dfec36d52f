package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/internal/searchbench"
)

// testBenchInterface runs a small `ontolab bench interface` as a process
// against a real `indexer serve`: it checks that the interface and the
// one type answer alike and that every query is measured on both, not
// how fast.
func testBenchInterface(t *testing.T, indexer string) {
	cmd := ontolabProcess(t, "bench", "interface", "--indexer", indexer, "--rows", "4000", "--files", "4",
		"--clients", "2", "--duration", "200ms", "--warmup", "50ms", "--rounds", "2", "--json")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("ontolab bench interface: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errb.String())
	}
	var rep searchbench.InterfaceReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if rep.Objects["Customer"] != 4000 || rep.Objects["CustomerLow"] != 2000 || rep.Objects["CustomerHigh"] != 2000 || rep.Rounds != 2 {
		t.Fatalf("figures: %+v", rep)
	}
	wantIDs := []string{"get", "text", "sorted", "sortedSet", "count", "group"}
	if len(rep.Queries) != len(wantIDs) || len(rep.Targets) != len(wantIDs) {
		t.Fatalf("%d queries and %d targets, want %d of each", len(rep.Queries), len(rep.Targets), len(wantIDs))
	}
	for i, q := range rep.Queries {
		if q.ID != wantIDs[i] {
			t.Errorf("query %d is %q, want %q", i, q.ID, wantIDs[i])
		}
		mustStats(t, q.Name+" on the one type", &q.OneType)
		mustStats(t, q.Name+" on the interface", &q.Interface)
		if q.Ratio <= 0 {
			t.Errorf("%s: ratio %v", q.Name, q.Ratio)
		}
	}
}

func TestBenchInterface_usage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"too few rows", []string{"bench", "interface", "--rows", "10"}, exitUsage, "--rows >= 1000"},
		{"more files than half the rows", []string{"bench", "interface", "--rows", "1000", "--files", "501"}, exitUsage, "--files <= --rows/2"},
		{"argument", []string{"bench", "interface", "extra"}, exitUsage, `unexpected argument "extra"`},
		{"help", []string{"bench", "interface", "-h"}, exitOK, "usage: ontolab bench interface"},
		{"unknown query", []string{"bench", "interface", "--rows", "1000", "--queries", "union", "--indexer", "/bin/true"}, exitFailed, `unknown query "union"`},
		{"no indexer", []string{"bench", "interface", "--indexer", "/nonexistent/indexer"}, exitUsage, "--indexer: stat /nonexistent/indexer"},
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
