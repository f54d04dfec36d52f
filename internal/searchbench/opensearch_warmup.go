package searchbench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/ontoindex/ontoindex/internal/testkit/opensearchtest"
)

// The warm-up of the scale run: the same table built once into the
// cluster by a server of its own before the measured build, its
// documents sent straight once (the straight bulk in the other order:
// before the measured build), then its indexes dropped. A node's first
// writes after its start pay for its JIT compilers (the C2 compiler took
// 18-22 µs of the node's CPU a document over a first build of 400,000
// documents, against 8-9 µs over the straight bulk that followed) and run
// its code uncompiled until then; the straight bulk, sent after the
// build, never paid that. With the warm-up both sides run on a node that
// indexed the table once, the straight bulk once before and once after
// the measured build, and the warm-up's own figures say what the first
// writes cost.

// ScaleWarmUp is the warm-up's figures.
type ScaleWarmUp struct {
	Seconds float64      `json:"seconds"` // process start until /readyz
	LoadMin float64      `json:"loadMin"`
	LoadMax float64      `json:"loadMax"`
	Backend BackendBuild `json:"backend"`
	Node    *NodeStats   `json:"node,omitempty"`
	// Straight is the warm-up's documents sent straight after it, before
	// the measured build (nil: no straight bulk asked for).
	Straight *IngestFigures `json:"straight,omitempty"`
}

// warmUp builds the table of cfg (the measured server's configuration)
// into the cluster from a directory of its own beside the warehouse,
// stops the server, sends the first o.Straight documents straight and
// deletes the indexes it made.
func warmUp(ctx context.Context, o ScaleOptions, work, cfg string, c *opensearchtest.Cluster, nodes []nodeProcess, progress io.Writer, say func(string, ...any)) (*ScaleWarmUp, error) {
	dir, cfgPath, err := writeSideConfig(work, "warmup", cfg)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	say("warm-up: a throwaway build of the table into the cluster by a server of its own")
	stats0, err := nodeSnapshot(ctx, c, nodes)
	if err != nil {
		return nil, err
	}
	load := sampleLoad(ctx, 5*time.Second)
	start := time.Now()
	srv, err := startServe(ctx, o.ServeBin, o.ServeEnv, cfgPath, "warm-up", progress)
	if err != nil {
		load()
		return nil, err
	}
	w := &ScaleWarmUp{Seconds: time.Since(start).Seconds()}
	w.LoadMin, w.LoadMax = load()
	stats1, err := nodeSnapshot(ctx, c, nodes)
	if err != nil {
		srv.stop()
		return nil, err
	}
	w.Node = stats1.sub(stats0)
	builds, err := backendBuilds(ctx, srv, objectType)
	srv.stop()
	if err != nil {
		return nil, err
	}
	w.Backend = builds[0]
	say("warm-up: searchable after %.1f s (load average %.1f-%.1f)", w.Seconds, w.LoadMin, w.LoadMax)
	if o.Straight > 0 {
		side := &openSearchSide{cluster: c}
		if w.Straight, err = side.straightBulk(ctx, []string{"bench-" + strings.ToLower(objectType)}, o.Straight, say); err != nil {
			return nil, err
		}
		say("warm-up: straight bulk of %d documents: %.1f s", w.Straight.Documents, w.Straight.BulkSeconds)
	}
	// The measured server's generation has the same number: its build
	// would drop this index first, but within its own time.
	status, body, err := c.Do(ctx, http.MethodDelete, "/bench-*", nil)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("opensearch: delete the warm-up's indexes: %d %.300s", status, body)
	}
	return w, nil
}

// ingestRatio is a build's documents/s over a straight bulk's.
func ingestRatio(b BackendBuild, in *IngestFigures) float64 {
	if b.Seconds <= 0 || in == nil || in.BulkSeconds <= 0 {
		return 0
	}
	return (float64(b.Indexed) / b.Seconds) / (float64(in.Documents) / in.BulkSeconds)
}
