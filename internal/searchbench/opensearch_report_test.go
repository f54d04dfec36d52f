package searchbench

import (
	"strings"
	"testing"
	"time"
)

func TestReport_openSearch(t *testing.T) {
	st := func(qps float64) *Stats { return &Stats{Requests: 1, QPS: qps, P50Ms: 1, P99Ms: 2, ServerCPUus: 100} }
	end := time.Date(2026, 12, 5, 4, 0, 0, 0, time.UTC)
	r := &Report{
		Ontoindex: OntoindexFigures{SearchableSeconds: 10},
		OpenSearch: &OpenSearchFigures{Version: "2.19.6", Nodes: 1, Builds: []BackendBuild{
			{Type: "Customer", Seconds: 20, FinishedAt: end},
			{Type: "Order", Seconds: 10, FinishedAt: end.Add(5 * time.Second)},
		}},
		Queries: []QueryReport{
			{ID: "get", Name: "get", Ontoindex: st(1000), OpenSearchNote: "the embedded index answers (no OpenSearch search): not an OpenSearch figure, not measured"},
			{ID: "text", Name: "text", Ontoindex: st(1000), Backend: st(100), Straight: st(110), OpenSearchSearches: 1},
			{ID: "group", Name: "group", Ontoindex: st(50), Backend: st(100), Straight: st(200), OpenSearchSearches: 1},
			{ID: "around", Name: "around", Ontoindex: st(1000), Backend: st(100), OpenSearchSearches: 1, OpenSearchNote: "search 1 of a call differs beyond the parameters"},
		},
	}
	r.OpenSearch.Ingest = &IngestFigures{Documents: 2000, BuildSeconds: buildWindow(r.OpenSearch.Builds), BulkSeconds: 20}
	r.OpenSearch.Ingest.Ratio = r.OpenSearch.Ingest.BulkSeconds / r.OpenSearch.Ingest.BuildSeconds
	if r.OpenSearch.Ingest.BuildSeconds != 25 {
		t.Errorf("build window %v s, want 25 (the first build's start to the last one's end)", r.OpenSearch.Ingest.BuildSeconds)
	}
	r.addTargets()
	want := map[string]bool{
		"OpenSearch: straight DSL q/s / backend q/s: text":        true,
		"OpenSearch: embedded q/s / backend q/s: text":            true,
		"OpenSearch: straight DSL q/s / backend q/s: group":       false,
		"OpenSearch: embedded q/s / backend q/s: group":           false,
		"OpenSearch: embedded q/s / backend q/s: around":          true,
		"OpenSearch: backend build docs/s / straight bulk docs/s": true,
	}
	if len(r.Targets) != len(want) {
		t.Fatalf("targets %+v", r.Targets)
	}
	for _, tg := range r.Targets {
		if met, ok := want[tg.Name]; !ok || met != tg.Met {
			t.Errorf("target %+v: want known and met=%v", tg, met)
		}
	}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	words := strings.Join(strings.Fields(text), " ")
	for _, line := range []string{
		// A row the embedded index answers says so, and has no figures.
		"get 0 the embedded index answers (no OpenSearch search): not an OpenSearch figure, not measured",
		"straight: not measured: search 1 of a call differs beyond the parameters",
		"ingest: 2000 documents: builds 25.0 s (80.0 docs/s), straight bulk 20.0 s in 0 requests (100 docs/s): ratio 0.80",
		"targets met: 4 of 6",
	} {
		if !strings.Contains(words, strings.Join(strings.Fields(line), " ")) {
			t.Errorf("no line %q in:\n%s", line, text)
		}
	}
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "get ") && strings.Contains(l, "1000") && strings.Contains(l, "embedded index answers") {
			t.Errorf("the get's row shows a figure beside the embedded index's answer: %q", l)
		}
	}
}

func TestTemplate_render(t *testing.T) {
	body := func(city string, lo, hi string, size string) []byte {
		return []byte(`{"query":{"bool":{"filter":[{"term":{"city":"` + city + `"}},{"range":{"balance":{"gte":` + lo + `,"lt":` + hi + `}}}]}},"size":` + size + `}`)
	}
	p1 := params{city: "Lisbon", lo: 1000, hi: 51000}
	p2 := params{city: "Porto", lo: 101, hi: 50101}
	tmpl := newTemplate([]dslRequest{{method: "POST", path: "/bench-customer/_search", body: body("Lisbon", "1000", "51000", "101")}}, p1)
	tests := []struct {
		name string
		reqs []dslRequest
		p    params
		want bool
	}{
		{"the same parameters", []dslRequest{{"POST", "/bench-customer/_search", body("Lisbon", "1000", "51000", "101")}}, p1, true},
		// lo = 101 also appears as the size: only lo's place changes.
		{"other parameters", []dslRequest{{"POST", "/bench-customer/_search", body("Porto", "101", "50101", "101")}}, p2, true},
		{"a body that varies beyond them", []dslRequest{{"POST", "/bench-customer/_search", body("Porto", "101", "50101", "11")}}, p2, false},
		{"another path", []dslRequest{{"POST", "/bench-order/_search", body("Porto", "101", "50101", "101")}}, p2, false},
		{"two searches", []dslRequest{{"POST", "/bench-customer/_search", body("Porto", "101", "50101", "101")}, {"POST", "/x", nil}}, p2, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if why := tmpl.matches(tc.reqs, tc.p); (why == "") != tc.want {
				t.Errorf("matches: %q, want a match %v", why, tc.want)
			}
		})
	}
	// A number inside a longer one is not a parameter's place.
	if got := holes([]byte(`{"a":11000,"b":1000}`), []string{"", "1000"}); len(got) != 3 || got[1].hole != 1 {
		t.Errorf("holes %+v, want the second number only", got)
	}
}
