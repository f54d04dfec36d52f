package subscribebench

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/internal/searchbench"
)

func TestReport_finish(t *testing.T) {
	tests := []struct {
		name       string
		rep        Report
		wantMet    []bool
		wantErrors int
	}{
		{name: "met", rep: Report{PollIntervalMs: 1000, Subscriptions: 1000,
			Quiet:  QuietFigures{Latency: Latency{Samples: 10, P99Ms: 1300}},
			Search: []SearchFigures{{Query: "get", Ratio: 0.9}}},
			wantMet: []bool{true, true}},
		{name: "missed", rep: Report{PollIntervalMs: 1000,
			Quiet:  QuietFigures{Latency: Latency{Samples: 10, P99Ms: 1301}},
			Search: []SearchFigures{{Query: "get", Ratio: 0.89}}},
			wantMet: []bool{false, false}},
		{name: "no deliveries: no latency to meet the target", rep: Report{PollIntervalMs: 1000, Quiet: QuietFigures{Outcome: Outcome{Expected: 3, Missing: 3}}},
			wantMet: []bool{false}, wantErrors: 1},
		{name: "errors of each part", rep: Report{PollIntervalMs: 1000,
			Quiet: QuietFigures{Latency: Latency{Samples: 1}, WithoutAfter: PartFigures{Stray: 1}},
			Search: []SearchFigures{
				{Query: "get", Ratio: 1, Outcome: Outcome{Unexpected: 1}},
				{Query: "sorted", Ratio: 1, With: searchbench.Stats{Errors: 2, FirstError: "HTTP 503"}},
			}},
			wantMet: []bool{true, true, true}, wantErrors: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.rep
			r.finish()
			if len(r.Targets) != len(tt.wantMet) {
				t.Fatalf("targets %+v, want %d", r.Targets, len(tt.wantMet))
			}
			for i, want := range tt.wantMet {
				if r.Targets[i].Met != want {
					t.Errorf("target %+v: met %v, want %v", r.Targets[i], r.Targets[i].Met, want)
				}
			}
			if len(r.Errors) != tt.wantErrors {
				t.Errorf("errors %q, want %d", r.Errors, tt.wantErrors)
			}
			var out bytes.Buffer
			if err := r.WriteText(&out); err != nil {
				t.Fatal(err)
			}
			for _, e := range r.Errors {
				if !strings.Contains(out.String(), "ERROR: "+e) {
					t.Errorf("text lacks error %q:\n%s", e, out.String())
				}
			}
		})
	}
}

func TestQuietFigures(t *testing.T) {
	without := partResult{commits: make([]Commit, 10), serverCPU: 0.15}
	with := partResult{commits: make([]Commit, 10), serverCPU: 0.5, outcome: Outcome{Delivered: 1000}}
	after := partResult{commits: make([]Commit, 10), serverCPU: 0.25}
	q := quietFigures(without, with, after)
	// 0.5 s over 1000 changes; less the 0.2 s the 10 commits cost alone
	// (the mean of before and after).
	if q.ServerCPUPerChangeUs != 500 || q.MarginalCPUPerChangeUs < 299.99 || q.MarginalCPUPerChangeUs > 300.01 {
		t.Errorf("%+v", q)
	}
	if q := quietFigures(without, partResult{commits: make([]Commit, 10)}, after); q.ServerCPUPerChangeUs != 0 || q.MarginalCPUPerChangeUs != 0 {
		t.Errorf("no deliveries: %+v", q)
	}
}
