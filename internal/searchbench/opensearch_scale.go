package searchbench

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/ontoindex/ontoindex/internal/benchdata"
	"github.com/ontoindex/ontoindex/internal/testkit/opensearchtest"
)

// The scale run of the OpenSearch backend (`ontolab bench opensearch`,
// issue 30): the customers table of this bench at millions of rows, one
// `indexer serve` whose Customer type names a cluster of the test kit as
// its backend, timed from process start until it serves the whole table,
// then one-row copy-on-write edits, each timed from its commit's return
// until a search through the API, which the backend answers, finds the
// edited value. Orders are left out: the run measures one type's build
// into the cluster, not the link.

// ScaleOptions configure RunScale.
type ScaleOptions struct {
	Rows, Files int
	Seed        uint64
	// Nodes (1 or 3), each with HeapMB of heap and the kit's Profile;
	// the type's indexes have Shards shards of Replicas replicas.
	Nodes, HeapMB, Shards, Replicas int
	Profile                         opensearchtest.Profile
	// Edits is how many one-row edits are committed after the build; the
	// server polls the table every PollInterval.
	Edits        int
	PollInterval time.Duration
	// EditTimeout bounds the wait for one edit to be found.
	EditTimeout time.Duration
	// Straight is how many of the built documents are read back and
	// sent again straight in bulk requests, for the node's own bulk rate
	// (0: none).
	Straight int64
	// Baseline builds the same table into a server of the embedded
	// index alone first, for its time to searchable.
	Baseline bool
	// WarmUp builds the table into the cluster once before the measured
	// build, so that the build and the straight bulk both run on a node
	// past its first writes (opensearch_scale_warmup.go).
	WarmUp bool
	// EmbeddedIndex is the backend's embeddedIndex (empty: the default,
	// full).
	EmbeddedIndex string
	// Dir is the work directory (empty: a temporary one, removed after).
	Dir      string
	ServeBin string
	ServeEnv []string
	// Progress receives what the run is doing (nil: nothing).
	Progress io.Writer
}

// Check says what is wrong with the options, if anything.
func (o ScaleOptions) Check() error {
	if o.Rows < 1000 || o.Files < 1 || o.Files > o.Rows || (o.Nodes != 1 && o.Nodes != 3) || o.HeapMB < 256 ||
		o.Shards < 1 || o.Replicas < 0 || o.Replicas >= o.Nodes || o.Edits < 1 || o.Edits > o.Rows || o.Straight < 0 || o.PollInterval <= 0 || o.EditTimeout <= 0 || o.ServeBin == "" {
		return fmt.Errorf("searchbench: bad options: rows %d (>= 1000), files %d (1..rows), nodes %d (1 or 3), heap %d MiB (>= 256), shards %d (>= 1), "+
			"replicas %d (0..nodes-1), edits %d (1..rows), poll interval %s, edit timeout %s, serve binary %q",
			o.Rows, o.Files, o.Nodes, o.HeapMB, o.Shards, o.Replicas, o.Edits, o.PollInterval, o.EditTimeout, o.ServeBin)
	}
	return nil
}

// RunScale runs the scale run.
func RunScale(ctx context.Context, o ScaleOptions) (*ScaleReport, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	progress, say := progressOf(o.Progress)
	work, removeWork, err := WorkDir(o.Dir, "indexer-bench-opensearch-")
	if err != nil {
		return nil, err
	}
	defer removeWork()
	rep := &ScaleReport{Rows: o.Rows, Files: o.Files, CPUs: runtime.NumCPU(), OpenSearch: opensearchtest.Version, Nodes: o.Nodes,
		HeapMiB: o.HeapMB, Profile: o.Profile.String(), Shards: o.Shards, Replicas: o.Replicas, PollInterval: o.PollInterval.String(),
		EmbeddedIndex: cmp.Or(o.EmbeddedIndex, "full")}
	rep.Version = serverVersion(ctx, o.ServeBin, o.ServeEnv)

	say("writing %d customers into an Iceberg table (%d files)", o.Rows, o.Files)
	start := time.Now()
	tbl, err := benchdata.WriteCustomers(ctx, work, o.Seed, o.Rows, o.Files)
	if err != nil {
		return nil, err
	}
	rep.WriteTableSeconds = time.Since(start).Seconds()

	cfg := serverConfigHead + fmt.Sprintf("daemon:\n  pollInterval: %s\n", o.PollInterval) + "objectTypes:\n" + customerTypeConfig
	if o.Baseline {
		say("baseline: %s serve --build of the embedded index alone", o.ServeBin)
		if rep.Baseline, err = embeddedBaseline(ctx, o, work, cfg, progress); err != nil {
			return nil, err
		}
		say("baseline: searchable after %.1f s (load average %.1f-%.1f)", rep.Baseline.SearchableSeconds, rep.Baseline.LoadMin, rep.Baseline.LoadMax)
	}

	say("starting %d OpenSearch %s nodes (heap %d MiB each, %s)", o.Nodes, opensearchtest.Version, o.HeapMB, o.Profile)
	start = time.Now()
	c, err := opensearchtest.Start(ctx, opensearchtest.Options{Nodes: o.Nodes, HeapMB: o.HeapMB, Profile: o.Profile})
	if err != nil {
		return nil, fmt.Errorf("opensearch: %w", err)
	}
	defer func() { _ = c.Stop() }()
	rep.ClusterStartSeconds = time.Since(start).Seconds()
	nodes, err := nodeProcesses(ctx, c)
	if err != nil {
		return nil, err
	}

	backendCfg := onBackend(cfg, c.URLs(), o.Shards, o.Replicas, o.EmbeddedIndex)
	cfgPath, err := writeConfig(work, backendCfg)
	if err != nil {
		return nil, err
	}
	if o.WarmUp {
		w := warmUpRun{bin: o.ServeBin, env: o.ServeEnv, work: work, cfg: backendCfg, cluster: c, nodes: nodes, types: []string{objectType}, straight: o.Straight}
		if rep.WarmUp, err = w.run(ctx, progress, say); err != nil {
			return nil, fmt.Errorf("warm-up: %w", err)
		}
	}
	say("starting %s serve --build with Customer on the cluster (%d shards, %d replicas)", o.ServeBin, o.Shards, o.Replicas)
	nodesCPU := func() float64 {
		sum := 0.0
		for _, n := range nodes {
			sum += procCPUSeconds(n.pid)
		}
		return sum
	}
	stats0, err := nodeSnapshot(ctx, c, nodes)
	if err != nil {
		return nil, err
	}
	load := sampleLoad(ctx, 5*time.Second)
	pool := sampleWritePool(ctx, c)
	cpu0 := nodesCPU()
	start = time.Now()
	srv, err := startServe(ctx, o.ServeBin, o.ServeEnv, cfgPath, "ontoindex+opensearch", progress)
	if err != nil {
		load()
		pool()
		return nil, err
	}
	defer srv.stop()
	b := &rep.Build
	b.SearchableSeconds = time.Since(start).Seconds()
	b.LoadMin, b.LoadMax = load()
	b.IndexerCPUSeconds, b.NodesCPUSeconds = procCPUSeconds(srv.pid()), nodesCPU()-cpu0
	written := pool()
	stats1, err := nodeSnapshot(ctx, c, nodes)
	if err != nil {
		return nil, err
	}
	b.Node = stats1.sub(stats0)
	b.Node.WritePool = written
	say("searchable after %.1f s (load average %.1f-%.1f)", b.SearchableSeconds, b.LoadMin, b.LoadMax)
	if b.Objects, err = srv.objects(ctx, objectType); err != nil {
		return nil, err
	}
	if b.Objects != int64(o.Rows) {
		return nil, fmt.Errorf("the server serves %d customers, want %d", b.Objects, o.Rows)
	}
	builds, err := backendBuilds(ctx, srv, objectType)
	if err != nil {
		return nil, err
	}
	b.Backend = builds[0]
	if err := indexSize(ctx, c, &rep.Build); err != nil {
		return nil, err
	}
	rep.Memory = append(rep.Memory, memoryOf(ctx, "after the build", srv, nodes))
	if o.Straight > 0 {
		side := &openSearchSide{cluster: c}
		if b.Straight, err = side.straightBulk(ctx, []string{"bench-" + strings.ToLower(objectType)}, o.Straight, say); err != nil {
			return nil, err
		}
		b.IngestRatio = ingestRatio(b.Backend, b.Straight)
		say("straight bulk of %d documents: %.1f s; the build's rate / the straight rate: %.2f", b.Straight.Documents, b.Straight.BulkSeconds, b.IngestRatio)
		if rep.WarmUp != nil && rep.WarmUp.Straight != nil {
			b.IngestRatioStraightFirst = ingestRatio(b.Backend, rep.WarmUp.Straight)
			say("the build's rate / the rate of the straight bulk before it: %.2f", b.IngestRatioStraightFirst)
		}
	}

	client := newOntoClient(srv.base, 1)
	defer client.close()
	fallbacks0, err := fallbacks(ctx, srv)
	if err != nil {
		return nil, err
	}
	say("%d one-row copy-on-write edits, each timed until a search finds it", o.Edits)
	ed := &editor{tbl: tbl, seed: o.Seed, rows: int64(o.Rows), client: client, timeout: o.EditTimeout}
	r := rand.New(rand.NewPCG(o.Seed, 30))
	rep.Edits.LoadBefore = LoadAverage()
	for i := range o.Edits {
		// A commit at a random point of the poll interval, not in step
		// with the server's polls (the edit before was found right after
		// one).
		select {
		case <-time.After(time.Duration(r.Int64N(int64(o.PollInterval)))):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		e, err := ed.edit(ctx, i, o.Edits)
		if err != nil {
			return nil, err
		}
		rep.Edits.Edits = append(rep.Edits.Edits, e)
		say("edit %d (customer %d): commit %.0f ms, then searchable after %.0f ms", i, e.Key, e.CommitMs, e.SearchableMs)
	}
	rep.Edits.LoadAfter = LoadAverage()
	fallbacks1, err := fallbacks(ctx, srv)
	if err != nil {
		return nil, err
	}
	if rep.Edits.Fallbacks = fallbacks1 - fallbacks0; rep.Edits.Fallbacks > 0 {
		return nil, fmt.Errorf("the embedded index answered %d of the edits' searches: not the backend's figures", rep.Edits.Fallbacks)
	}
	rep.Edits.summarize()
	rep.Memory = append(rep.Memory, memoryOf(ctx, "after the edits", srv, nodes))
	return rep, nil
}

// embeddedBaseline builds the table into a server of cfg, the embedded
// index alone, in a directory of its own beside the warehouse, and stops
// it once it serves.
func embeddedBaseline(ctx context.Context, o ScaleOptions, work, cfg string, progress io.Writer) (*ScaleBaseline, error) {
	dir, cfgPath, err := writeSideConfig(work, "embedded", cfg)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	load := sampleLoad(ctx, 5*time.Second)
	start := time.Now()
	srv, err := startServe(ctx, o.ServeBin, o.ServeEnv, cfgPath, "ontoindex", progress)
	if err != nil {
		load()
		return nil, err
	}
	defer srv.stop()
	b := &ScaleBaseline{SearchableSeconds: time.Since(start).Seconds(), CPUSeconds: procCPUSeconds(srv.pid()), PeakRSSMiB: procStatusMiB(srv.pid(), "VmHWM")}
	b.LoadMin, b.LoadMax = load()
	if b.Objects, err = srv.objects(ctx, objectType); err == nil && b.Objects != int64(o.Rows) {
		err = fmt.Errorf("the embedded server serves %d customers, want %d", b.Objects, o.Rows)
	}
	return b, err
}

// fallbacks is how many reads of Customer the backend refused and the
// embedded index answered, so far.
func fallbacks(ctx context.Context, srv *ontoServer) (int64, error) {
	var st backendTypeStatus
	err := srv.statusInto(ctx, objectType, &st)
	return st.Backend.Fallbacks, err
}

// indexSize fills the document count and store size of the type's index,
// as the cluster reports them.
func indexSize(ctx context.Context, c *opensearchtest.Cluster, b *ScaleBuild) error {
	status, body, err := c.Do(ctx, http.MethodGet, "/_cat/indices/bench-*?format=json&bytes=b&h=index,docs.count,store.size,pri.store.size", nil)
	if err != nil {
		return err
	}
	var rows []struct {
		Index     string `json:"index"`
		Docs      int64  `json:"docs.count,string"`
		Store     int64  `json:"store.size,string"`
		Primaries int64  `json:"pri.store.size,string"`
	}
	if status != http.StatusOK || json.Unmarshal(body, &rows) != nil {
		return fmt.Errorf("opensearch: the index's size: %d %.300s", status, body)
	}
	if len(rows) != 1 {
		return fmt.Errorf("opensearch: %d indexes of the bench, want 1: %s", len(rows), body)
	}
	b.Index, b.Documents, b.StoreMiB, b.PrimariesMiB = rows[0].Index, rows[0].Docs, float64(rows[0].Store)/(1<<20), float64(rows[0].Primaries)/(1<<20)
	return nil
}

// memoryOf reads the resident sets of the server and of every node.
func memoryOf(ctx context.Context, when string, srv *ontoServer, nodes []nodeProcess) ScaleMemory {
	server := srv.pid()
	m := ScaleMemory{When: when, IndexerRSSMiB: procStatusMiB(server, "VmRSS"), IndexerPeakRSSMiB: procStatusMiB(server, "VmHWM"),
		IndexerAnonMiB: procStatusMiB(server, "RssAnon"), IndexerHeapMiB: srv.heapInuseMiB(ctx)}
	for _, n := range nodes {
		m.Nodes = append(m.Nodes, NodeMemory{Name: n.name, RSSMiB: procStatusMiB(n.pid, "VmRSS"), PeakRSSMiB: procStatusMiB(n.pid, "VmHWM")})
	}
	return m
}

// sampleLoad reads the 1-minute load average every interval until the
// function it returns is called, which returns the least and the most
// read (the first reading is at once).
func sampleLoad(ctx context.Context, every time.Duration) func() (lo, hi float64) {
	lo, hi := LoadAverage(), LoadAverage()
	stop := sampleEvery(ctx, every, func(context.Context) {
		l := LoadAverage()
		lo, hi = min(lo, l), max(hi, l)
	})
	return func() (float64, float64) {
		stop()
		return lo, hi
	}
}

// sampleEvery calls sample every interval on a goroutine of its own until
// the function it returns is called, which cancels sample's context and
// waits for the goroutine: what sample kept is then the caller's.
func sampleEvery(ctx context.Context, every time.Duration, sample func(context.Context)) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				sample(ctx)
			}
		}
	})
	return func() {
		cancel()
		wg.Wait()
	}
}
