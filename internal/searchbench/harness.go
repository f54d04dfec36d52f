package searchbench

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"github.com/ontoindex/ontoindex/internal/benchdata"
)

// The parts of this bench that other benches run on (`ontolab bench
// subscribe`, internal/subscribebench): the server child on the customers
// and orders tables, the closed-loop load of one of the queries, and the
// CPU readings of /proc. One copy of each, so that their figures compare.

// Names of the served ontology and of the type the queries search.
const (
	Ontology     = ontology
	CustomerType = objectType
)

// ServerOptions configure StartServer.
type ServerOptions struct {
	Bin string   // the `indexer` binary that serves
	Env []string // its environment (nil: this process's)
	// Dir is the work directory: warehouse, index and config go there.
	Dir         string
	Seed        uint64
	Rows, Files int
	// ServerConfig and DaemonConfig are YAML lines added to the config's
	// server and daemon sections, each indented by two spaces.
	ServerConfig, DaemonConfig string
	// Progress receives the server's lines (nil: nothing).
	Progress io.Writer
}

// Server is an `indexer serve` child on the bench's customers and orders.
type Server struct {
	srv    *ontoServer
	client *ontoClient
	rows   int
}

// StartServer writes the customers and orders tables into o.Dir, starts
// `indexer serve --build` on them and waits until it serves every row.
// The caller stops it with Stop.
func StartServer(ctx context.Context, o ServerOptions, clients int) (*Server, error) {
	if _, err := benchdata.WriteCustomers(ctx, o.Dir, o.Seed, o.Rows, o.Files); err != nil {
		return nil, err
	}
	if _, err := benchdata.WriteOrders(ctx, o.Dir, o.Seed, o.Rows, o.Rows, o.Files); err != nil {
		return nil, err
	}
	cfgPath, err := writeConfig(o.Dir, configWith(o.ServerConfig, o.DaemonConfig))
	if err != nil {
		return nil, err
	}
	srv, err := startOntoindex(ctx, o.Bin, o.Env, cfgPath, &lockedWriter{w: o.Progress})
	if err != nil {
		return nil, err
	}
	st, err := srv.status(ctx, objectType)
	if err == nil && st.Objects != int64(o.Rows) {
		err = fmt.Errorf("ontoindex serves %d customers, want %d", st.Objects, o.Rows)
	}
	if err != nil {
		srv.stop()
		return nil, err
	}
	return &Server{srv: srv, client: newOntoClient(srv.base, clients), rows: o.Rows}, nil
}

// Stop stops the server gracefully.
func (s *Server) Stop() {
	s.client.close()
	s.srv.stop()
}

// Base is the server's http://host:port.
func (s *Server) Base() string { return s.srv.base }

// PID is the server process's id.
func (s *Server) PID() int { return s.srv.pid() }

// CPUSeconds is the server process's user and system time so far.
func (s *Server) CPUSeconds() float64 { return procCPUSeconds(s.srv.pid()) }

// Version is the first line `bin version` prints.
func Version(ctx context.Context, bin string, env []string) string {
	return serverVersion(ctx, bin, env)
}

// CheckpointSnapshot is the Customer table snapshot the served index
// reflects.
func (s *Server) CheckpointSnapshot(ctx context.Context) (int64, error) {
	st, err := s.srv.status(ctx, objectType)
	return st.CheckpointSnapshotID, err
}

// Sample is what Measure measured, kept raw so that the samples of
// several parts add up (as a query's rounds do in this bench).
type Sample struct{ p part }

// Add merges o into s.
func (s *Sample) Add(o Sample) { s.p.add(o.p) }

// Stats are the figures of the sample. It sorts the sample's latencies.
func (s *Sample) Stats() Stats { return s.p.stats() }

// RecentBuilds are the daemon's last builds of the Customer type, oldest
// first (at most the daemon's MaxRecentBuilds).
func (s *Server) RecentBuilds(ctx context.Context) ([]Build, error) {
	st, err := s.srv.status(ctx, objectType)
	return st.RecentBuilds, err
}

// Measure runs query id from clients concurrent clients, as `bench
// search` measures it on ontoindex: warmup, then dur measured; stream
// seeds the parameters together with seed.
func (s *Server) Measure(ctx context.Context, id string, clients int, warmup, dur time.Duration, seed, stream uint64) (Sample, error) {
	q, err := serverQuery(s.rows, id)
	if err != nil {
		return Sample{}, err
	}
	call := func(ctx context.Context, r *rand.Rand) error {
		_, err := q.onto(ctx, s.client, q.gen(r))
		return err
	}
	p, err := load(ctx, clients, warmup, dur, seed, stream, side{call: call, cpu: s.CPUSeconds})
	if err != nil {
		return Sample{}, err
	}
	return Sample{p: p}, nil
}

// CheckQuery says whether Measure can run query id on a table of rows
// rows: a query with an ontoindex side that needs no preparation.
func CheckQuery(rows int, id string) error {
	_, err := serverQuery(rows, id)
	return err
}

func serverQuery(rows int, id string) (query, error) {
	var ids []string
	for _, q := range queries(rows, &deepPage{}) {
		if q.onto == nil || q.id == "deepN" { // deepN needs prepareDeep
			continue
		}
		if q.id == id {
			return q, nil
		}
		ids = append(ids, q.id)
	}
	return query{}, fmt.Errorf("searchbench: query %q cannot be measured alone (queries: %s)", id, strings.Join(ids, ", "))
}

// ProcessCPUSeconds is a process's user and system time so far (0:
// unknown).
func ProcessCPUSeconds(pid int) float64 { return procCPUSeconds(pid) }

// MachineCPUTicks is the machine's idle and total CPU time so far, in
// ticks.
func MachineCPUTicks() (idle, total float64) { return machineCPUTicks() }

// PercentileMs is the nearest-rank percentile p of lat in milliseconds (0
// for no samples). It sorts lat.
func PercentileMs(lat []time.Duration, p int) float64 { return percentileMs(lat, p) }

// NewTarget is a figure and the bound the issue sets for it (op ">=" or
// "<=").
func NewTarget(name string, value float64, op string, limit float64) Target {
	return newTarget(name, value, op, limit)
}

// Figure prints a figure as the bench's tables do.
func Figure(v float64) string { return num(v) }

// Verdict prints whether a target is met as the bench's tables do.
func Verdict(met bool) string { return okMiss(met) }

// WorkDir is the work directory of a bench run: dir, made if missing, or
// (dir empty) a temporary directory named after prefix that remove
// removes.
func WorkDir(dir, prefix string) (work string, remove func(), err error) {
	if dir != "" {
		return dir, func() {}, os.MkdirAll(dir, 0o755)
	}
	tmp, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", nil, err
	}
	return tmp, func() { _ = os.RemoveAll(tmp) }, nil
}
