package searchbench

import (
	"strings"
	"testing"
)

func TestThreadGroup(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"C2 CompilerThre", "C2 CompilerThre"},
		{"GC Thread#3", "GC Thread"},
		{"G1 Conc#0", "G1 Conc"},
		{"opensearch[node", "opensearch"},
		{"VM Thread", "VM Thread"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := threadGroup(tc.name); got != tc.want {
				t.Errorf("threadGroup(%q) = %q, want %q", tc.name, got, tc.want)
			}
		})
	}
}

// TestNodeStats_sub: a phase's figures are the counters' differences;
// thread groups and statuses that did not move are left out.
func TestNodeStats_sub(t *testing.T) {
	before := NodeStats{CPUSeconds: 10, Indexed: 100, IndexMs: 50, Merges: 1, Refreshes: 2, YoungGCs: 3, WriteTasks: 4,
		DocStatus: map[string]int64{"2xx": 100, "4xx": 2}, Threads: map[string]float64{"C2 CompilerThre": 5, "VM Thread": 1}}
	after := NodeStats{CPUSeconds: 14, Indexed: 300, IndexMs: 80, Merges: 1, Refreshes: 3, YoungGCs: 5, WriteTasks: 6,
		DocStatus: map[string]int64{"2xx": 300, "4xx": 2}, Threads: map[string]float64{"C2 CompilerThre": 6, "VM Thread": 1, "opensearch": 3}}
	d := after.sub(before)
	if d.CPUSeconds != 4 || d.Indexed != 200 || d.IndexMs != 30 || d.Merges != 0 || d.Refreshes != 1 || d.YoungGCs != 2 || d.WriteTasks != 2 {
		t.Errorf("sub: %+v", d)
	}
	if len(d.DocStatus) != 1 || d.DocStatus["2xx"] != 200 {
		t.Errorf("statuses %v, want 2xx 200 alone", d.DocStatus)
	}
	if len(d.Threads) != 2 || d.Threads["C2 CompilerThre"] != 1 || d.Threads["opensearch"] != 3 {
		t.Errorf("threads %v, want C2 1 and opensearch 3", d.Threads)
	}
	text := d.text(200)
	for _, want := range []string{"the nodes 20000 µs of CPU a document (opensearch 15000, C2 CompilerThre 5000)", "200 index operations for 200 documents"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in %s", want, text)
		}
	}
}
