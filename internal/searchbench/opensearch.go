package searchbench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ontoindex/ontoindex/internal/testkit/opensearchtest"
)

// The OpenSearch side of the bench (Options.OpenSearch): a one-node
// cluster of the test kit, and a second `indexer serve` on the same
// Iceberg tables whose two types name it as their backend. A second
// server, not a second type in the first: each server's time to
// searchable, memory and CPU per request are its own, and both types keep
// their apiNames, links and config, so that every query is the same
// request on both servers. The backend server runs three times on the
// same data directory: it builds (time to searchable), then serves
// through a recording proxy while its answers are checked against the
// embedded server's and the query DSL of each request is taken down
// (opensearch_dsl.go), then serves straight from the cluster while it is
// measured.

// openSearchBackend is the name of the backend in the server's config.
const openSearchBackend = "bench"

// openSearchHeapMB is the node's heap: at 1M objects a type, 1 GiB
// tripped the node's circuit breaker under the straight bulk (its serial
// collector lets the heap fill before it collects).
const openSearchHeapMB = 2048

// backendConfig is the server config of the backend server in a
// directory beside the warehouse's: the types name the cluster at url.
func backendConfig(url string) string {
	return onBackend(besideWarehouse(serverConfig), []string{url}, 1, 0, "")
}

// onBackend is cfg with a backends section of the cluster at urls, whose
// new indexes have shards shards of replicas replicas each, and every
// type naming it.
func onBackend(cfg string, urls []string, shards, replicas int, embeddedIndex string) string {
	backends := fmt.Sprintf("backends:\n  %s:\n    type: opensearch\n    urls: [%s]\n    indexPrefix: bench-\n    shards: %d\n    replicas: %d\n",
		openSearchBackend, strings.Join(urls, ", "), shards, replicas)
	if embeddedIndex != "" {
		backends += "    embeddedIndex: " + embeddedIndex + "\n"
	}
	cfg = strings.Replace(cfg, "objectTypes:\n", backends+"objectTypes:\n", 1)
	return strings.ReplaceAll(cfg, "\n    primaryKey: [id]\n", "\n    primaryKey: [id]\n    backend: "+openSearchBackend+"\n")
}

// openSearchSide is the cluster and the backend server.
type openSearchSide struct {
	cluster *opensearchtest.Cluster
	dir     string // the backend server's directory
	bin     string
	env     []string
	srv     *ontoServer
	client  *ontoClient
	direct  *rawHTTP // to the cluster's node, for the straight DSL
	jvmPID  int
	// deepSkip is where the deep paging row starts (0: unknown yet); each
	// start of the server finds its own token there.
	deepSkip int
	calls    map[string]*dslCalls // per query id, from the capture
}

// startOpenSearch starts the cluster and builds the backend server's
// types into it, filling rep.OpenSearch's time to searchable.
func startOpenSearch(ctx context.Context, o Options, work string, rep *Report, progress *lockedWriter, say func(string, ...any)) (_ *openSearchSide, err error) {
	profile := opensearchtest.ProfileTest
	if o.OpenSearchTuned {
		profile = opensearchtest.ProfileBench
	}
	on := "every processor"
	if o.OpenSearchCPUs != "" { // checked by Run
		on = "processors " + o.OpenSearchCPUs + " alone"
	}
	say("starting a one-node OpenSearch %s cluster (heap %d MiB, %s, on %s)", opensearchtest.Version, openSearchHeapMB, profile, on)
	start := time.Now()
	c, err := opensearchtest.Start(ctx, opensearchtest.Options{HeapMB: openSearchHeapMB, Profile: profile, CPUs: o.OpenSearchCPUs})
	if err != nil {
		return nil, fmt.Errorf("opensearch: %w", err)
	}
	s := &openSearchSide{cluster: c, dir: filepath.Join(work, "opensearch"), bin: o.ServeBin, env: o.ServeEnv}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	rep.OpenSearch = &OpenSearchFigures{Version: opensearchtest.Version, Nodes: 1, HeapMiB: openSearchHeapMB, Profile: profile.String(), CPUs: o.OpenSearchCPUs, StartSeconds: time.Since(start).Seconds()}
	if s.jvmPID, err = s.nodePID(ctx); err != nil {
		return nil, err
	}
	u, err := url.Parse(c.URL())
	if err != nil {
		return nil, err
	}
	s.direct = newRawHTTP(u.Host, o.Clients)
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return nil, err
	}
	nodes := []nodeProcess{{name: "node-0", pid: s.jvmPID}}
	if o.OpenSearchWarmUp {
		w := warmUpRun{bin: o.ServeBin, env: o.ServeEnv, work: work, cfg: backendConfig(c.URL()), cluster: c, nodes: nodes, types: []string{objectType, orderType}}
		if rep.OpenSearch.WarmUp, err = w.run(ctx, progress, say); err != nil {
			return nil, fmt.Errorf("opensearch warm-up: %w", err)
		}
	}
	say("starting %s serve --build with both types on OpenSearch", o.ServeBin)
	stats0, err := nodeSnapshot(ctx, c, nodes)
	if err != nil {
		return nil, err
	}
	start = time.Now()
	if err := s.serve(ctx, c.URL(), progress); err != nil {
		return nil, err
	}
	f := rep.OpenSearch
	f.SearchableSeconds = time.Since(start).Seconds()
	stats1, err := nodeSnapshot(ctx, c, nodes)
	if err != nil {
		return nil, err
	}
	f.BuildNode = stats1.sub(stats0)
	if f.Objects, err = s.srv.objects(ctx, objectType); err != nil {
		return nil, err
	}
	if f.Orders, err = s.srv.objects(ctx, orderType); err != nil {
		return nil, err
	}
	if f.Objects != int64(o.Rows) || f.Orders != int64(o.Rows) {
		return nil, fmt.Errorf("the OpenSearch backend server serves %d customers and %d orders, want %d of each", f.Objects, f.Orders, o.Rows)
	}
	if f.Builds, err = s.builds(ctx); err != nil {
		return nil, err
	}
	say("OpenSearch backend searchable after %.1f s", f.SearchableSeconds)
	if err := s.measureIngest(ctx, f, say); err != nil {
		return nil, err
	}
	return s, nil
}

// serve (re)starts the backend server with its backend at url.
func (s *openSearchSide) serve(ctx context.Context, url string, progress io.Writer) error {
	if s.srv != nil {
		s.client.close()
		s.srv.stop()
		s.srv = nil
	}
	cfgPath, err := writeConfig(s.dir, backendConfig(url))
	if err != nil {
		return err
	}
	srv, err := startServe(ctx, s.bin, s.env, cfgPath, "ontoindex+opensearch", progress)
	if err != nil {
		return err
	}
	s.srv, s.client = srv, newOntoClient(srv.base, 1)
	if s.deepSkip > 0 {
		if s.client.deepToken, err = tokenAt(ctx, s.client, s.deepSkip); err != nil {
			return fmt.Errorf("deep paging on the OpenSearch backend: %w", err)
		}
	}
	return nil
}

// measure restarts the backend server straight on the cluster, with a
// client for clients.
func (s *openSearchSide) measure(ctx context.Context, clients int, progress io.Writer) error {
	if err := s.serve(ctx, s.cluster.URL(), progress); err != nil {
		return err
	}
	token := s.client.deepToken
	s.client.close()
	s.client = newOntoClient(s.srv.base, clients)
	s.client.deepToken = token
	return nil
}

func (s *openSearchSide) close() {
	if s.srv != nil {
		s.client.close()
		s.srv.stop()
	}
	if s.direct != nil {
		s.direct.close()
	}
	_ = s.cluster.Stop()
}

// nodePID is the process id of the node's JVM, as the node reports it.
func (s *openSearchSide) nodePID(ctx context.Context) (int, error) {
	nodes, err := nodeProcesses(ctx, s.cluster)
	if err != nil {
		return 0, err
	}
	if len(nodes) != 1 {
		return 0, fmt.Errorf("opensearch: %d nodes, want 1", len(nodes))
	}
	return nodes[0].pid, nil
}

// nodeProcess is a node's name and its JVM's process id.
type nodeProcess struct {
	name string
	pid  int
}

// nodeProcesses are the cluster's nodes' JVMs, as the nodes report them,
// in the order of their names.
func nodeProcesses(ctx context.Context, c *opensearchtest.Cluster) ([]nodeProcess, error) {
	status, body, err := c.Do(ctx, http.MethodGet, "/_nodes/process", nil)
	if err != nil {
		return nil, err
	}
	var ans struct {
		Nodes map[string]struct {
			Name    string `json:"name"`
			Process struct {
				ID int `json:"id"`
			} `json:"process"`
		} `json:"nodes"`
	}
	if status != http.StatusOK || json.Unmarshal(body, &ans) != nil || len(ans.Nodes) == 0 {
		return nil, fmt.Errorf("opensearch: the nodes' processes: %d %.200s", status, body)
	}
	var out []nodeProcess
	for _, n := range ans.Nodes {
		out = append(out, nodeProcess{name: n.Name, pid: n.Process.ID})
	}
	slices.SortFunc(out, func(a, b nodeProcess) int { return strings.Compare(a.name, b.name) })
	return out, nil
}

// builds are the backend server's full builds, one a type, with what its
// status says of the backend's bulk writes.
func (s *openSearchSide) builds(ctx context.Context) ([]BackendBuild, error) {
	return backendBuilds(ctx, s.srv, objectType, orderType)
}

// backendBuilds are the full builds of types on a server whose types name
// a backend, with what its status says of the backend's bulk writes.
func backendBuilds(ctx context.Context, srv *ontoServer, types ...string) ([]BackendBuild, error) {
	var out []BackendBuild
	for _, typ := range types {
		var st backendTypeStatus
		err := srv.statusInto(ctx, typ, &st)
		if err != nil {
			return nil, err
		}
		b := st.LastBuild
		if b == nil || b.Kind != "full" {
			return nil, fmt.Errorf("status of %s: no full build (%+v)", typ, b)
		}
		out = append(out, BackendBuild{Type: typ, Seconds: float64(b.DurationMs) / 1000, Indexed: st.Backend.Indexed,
			Writes: st.Backend.Writes, MeanWriteMs: st.Backend.MeanBulkLatencyMs, Retries: st.Backend.Retries, FinishedAt: b.FinishedAt})
	}
	return out, nil
}

// backendTypeStatus is what the bench reads of a backend type's status.
type backendTypeStatus struct {
	LastBuild *struct {
		Kind       string    `json:"kind"`
		FinishedAt time.Time `json:"finishedAt"`
		DurationMs int64     `json:"durationMs"`
	} `json:"lastBuild"`
	Backend struct {
		Writes            int64   `json:"writes"`
		Indexed           int64   `json:"indexed"`
		MeanBulkLatencyMs float64 `json:"meanBulkLatencyMs"`
		Retries           int64   `json:"retries"`
		Fallbacks         int64   `json:"fallbacks"`
	} `json:"backend"`
}

// sides are the backend's and the straight DSL's ways to run q; a nil
// call where it is not measured (the embedded index answers, or the DSL
// could not be replayed).
func (s *openSearchSide) sides(q query) (backend, straight side) {
	calls := s.calls[q.id]
	if q.onto == nil || calls == nil || calls.requests == 0 {
		return
	}
	jvmCPU := func() float64 { return procCPUSeconds(s.jvmPID) }
	srvPID := s.srv.pid()
	backend = side{cpu: func() float64 { return procCPUSeconds(srvPID) + jvmCPU() }, node: jvmCPU, call: func(ctx context.Context, r *rand.Rand) error {
		_, err := q.onto(ctx, s.client, q.gen(r))
		return err
	}}
	if calls.tmpl != nil {
		straight = side{cpu: jvmCPU, node: jvmCPU, call: func(ctx context.Context, r *rand.Rand) error {
			return calls.tmpl.send(ctx, s.direct, q.gen(r))
		}}
	}
	return
}

// startServe runs `bin serve --build` and waits until it serves every
// type (startOntoindex, with its lines labelled).
func startServe(ctx context.Context, bin string, env []string, cfgPath, label string, progress io.Writer) (*ontoServer, error) {
	cmd := serveCommand(bin, env, cfgPath)
	s, err := startChild(ctx, cmd, label, progress)
	if err != nil {
		return nil, err
	}
	if err := s.waitReady(ctx); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

// check restarts the backend server through a recording proxy, checks its
// answers against the embedded server's and takes down the DSL of each
// query (checkBackend), then restarts it straight on the cluster for the
// measurements.
func (s *openSearchSide) check(ctx context.Context, qs []query, deep *deepPage, onto *ontoClient, pg *pgSide, o Options, progress io.Writer, say func(string, ...any)) error {
	s.deepSkip = deep.offset()
	rec, err := startRecorder(s.cluster.URL())
	if err != nil {
		return err
	}
	defer rec.close()
	say("restarting the OpenSearch backend server through a recording proxy")
	if err := s.serve(ctx, rec.url, progress); err != nil {
		return err
	}
	say("checking that the OpenSearch backend answers as the embedded index does")
	if err := s.checkBackend(ctx, qs, onto, pg, rec, o.Seed); err != nil {
		return err
	}
	// Both ways send the same parameters in each round: the shard
	// request cache would answer the second from the first's answers
	// (aggregations are size 0 searches, which it caches).
	if err := s.ok(ctx, http.MethodPut, "/bench-*/_settings", []byte(`{"index.requests.cache.enable":false}`)); err != nil {
		return fmt.Errorf("opensearch: request cache off: %w", err)
	}
	say("restarting the OpenSearch backend server straight on the cluster")
	return s.measure(ctx, o.Clients, progress)
}

// describe sets what the check found of the query in its row.
func (s *openSearchSide) describe(qr *QueryReport) {
	c := s.calls[qr.ID]
	if c == nil {
		return
	}
	qr.OpenSearchSearches = c.requests
	switch {
	case c.requests == 0:
		qr.OpenSearchNote = "the embedded index answers (no OpenSearch search): not an OpenSearch figure, not measured"
	case c.tmpl == nil:
		qr.OpenSearchNote = c.why
	}
}

// memory fills the memory figures at the end of the run.
func (s *openSearchSide) memory(f *OpenSearchFigures) {
	f.PeakRSSMiB = procStatusMiB(s.srv.pid(), "VmHWM")
	f.ServingRSSMiB = procStatusMiB(s.srv.pid(), "VmRSS")
	f.NodeRSSMiB = procStatusMiB(s.jvmPID, "VmRSS")
}
