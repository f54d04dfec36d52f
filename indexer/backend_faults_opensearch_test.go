//go:build integration_opensearch

package indexer_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/opensearchtest"
)

// TestIndexer_Build_openSearchNodeKilled: a node of a three-node cluster
// (three shards, one replica each) is killed with SIGKILL during builds
// and queries, twice: first the node the backend's URLs list first,
// during a full build, then the elected cluster manager (or, when that
// is the first URL's node again, the last URL's), during incremental
// copy-on-write builds. Builds and queries go on while it is down and
// after it is back: every build succeeds or fails with an error naming
// the cluster and the next one catches up; every query answered is the
// embedded index's answer or an error naming the cluster, never another
// answer; and after the last build each type's index, read from its
// primaries and from its replicas, holds exactly the table's rows. Then
// a shard without a replica loses its node (checkNoCopyLeft).
func TestIndexer_Build_openSearchNodeKilled(t *testing.T) {
	testStart := time.Now()
	c := opensearchtest.Must(t, opensearchtest.Options{Nodes: 3})
	t.Logf("three nodes green in %s", time.Since(testStart).Round(100*time.Millisecond))
	// The backend lists every node, node-1 first: the client goes to the
	// next when one does not answer.
	urls := c.URLs()
	urls = append(urls[1:], urls[0])
	first := 1
	threeNodes := func(cfg *config.Config) {
		b := cfg.Backends["cluster"]
		b.URLs, b.Shards, b.Replicas = urls, 3, new(1)
		cfg.Backends["cluster"] = b
		cfg.Build.ChunkRows = 100
	}
	ctx, stopQueries := context.WithCancel(t.Context())
	defer stopQueries()

	// steady is built once, before the faults, and queried all along.
	steady := newBackendFixture(t, "", "steady-", 31, threeNodes)
	steady.build(t, indexer.BuildOptions{})
	steady.checkBackend(t, "steady type built")
	phase := &atomic.Pointer[queryTally]{}
	phases := []*queryTally{{name: "before the kills"}}
	phase.Store(phases[0])
	var queries sync.WaitGroup
	queries.Go(func() { queryLoop(ctx, t, steady, phase) })

	// built takes a full build, then copy-on-write edits, throughout.
	built := newBackendFixture(t, "", "built-", 32, threeNodes)
	if err := built.tbl.Append(built.ctx, built.rows(1500, "more")); err != nil {
		t.Fatal(err)
	}
	b := &faultBuilder{f: built, writes: make(chan struct{}, 1), tick: make(chan struct{}, 1), done: make(chan struct{}), stop: make(chan struct{})}
	var builder sync.WaitGroup
	builder.Go(func() { b.run(t) })
	defer func() {
		b.halt()
		builder.Wait()
	}()

	var downs []time.Time // when each kill happened
	kill := func(i int, when string) {
		t.Helper()
		if err := c.Kill(i); err != nil {
			t.Fatal(err)
		}
		downs = append(downs, time.Now())
		t.Logf("killed node-%d %s", i, when)
		phases = append(phases, &queryTally{name: fmt.Sprintf("node-%d down", i)})
		phase.Store(phases[len(phases)-1])
	}
	restart := func(i int) {
		t.Helper()
		start := time.Now()
		if err := c.Restart(t.Context(), i); err != nil {
			t.Fatal(err)
		}
		joined := time.Since(start)
		phases = append(phases, &queryTally{name: fmt.Sprintf("node-%d back", i)})
		phase.Store(phases[len(phases)-1])
		b.waitBuilds(t, 1) // while its shards recover
		if err := c.WaitHealth(t.Context(), "green"); err != nil {
			t.Fatal(err)
		}
		t.Logf("node-%d rejoined %s after its restart (%s after its kill), green %s after its restart",
			i, joined.Round(100*time.Millisecond), time.Since(downs[len(downs)-1]).Round(100*time.Millisecond), time.Since(start).Round(100*time.Millisecond))
	}

	// Round one: the first URL's node, during the full build (after the
	// batch of its third chunk went out).
	select {
	case <-b.writes:
	case <-b.done:
		t.Fatal("the builds stopped before the full build's third write")
	}
	kill(first, fmt.Sprintf("during the full build, after %d batches", b.written.Load()))
	b.waitBuilds(t, 3) // the full build (or its retries), then incremental ones
	restart(first)

	// Round two: the cluster manager, between and during incremental builds.
	second, err := c.Manager(t.Context(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if second == first {
		second = (first + 2) % 3 // the last URL's node
	}
	b.waitBuilds(t, 1)
	kill(second, "during incremental builds")
	b.waitBuilds(t, 2)
	restart(second)

	b.halt()
	builder.Wait()
	stopQueries()
	queries.Wait()
	if t.Failed() {
		return
	}
	built.edit(t, "last")
	built.build(t, indexer.BuildOptions{})
	built.checkBackend(t, "after the faults")
	for _, f := range []*backendFixture{steady, built} {
		f.checkExact(t, c, "after the faults")
	}
	if st, _ := built.ix.Status("Item"); st.Backend.LagSeconds != 0 {
		t.Errorf("backend lag %.1fs after the last build", st.Backend.LagSeconds)
	}
	st, _ := steady.ix.Status("Item")
	t.Logf("builds: %d succeeded, %d failed (%v)", b.ok, len(b.failed), b.failed)
	for _, p := range phases {
		t.Logf("queries %s: %d answered, %d failed with an error naming the cluster (%v)", p.name, p.ok.Load(), p.failed.Load(), p.errors())
	}
	t.Logf("reads the embedded index answered for the backend: %d", st.Backend.Fallbacks)
	t.Run("a shard with no copy left", func(t *testing.T) { checkNoCopyLeft(t, c, threeNodes) })
	t.Logf("wall time %s", time.Since(testStart).Round(100*time.Millisecond))
}

// faultBuilder runs a type's builds while a test kills nodes: a full
// build, then one edit and an incremental build after another, until
// stop. A build that fails must name the cluster; the next one goes on
// from its checkpoint (the edit it missed included).
type faultBuilder struct {
	f       *backendFixture
	written atomic.Int64
	writes  chan struct{} // one value after the full build's third write
	ended   atomic.Int64  // builds ended, successful or not
	tick    chan struct{} // a value when a build ended since the last
	done    chan struct{} // closed when the builds stopped
	stop    chan struct{} // closed: no more builds
	halted  sync.Once
	ok      int
	failed  []string // the errors of the builds that failed
}

func (b *faultBuilder) run(t *testing.T) {
	defer close(b.done)
	indexer.SetAfterBackend(b.f.ix, func(_, step string) error {
		if step == "write" && b.written.Add(1) == 3 {
			b.writes <- struct{}{}
		}
		return nil
	})
	defer indexer.SetAfterBackend(b.f.ix, nil)
	full := true
	for n := 0; !b.halting(); n++ {
		if !full {
			b.f.edit(t, fmt.Sprintf("step%d", n))
		}
		res, err := b.f.ix.Build(b.f.ctx, "Item", indexer.BuildOptions{})
		if err != nil {
			if !namesCluster(err) {
				t.Errorf("build %d failed with an error that does not name the cluster: %v", n, err)
				return
			}
			b.failed = append(b.failed, err.Error())
			if len(b.failed) > 5 {
				t.Errorf("%d builds failed, the last: %v", len(b.failed), err)
				return
			}
			b.end()
			continue
		}
		if full && res.Kind != indexer.KindFull || !full && res.Kind != indexer.KindIncremental {
			t.Errorf("build %d: %s, want %s", n, res.Kind, map[bool]string{true: "full", false: "incremental"}[full])
			return
		}
		full = false
		b.ok++
		b.end()
		// Room for the nodes and the queries on a shared machine.
		time.Sleep(250 * time.Millisecond)
	}
}

// end counts a build that ended.
func (b *faultBuilder) end() {
	b.ended.Add(1)
	select {
	case b.tick <- struct{}{}:
	default:
	}
}

// halting reports whether the test halted the builds.
func (b *faultBuilder) halting() bool {
	select {
	case <-b.stop:
		return true
	default:
		return false
	}
}

// halt stops the builds after the one running.
func (b *faultBuilder) halt() { b.halted.Do(func() { close(b.stop) }) }

// waitBuilds waits until n more builds have ended, successful or not.
func (b *faultBuilder) waitBuilds(t *testing.T, n int) {
	t.Helper()
	target := b.ended.Load() + int64(n)
	for b.ended.Load() < target {
		select {
		case <-b.tick:
		case <-b.done:
			t.Fatal("the builds stopped")
		}
	}
}

// queryTally counts the queries of one phase of a test.
type queryTally struct {
	name   string
	ok     atomic.Int64
	failed atomic.Int64
	mu     sync.Mutex
	errs   []string // the first errors
}

func (q *queryTally) fail(err error) {
	q.failed.Add(1)
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.errs) < 3 {
		q.errs = append(q.errs, err.Error())
	}
}

func (q *queryTally) errors() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Clone(q.errs)
}
