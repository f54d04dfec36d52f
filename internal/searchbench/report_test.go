package searchbench

import (
	"strings"
	"testing"
)

func TestReport_targets(t *testing.T) {
	st := func(qps, p50, p99 float64) *Stats { return &Stats{Requests: 1, QPS: qps, P50Ms: p50, P99Ms: p99} }
	r := &Report{
		Ontoindex: OntoindexFigures{SearchableSeconds: 100},
		Postgres:  &PostgresFigures{SearchableSeconds: 30},
		DeepPage:  1000,
		Queries: []QueryReport{
			{ID: "get", Name: "get", Target: 0.8, Ontoindex: st(900, 1, 2), Postgres: st(1000, 1, 2)},
			{ID: "sorted", Name: "sorted", Target: 1, Ontoindex: st(50, 10, 60), Postgres: st(100, 1, 2)},
			{ID: "deep1", Name: "deep1", Target: 1, Ontoindex: st(10, 10, 20), Postgres: st(10, 1, 2)},
			{ID: "deepN", Name: "deepN", Target: 1, Ontoindex: st(10, 20, 30), Postgres: st(10, 1, 2)},
			{ID: "deepOffset", Name: "offset", Postgres: st(1, 1, 2)},
		},
	}
	r.addTargets()
	want := map[string]bool{
		"q/s ratio: get": true, "q/s ratio: sorted": false, "q/s ratio: deep1": true, "q/s ratio: deepN": true,
		"time to searchable ratio (PostgreSQL / ontoindex)": true,
		"deep paging: ontoindex p50 at page 1000 / page 1":  false,
		"sorted search: ontoindex p99 ms":                   false,
	}
	if len(r.Targets) != len(want) {
		t.Fatalf("targets %+v", r.Targets)
	}
	for _, tg := range r.Targets {
		if met, ok := want[tg.Name]; !ok || met != tg.Met {
			t.Errorf("target %+v: want known and met=%v", tg, met)
		}
	}
	if r.Queries[0].Ratio != 0.9 || r.Queries[4].Ratio != 0 {
		t.Errorf("ratios %v %v", r.Queries[0].Ratio, r.Queries[4].Ratio)
	}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "targets met: 4 of 7") {
		t.Errorf("text:\n%s", b.String())
	}
}

func TestMeasuredLine(t *testing.T) {
	st := func(qps, p50 float64) *Stats { return &Stats{Requests: 1, QPS: qps, P50Ms: p50} }
	for _, tc := range []struct {
		name string
		q    QueryReport
		want string
	}{
		{"both sides", QueryReport{Ontoindex: st(1483, 37.3), Postgres: st(1197, 37.8)},
			"ontoindex 1483 q/s p50 37.3 ms, PostgreSQL 1197 q/s p50 37.8 ms, ratio 1.24"},
		{"PostgreSQL only", QueryReport{Postgres: st(15, 3022)},
			"ontoindex - q/s p50 - ms, PostgreSQL 15 q/s p50 3022 ms"},
		{"ontoindex only", QueryReport{Ontoindex: st(20, 2)},
			"ontoindex 20 q/s p50 2.00 ms, PostgreSQL - q/s p50 - ms"},
		{"under ten a second", QueryReport{Ontoindex: st(0.36, 5559), Postgres: st(0.049, 46250), Ratio: 7.34},
			"ontoindex 0.360 q/s p50 5559 ms, PostgreSQL 0.049 q/s p50 46250 ms, ratio 7.35"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := measuredLine(tc.q); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}
