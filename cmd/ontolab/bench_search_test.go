package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/internal/pgserver"
	"github.com/ontoindex/ontoindex/internal/searchbench"
)

// smallBench are the flags of a small `bench search`: it checks that the
// benchmark works end to end, not how fast anything is.
var smallBench = []string{"bench", "search", "--rows", "5000", "--clients", "2", "--duration", "300ms", "--warmup", "50ms", "--files", "4"}

// mustBenchSearch runs `ontolab bench search` as a process, as a user
// does: the test binary is ontolab (ONTOLAB_TEST_MAIN), and so is the
// floor it starts; the server it starts is the indexer binary.
func mustBenchSearch(tb testing.TB, indexer string, args ...string) (stdout, stderr string) {
	tb.Helper()
	cmd := ontolabProcess(tb, append(append([]string{}, smallBench...), append([]string{"--indexer", indexer}, args...)...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		tb.Fatalf("ontolab bench search: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errb.String())
	}
	return out.String(), errb.String()
}

func testBenchSearchPostgres(t *testing.T, indexer string) {
	if _, err := pgserver.FindBinDir(""); errors.Is(err, pgserver.ErrNotFound) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI installs PostgreSQL (.ci/run): %v", err)
		}
		t.Skip(err)
	}
	stdout, _ := mustBenchSearch(t, indexer, "--json")
	var rep searchbench.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if rep.Postgres == nil || rep.PostgresAbsent != "" {
		t.Fatalf("no PostgreSQL figures: %q", rep.PostgresAbsent)
	}
	if rep.Rows != 5000 || rep.Ontoindex.Objects != 5000 || rep.Ontoindex.Orders != 5000 || rep.Ontoindex.SearchableSeconds <= 0 || rep.Postgres.SearchableSeconds <= 0 ||
		rep.Ontoindex.PeakRSSMiB <= 0 || rep.Postgres.ServingPSSMiB <= 0 || rep.DeepPage < 2 || rep.Rounds != 5 {
		t.Fatalf("figures: %+v %+v %+v", rep, rep.Ontoindex, *rep.Postgres)
	}
	wantIDs := []string{"get", "sorted", "text", "relevance", "count", "group", "prefix", "deep1", "deepN", "deepOffset", "union", "around", "derived", "duration"}
	if len(rep.Queries) != len(wantIDs) {
		t.Fatalf("%d queries, want %d", len(rep.Queries), len(wantIDs))
	}
	for i, q := range rep.Queries {
		if q.ID != wantIDs[i] {
			t.Errorf("query %d is %q, want %q", i, q.ID, wantIDs[i])
		}
		mustStats(t, q.Name+" on PostgreSQL", q.Postgres)
		if q.ID == "deepOffset" {
			if q.Ontoindex != nil {
				t.Errorf("%s: measured on ontoindex", q.Name)
			}
			continue
		}
		mustStats(t, q.Name+" on ontoindex", q.Ontoindex)
		if q.ID == "get" {
			mustStats(t, q.Name+" on the net/http floor", q.Floor)
			if q.Floor != nil && q.Floor.ServerCPUus <= 0 {
				t.Errorf("%s: no server CPU on the floor: %+v", q.Name, *q.Floor)
			}
		} else if q.Floor != nil {
			t.Errorf("%s: measured on the floor", q.Name)
		}
		if q.Ratio <= 0 {
			t.Errorf("%s: ratio %v", q.Name, q.Ratio)
		}
	}
	// Every query with a target, time to searchable, deep paging, p99,
	// the get's CPU against the floor.
	if len(rep.Targets) != 13+4 {
		t.Errorf("%d targets: %+v", len(rep.Targets), rep.Targets)
	}
}

func testBenchSearchWithoutPostgres(t *testing.T, indexer string) {
	stdout, stderr := mustBenchSearch(t, indexer, "--pg-bin", t.TempDir())
	if !strings.Contains(stderr, "PostgreSQL is not available") {
		t.Errorf("stderr does not say that PostgreSQL is absent:\n%s", stderr)
	}
	for _, want := range []string{
		"PostgreSQL: not measured: PostgreSQL server binaries (initdb, postgres) not found in",
		"get by primary key", "loadObjects: union", "searchAround: 50 customers (filter) -> their orders", "count of orders by month of placedAt ($duration)", "deep paging: page ",
		"deep paging: ontoindex p50 at page", "sorted search: ontoindex p99 ms",
		"time to searchable: ontoindex", "peak RSS", "totalCount",
		"get: net/http floor", "get by key: server CPU per get, ontoindex / net/http floor",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "q/s ratio") {
		t.Errorf("ratios without PostgreSQL:\n%s", stdout)
	}
}

func TestBenchSearch_usage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"too few rows", []string{"bench", "search", "--rows", "10"}, exitUsage, "--rows >= 1000"},
		{"no clients", []string{"bench", "search", "--clients", "0"}, exitUsage, "--clients >= 1"},
		{"argument", []string{"bench", "search", "extra"}, exitUsage, `unexpected argument "extra"`},
		{"help", []string{"bench", "search", "-h"}, exitOK, "-indexer path"},
		{"build help", []string{"bench", "build", "-h"}, exitOK, "usage: ontolab bench build"},
		{"no indexer", []string{"bench", "search", "--indexer", "/nonexistent/indexer"}, exitUsage, "--indexer: stat /nonexistent/indexer"},
		{"plain bench is the build bench", []string{"bench", "-h"}, exitOK, "bench search -h"},
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

func mustStats(tb testing.TB, what string, s *searchbench.Stats) {
	tb.Helper()
	if s == nil {
		tb.Errorf("%s: not measured", what)
		return
	}
	if s.Requests == 0 || s.Errors != 0 || s.QPS <= 0 || s.P50Ms <= 0 || s.P99Ms < s.P50Ms {
		tb.Errorf("%s: %+v", what, *s)
	}
}
