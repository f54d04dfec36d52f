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

// The warm-up of a measured build into OpenSearch: the same tables built
// once into the cluster by a server of its own before the measured build,
// then its indexes dropped; in the scale run, also its documents sent
// straight once (the straight bulk in the other order: before the
// measured build). A node's first writes after its start pay for its JIT
// compilers (the C2 compiler took 18-22 µs of the node's CPU a document
// over a first build of 400,000 documents, against 8-9 µs over the
// straight bulk that followed) and run its code uncompiled until then;
// the straight bulk, sent after the build, never paid that. With the
// warm-up both sides run on a node that indexed the tables once, and the
// warm-up's own figures say what the first writes cost.

// WarmUp is the warm-up's figures.
type WarmUp struct {
	Seconds float64        `json:"seconds"` // process start until /readyz
	LoadMin float64        `json:"loadMin"`
	LoadMax float64        `json:"loadMax"`
	Builds  []BackendBuild `json:"builds"` // one a type
	Node    *NodeStats     `json:"node,omitempty"`
	// Straight is the warm-up's documents sent straight after it, before
	// the measured build (nil: no straight bulk asked for).
	Straight *IngestFigures `json:"straight,omitempty"`
}

// Indexed is the documents the warm-up's builds indexed.
func (w *WarmUp) Indexed() int64 {
	n := int64(0)
	for _, b := range w.Builds {
		n += b.Indexed
	}
	return n
}

// warmUpRun is a warm-up to run: the measured server's binary and
// configuration, on a cluster, its types, and how many documents of the
// first to send straight after it.
type warmUpRun struct {
	bin      string
	env      []string
	work     string // the bench's work directory, whose warehouse cfg reads
	cfg      string
	cluster  *opensearchtest.Cluster
	nodes    []nodeProcess
	types    []string
	straight int64 // 0: none
}

// run builds the types of cfg into the cluster from a directory of its
// own beside the warehouse, stops the server, sends the first straight
// documents of the first type straight and deletes the indexes it made.
func (r warmUpRun) run(ctx context.Context, progress io.Writer, say func(string, ...any)) (*WarmUp, error) {
	dir, cfgPath, err := writeSideConfig(r.work, "warmup", r.cfg)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	say("warm-up: a throwaway build of the tables into the cluster by a server of its own")
	stats0, err := nodeSnapshot(ctx, r.cluster, r.nodes)
	if err != nil {
		return nil, err
	}
	load := sampleLoad(ctx, 5*time.Second)
	start := time.Now()
	srv, err := startServe(ctx, r.bin, r.env, cfgPath, "warm-up", progress)
	if err != nil {
		load()
		return nil, err
	}
	w := &WarmUp{Seconds: time.Since(start).Seconds()}
	w.LoadMin, w.LoadMax = load()
	stats1, err := nodeSnapshot(ctx, r.cluster, r.nodes)
	if err != nil {
		srv.stop()
		return nil, err
	}
	w.Node = stats1.sub(stats0)
	w.Builds, err = backendBuilds(ctx, srv, r.types...)
	srv.stop()
	if err != nil {
		return nil, err
	}
	say("warm-up: searchable after %.1f s (load average %.1f-%.1f)", w.Seconds, w.LoadMin, w.LoadMax)
	if r.straight > 0 {
		side := &openSearchSide{cluster: r.cluster}
		if w.Straight, err = side.straightBulk(ctx, []string{"bench-" + strings.ToLower(r.types[0])}, r.straight, say); err != nil {
			return nil, err
		}
		say("warm-up: straight bulk of %d documents: %.1f s", w.Straight.Documents, w.Straight.BulkSeconds)
	}
	// The measured server's generation has the same number: its build
	// would drop this index first, but within its own time.
	status, body, err := r.cluster.Do(ctx, http.MethodDelete, "/bench-*", nil)
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
