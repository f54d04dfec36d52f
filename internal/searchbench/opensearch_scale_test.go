package searchbench

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestScaleOptions_Check(t *testing.T) {
	ok := ScaleOptions{Rows: 10_000, Files: 4, Nodes: 3, HeapMB: 512, Shards: 3, Replicas: 1, Edits: 5, PollInterval: time.Second,
		EditTimeout: time.Minute, ServeBin: "indexer"}
	tests := []struct {
		name   string
		change func(o *ScaleOptions)
		want   string // in the error; "" for none
	}{
		{"valid", func(o *ScaleOptions) {}, ""},
		{"two nodes", func(o *ScaleOptions) { o.Nodes = 2 }, "nodes 2 (1 or 3)"},
		{"a replica on one node", func(o *ScaleOptions) { o.Nodes, o.Replicas = 1, 1 }, "replicas 1 (0..nodes-1)"},
		{"no edits", func(o *ScaleOptions) { o.Edits = 0 }, "edits 0"},
		{"no binary", func(o *ScaleOptions) { o.ServeBin = "" }, `serve binary ""`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := ok
			tc.change(&o)
			err := o.Check()
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("Check: %v, want %q", err, tc.want)
			}
		})
	}
}

// TestEditKey: the edits go to distinct keys of the table, spread over
// it.
func TestEditKey(t *testing.T) {
	for _, tc := range []struct{ rows, n int }{{1000, 1}, {1000, 20}, {10_000_000, 20}, {1000, 1000}} {
		seen := map[int64]bool{}
		for i := range tc.n {
			k := editKey(int64(tc.rows), i, tc.n)
			if k < 0 || k >= int64(tc.rows) || seen[k] {
				t.Fatalf("rows %d, %d edits: edit %d goes to key %d (seen before: %v)", tc.rows, tc.n, i, k, seen[k])
			}
			seen[k] = true
		}
	}
}

func TestScaleEdits_summarize(t *testing.T) {
	e := ScaleEdits{}
	for i := range 20 {
		e.Edits = append(e.Edits, Edit{CommitMs: float64(100 + i), SearchableMs: float64(1000 + 100*i)})
	}
	e.summarize()
	if e.P50Ms != 1900 || e.P99Ms != 2900 || e.MaxMs != 2900 || e.CommitP50Ms != 109 {
		t.Errorf("p50 %v, p99 %v, max %v, commit p50 %v; want 1900, 2900, 2900, 109", e.P50Ms, e.P99Ms, e.MaxMs, e.CommitP50Ms)
	}
}

// TestOnBackend: the config names the cluster's every node, the index
// layout, and the backend on every type.
func TestOnBackend(t *testing.T) {
	cfg := onBackend(serverConfig, []string{"http://127.0.0.1:1", "http://127.0.0.1:2"}, 3, 1, "none")
	for _, want := range []string{"urls: [http://127.0.0.1:1, http://127.0.0.1:2]", "shards: 3", "replicas: 1", "embeddedIndex: none"} {
		if !strings.Contains(cfg, want) {
			t.Errorf("no %q in\n%s", want, cfg)
		}
	}
	if n := strings.Count(cfg, "backend: "+openSearchBackend+"\n"); n != 2 {
		t.Errorf("%d types on the backend, want 2:\n%s", n, cfg)
	}
}

func TestScaleReport_WriteText(t *testing.T) {
	node := &NodeStats{CPUSeconds: 0.05, Indexed: 1000, Threads: map[string]float64{"opensearch": 0.03, "C2 CompilerThre": 0.02}}
	straight := &IngestFigures{Documents: 1000, BulkSeconds: 1, Requests: 1, Node: node}
	r := &ScaleReport{Rows: 1000, Nodes: 3,
		WarmUp: &WarmUp{Seconds: 4, Builds: []BackendBuild{{Seconds: 4, Indexed: 1000}}, Node: node, Straight: straight},
		Build: ScaleBuild{SearchableSeconds: 10, Objects: 1000, IndexerCPUSeconds: 2, Backend: BackendBuild{Seconds: 2, Indexed: 1000},
			Node: node, Straight: straight, IngestRatio: 0.5, IngestRatioStraightFirst: 0.5},
		Memory: []ScaleMemory{{When: "after the build", IndexerRSSMiB: 100, Nodes: []NodeMemory{{Name: "node-0", RSSMiB: 900}}}}}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"100 objects/s to searchable", "the indexer 2.00 s (2000 µs an object)", "node-0 900 MiB",
		"warm-up before it, the node's first writes: searchable after 4.00 s", "250 documents/s",
		"during the build: the nodes 50.0 µs of CPU a document (opensearch 30.0, C2 CompilerThre 20.0)",
		"during the straight bulk: the nodes 50.0 µs", "the other order: the build's rate over the straight bulk's before it (after the warm-up): ratio 0.50"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
}

// TestSampleEvery samples until stopped, and not once after: what the
// samples kept is the caller's when stop returns.
func TestSampleEvery(t *testing.T) {
	n := 0
	three := make(chan struct{})
	stop := sampleEvery(t.Context(), time.Millisecond, func(context.Context) {
		if n++; n == 3 {
			close(three)
		}
	})
	<-three
	stop()
	seen := n
	time.Sleep(10 * time.Millisecond) // ten ticks a running sampler would take
	if n != seen {
		t.Fatalf("%d samples after stop", n-seen)
	}
}
