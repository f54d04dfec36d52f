package searchbench

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/benchdata"
)

// TestInterfaceConfig checks the server config of the interface bench
// with the product's own parser: three types over the three tables, the
// halves implementing Client property for property, Customer not.
func TestInterfaceConfig(t *testing.T) {
	cfg, err := config.Parse([]byte(interfaceConfig()), t.TempDir())
	if err != nil {
		t.Fatalf("%v\n%s", err, interfaceConfig())
	}
	tables := map[string]string{}
	for _, ts := range cfg.ObjectTypes {
		tables[ts.APIName] = ts.Table
	}
	want := map[string]string{objectType: "warehouse." + benchdata.CustomersIdent, lowType: "warehouse." + lowIdent, highType: "warehouse." + highIdent}
	if !maps.Equal(tables, want) {
		t.Errorf("types %v, want %v", tables, want)
	}
	set := cfg.InterfaceSet()
	if names := set.Names(); !slices.Equal(names, []string{clientInterface}) {
		t.Fatalf("interfaces %v", names)
	}
	for _, tt := range []struct {
		typ        string
		implements bool
	}{{objectType, false}, {lowType, true}, {highType, true}} {
		t.Run(tt.typ, func(t *testing.T) {
			impl, ok := set.Implementation(tt.typ, clientInterface)
			if ok != tt.implements {
				t.Fatalf("implements %s: %v, want %v", clientInterface, ok, tt.implements)
			}
			if !ok {
				return
			}
			for _, p := range customerProperties {
				if got := impl.Properties[p.name]; got != p.name {
					t.Errorf("%s maps to %q, want %q", p.name, got, p.name)
				}
			}
		})
	}
}

func TestCompareAnswers(t *testing.T) {
	tests := []struct {
		name       string
		one, iface result
		want       string // "" for no difference, else a part of it
	}{
		{"same pages", result{ids: []int64{4, 1, 9}, total: 30, counted: true}, result{ids: []int64{4, 1, 9}, total: 30, counted: true}, ""},
		{"merged out of order", result{ids: []int64{4, 1, 9}}, result{ids: []int64{4, 9, 1}}, "from position 1: interface Client 3 ids [9 1], one type Customer 3 ids [1 9]"},
		{"a page missing", result{ids: []int64{1, 2, 3}}, result{ids: []int64{1, 2}}, "interface Client 2 ids []"},
		{"total of one half", result{ids: []int64{1}, total: 20, counted: true}, result{ids: []int64{1}, total: 10, counted: true}, "totalCount differs: interface Client 10, Customer's 20"},
		{"same counts", result{counts: map[string]int64{"Oslo": 5, "Rome": 2}}, result{counts: map[string]int64{"Rome": 2, "Oslo": 5}}, ""},
		{"counts", result{counts: map[string]int64{"": 9}}, result{counts: map[string]int64{"": 8}}, "counts differ: interface Client map[:8], one type Customer map[:9]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := compareAnswers(tt.one, tt.iface)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Fatalf("compareAnswers = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestInterfaceReport_addTargets(t *testing.T) {
	st := func(qps, p50 float64) Stats { return Stats{Requests: 1, QPS: qps, P50Ms: p50, P99Ms: 2 * p50} }
	r := &InterfaceReport{Objects: map[string]int64{objectType: 10, lowType: 5, highType: 5}, Queries: []InterfaceQueryReport{
		{ID: "text", Name: "text", OneType: st(100, 2), Interface: st(90, 2.5)},
		{ID: "group", Name: "group", OneType: st(100, 2), Interface: st(80, 3)},
		{ID: "get", Name: "get", OneType: st(100, 2), Interface: st(0, 0)},
	}}
	r.addTargets()
	wantMet := []bool{true, false, false}
	if len(r.Targets) != len(wantMet) {
		t.Fatalf("targets %+v", r.Targets)
	}
	for i, tg := range r.Targets {
		if tg.Met != wantMet[i] || tg.Op != ">=" || tg.Limit != InterfaceTarget || !strings.HasSuffix(tg.Name, r.Queries[i].Name) {
			t.Errorf("target %d: %+v, want met=%v", i, tg, wantMet[i])
		}
	}
	if q := r.Queries[0]; q.Ratio != 0.9 || q.P50Ratio != 1.25 {
		t.Errorf("ratios %v %v", q.Ratio, q.P50Ratio)
	}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`targets met: 1 of 3`, `CustomerLow \(5\) and CustomerHigh \(5\)`, `\ntext +100 +2\.00 +4\.00 +90 +2\.50 +5\.00 +0\.90 +1\.25 +>= 0\.83 +ok\n`} {
		if !regexp.MustCompile(want).MatchString(b.String()) {
			t.Errorf("text lacks %s:\n%s", want, b.String())
		}
	}
}

func TestSelectIfaceQueries(t *testing.T) {
	qs := ifaceQueries(1000)
	for _, q := range qs {
		if q.one == nil || q.iface == nil || q.gen == nil {
			t.Errorf("query %s: a side or its parameters missing", q.id)
		}
	}
	got, err := selectIfaceQueries(qs, []string{"text", "group"})
	if err != nil || !maps.Equal(got, map[string]bool{"text": true, "group": true}) {
		t.Errorf("select text, group: %v, %v", got, err)
	}
	if _, err := selectIfaceQueries(qs, []string{"union"}); err == nil || !strings.Contains(err.Error(), "queries: get, text, sorted, sortedSet, count, group") {
		t.Errorf("an unknown query: %v", err)
	}
}
