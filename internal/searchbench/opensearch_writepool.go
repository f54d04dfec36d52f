package searchbench

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ontoindex/ontoindex/internal/testkit/opensearchtest"
)

// How busy the nodes kept their write threads during a phase: the
// counters of _nodes/stats say how much work a phase asked of them, not
// whether they waited for it. The write thread pool's active threads,
// summed over the nodes, are read every writePoolEvery: a sample of 0
// is a moment when no node indexed a bulk request. Only the samples from
// the first busy one to the last count: a build's phase also holds the
// server's start and the generation's publish.

const writePoolEvery = 25 * time.Millisecond

// WritePool is what the samples of a phase saw.
type WritePool struct {
	Samples int `json:"samples"`
	// Idle is the share of the samples with no active write thread,
	// MeanActive the mean of the active threads.
	Idle       float64 `json:"idle"`
	MeanActive float64 `json:"meanActive"`
}

// sampleWritePool samples the nodes' write thread pools until the
// returned function is called, which returns what they saw (nil without
// a sample).
func sampleWritePool(ctx context.Context, c *opensearchtest.Cluster) func() *WritePool {
	var samples []int
	stop := sampleEvery(ctx, writePoolEvery, func(ctx context.Context) {
		if n, err := writeActive(ctx, c); err == nil { // else a sample lost to a slow answer or the end
			samples = append(samples, n)
		}
	})
	return func() *WritePool {
		stop()
		return writePoolOf(samples)
	}
}

// writePoolOf is what samples saw from the first busy one to the last;
// nil when none was busy.
func writePoolOf(samples []int) *WritePool {
	first := slices.IndexFunc(samples, func(n int) bool { return n > 0 })
	if first < 0 {
		return nil
	}
	last := len(samples) - 1
	for samples[last] == 0 {
		last--
	}
	busy := samples[first : last+1]
	wp := WritePool{Samples: len(busy)}
	active := 0
	for _, n := range busy {
		active += n
		if n == 0 {
			wp.Idle++
		}
	}
	wp.Idle /= float64(wp.Samples)
	wp.MeanActive = float64(active) / float64(wp.Samples)
	return &wp
}

// writeActive is the active write threads of every node.
func writeActive(ctx context.Context, c *opensearchtest.Cluster) (int, error) {
	status, body, err := c.Do(ctx, http.MethodGet, "/_cat/thread_pool/write?h=active", nil)
	if err != nil {
		return 0, err
	}
	if status != http.StatusOK {
		return 0, fmt.Errorf("opensearch: the write thread pool: %d %.300s", status, body)
	}
	n := 0
	for _, f := range strings.Fields(string(body)) {
		v, err := strconv.Atoi(f)
		if err != nil {
			return 0, fmt.Errorf("opensearch: the write thread pool: %q", body)
		}
		n += v
	}
	return n, nil
}

// text is the samples' figures, for the report.
func (wp *WritePool) text() string {
	if wp == nil {
		return ""
	}
	return fmt.Sprintf("; write threads idle in %.0f%% of %d samples every %s from the first busy one to the last, %.2f active on average",
		wp.Idle*100, wp.Samples, writePoolEvery, wp.MeanActive)
}
