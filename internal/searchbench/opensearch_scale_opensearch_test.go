//go:build integration_opensearch

package searchbench

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/internal/testkit/commandtest"
	"github.com/ontoindex/ontoindex/internal/testkit/jvmtest"
)

// TestRunScale runs a small scale run on one node of the test kit's
// cheap profile: every customer is served from the backend's build, and
// every edit is found by a search the backend answers; the first 1000
// documents go straight in one bulk request, and the embedded index
// alone builds the table first. A warm-up build comes before the
// measured one, its first 1000 documents sent straight after it. The
// node indexes each document of a build once, all of them accepted (no
// 409 of a document sent twice): what the node counts is the ingest
// comparison's ground.
func TestRunScale(t *testing.T) {
	indexer := commandtest.MustBuild(t, "indexer")
	rep, err := RunScale(context.Background(), ScaleOptions{Rows: 3000, Files: 3, Seed: 1, Nodes: 1, HeapMB: 512, Shards: 2, Replicas: 0,
		Edits: 3, PollInterval: 200 * time.Millisecond, EditTimeout: time.Minute, Straight: 1000, Baseline: true, WarmUp: true, ServeBin: indexer})
	if errors.Is(err, jvmtest.ErrNotInstalled) {
		jvmtest.SkipUnlessInstalled(t, "OpenSearch", err) // fails on CI
	}
	if err != nil {
		t.Fatal(err)
	}
	b := rep.Build
	if b.Objects != 3000 || b.Documents != 3000 || b.Backend.Indexed != 3000 || b.SearchableSeconds <= 0 || b.IndexerCPUSeconds <= 0 || b.NodesCPUSeconds <= 0 || b.StoreMiB <= 0 {
		t.Errorf("build %+v", b)
	}
	if in := b.Straight; in == nil || in.Documents != 1000 || in.Requests != 1 || b.IngestRatio <= 0 {
		t.Errorf("straight bulk %+v, ratio %v", in, b.IngestRatio)
	}
	if n := b.Node; n == nil || n.Indexed != 3000 || n.DocStatus["2xx"] != 3000 || len(n.DocStatus) != 1 || n.CPUSeconds <= 0 || n.WriteTasks < 1 {
		t.Errorf("the node during the build %+v", n)
	}
	if n := b.Straight.Node; n == nil || n.Indexed != 1000 || n.DocStatus["2xx"] != 1000 || n.WriteTasks < 1 {
		t.Errorf("the node during the straight bulk %+v", n)
	}
	if w := rep.WarmUp; w == nil || len(w.Builds) != 1 || w.Builds[0].Indexed != 3000 || w.Node == nil || w.Node.Indexed != 3000 || w.Straight == nil || w.Straight.Documents != 1000 || b.IngestRatioStraightFirst <= 0 {
		t.Errorf("warm-up %+v, ratio straight first %v", w, b.IngestRatioStraightFirst)
	}
	if bl := rep.Baseline; bl == nil || bl.Objects != 3000 || bl.SearchableSeconds <= 0 || bl.CPUSeconds <= 0 {
		t.Errorf("baseline %+v", bl)
	}
	e := rep.Edits
	if len(e.Edits) != 3 || e.Fallbacks != 0 || e.P50Ms <= 0 || e.P99Ms < e.P50Ms {
		t.Errorf("edits %+v", e)
	}
	if len(rep.Memory) != 2 || len(rep.Memory[0].Nodes) != 1 || rep.Memory[0].IndexerRSSMiB <= 0 || rep.Memory[1].Nodes[0].RSSMiB <= 0 {
		t.Errorf("memory %+v", rep.Memory)
	}
}
