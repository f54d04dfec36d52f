package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/internal/subscribebench"
)

// testBenchSubscribe runs a small `ontolab bench subscribe` as a process
// against a real `indexer serve`: 10 subscriptions
// of the three kinds on 3 connections, 3 commits in each quiet part. It
// checks that every edit reached every subscription whose set holds it and
// nothing else arrived, not how fast.
func testBenchSubscribe(t *testing.T, indexer string) {
	cmd := ontolabProcess(t, "bench", "subscribe", "--indexer", indexer, "--rows", "2000", "--files", "2", "--subscriptions", "10", "--connections", "3",
		"--commits", "3", "--commit-every", "100ms", "--poll-interval", "200ms",
		"--queries", "get", "--clients", "2", "--duration", "300ms", "--warmup", "50ms", "--rounds", "2", "--json")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("ontolab bench subscribe: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errb.String())
	}
	var rep subscribebench.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	// Subscriptions 0, 1, 3, 4, 6, 7 and 9 are base or match: 7 of them
	// receive each of the 3 commits; 2, 5 and 8 never match.
	q := rep.Quiet
	if q.Without.Commits != 3 || q.With.Commits != 3 || q.WithoutAfter.Commits != 3 {
		t.Errorf("commits %d without, %d with and %d without subscribers again, want 3 each", q.Without.Commits, q.With.Commits, q.WithoutAfter.Commits)
	}
	if o := q.Outcome; o.Expected != 21 || o.Delivered != 21 || o.Errors() != 0 || o.Refreshed != 0 {
		t.Errorf("quiet deliveries: %+v", o)
	}
	// Every commit's build is among the daemon's recent builds: the
	// latency splits for all of them.
	if q.Latency.Samples != 21 || q.Latency.P99Ms < q.Latency.P50Ms || q.ServerCPUPerChangeUs < 0 || q.Served.Samples != 3 || q.Push.Samples != 21 {
		t.Errorf("quiet figures: %+v", q)
	}
	if len(rep.Search) != 1 || rep.Search[0].Query != "get" {
		t.Fatalf("search parts: %+v", rep.Search)
	}
	s := rep.Search[0]
	mustStats(t, "get without subscribers", &s.Without)
	mustStats(t, "get with subscribers", &s.With)
	if s.Ratio <= 0 || s.Outcome.Expected == 0 || s.Outcome.Expected%7 != 0 || s.Outcome.Errors() != 0 || s.Stray != 0 {
		t.Errorf("search figures: %+v", s)
	}
	if len(rep.Errors) != 0 || len(rep.Targets) != 2 || rep.MeasuredAt == "" {
		t.Errorf("errors %q, targets %+v, measured at %q", rep.Errors, rep.Targets, rep.MeasuredAt)
	}
	if rep.ServerMetrics["ontoindex_subscription_drops_total"] != 0 {
		t.Errorf("server metrics: %v", rep.ServerMetrics)
	}
}

func TestBenchSubscribe_usage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown kind", []string{"bench", "subscribe", "--kinds", "base,all"}, exitUsage, `unknown subscription kind "all"`},
		{"more connections than subscriptions", []string{"bench", "subscribe", "--subscriptions", "2", "--connections", "3"}, exitUsage, "connections 3 (1..subscriptions)"},
		{"unknown query", []string{"bench", "subscribe", "--queries", "get,nope"}, exitUsage, `query "nope" cannot be measured alone`},
		{"a query that needs preparing", []string{"bench", "subscribe", "--queries", "deepN"}, exitUsage, `query "deepN" cannot be measured alone`},
		{"no commits", []string{"bench", "subscribe", "--commits", "0"}, exitUsage, "commits 0 (>= 1)"},
		{"help", []string{"bench", "subscribe", "-h"}, exitOK, "usage: ontolab bench subscribe"},
		{"the build bench names it", []string{"bench", "-h"}, exitOK, "bench subscribe -h"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Any executable as the indexer: the options are checked
			// before anything runs.
			code, _, stderr := run(append(tt.args, "--indexer", os.Args[0])...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Fatalf("code %d, stderr %q; want %d and %q", code, stderr, tt.code, tt.want)
			}
		})
	}
}
