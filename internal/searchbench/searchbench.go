// Package searchbench measures search with ontoindex against PostgreSQL on
// the same rows, as `ontolab bench search` runs it: it writes a customers
// table and an orders table linked to it (links.go) with iceberg-go and the
// same rows into a throwaway PostgreSQL,
// starts a real `indexer serve` process on it, checks that both systems
// answer every query alike, and then drives each query from concurrent
// clients against one system right after the other.
package searchbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/ontoindex/ontoindex/internal/benchdata"
	"github.com/ontoindex/ontoindex/internal/pgserver"
)

// Options configure Run.
type Options struct {
	Rows     int
	Files    int // data files of the Iceberg table
	Clients  int
	Duration time.Duration // measured, per query and system
	Warmup   time.Duration // before each system's first part of a query
	// Rounds cut Duration into parts that alternate between the systems
	// (1..16; see rounds).
	Rounds int
	Seed   uint64
	// Dir is the work directory (warehouse, index, config); empty: a
	// temporary directory, removed afterwards. PostgreSQL's cluster lives
	// in the system temporary directory either way (pgserver).
	Dir string
	// ServeBin is the `indexer` binary that serves; ServeEnv its
	// environment (nil: this process's).
	ServeBin string
	ServeEnv []string
	// FloorBin is the `ontolab` binary whose `bench floor` serves the
	// net/http floor of the get by key (floor.go; empty: no floor). Not
	// ServeBin: the floor is the standard library's whatever build of
	// ontoindex serves.
	FloorBin string
	// OpenSearch runs the queries also on a second server whose types
	// name a one-node OpenSearch cluster of the test kit as their backend,
	// and their DSL straight on the cluster (opensearch.go; needs the
	// kit's jars: .ci/install-opensearch).
	OpenSearch bool
	// OpenSearchTuned runs the node as the distribution would
	// (opensearchtest.ProfileBench) rather than with the test kit's cheap
	// settings, which slow it.
	OpenSearchTuned bool
	// OpenSearchWarmUp builds both tables into the cluster once, by a
	// server of its own, before the measured builds (opensearch_warmup.go):
	// the builds and the straight bulk then both run on a node past its
	// first writes.
	OpenSearchWarmUp bool
	// OpenSearchCPUs, when set, is the processors the node runs on alone,
	// as taskset(1) lists them: the bench itself, and the servers and
	// PostgreSQL it starts, must run on others (Run refuses otherwise), so
	// that the node is on cores of its own as a cluster is on machines of
	// its own, and what the API costs does not come out of its share.
	OpenSearchCPUs string
	// PostgresBinDir holds initdb and postgres (empty: pgserver.FindBinDir).
	PostgresBinDir string
	// Queries are the ids of the queries to measure (empty: all). Every
	// query is still verified on both systems.
	Queries []string
	// Progress receives what the run is doing (nil: nothing).
	Progress io.Writer
	Logger   *slog.Logger
}

// MismatchError reports queries the two systems answered differently.
type MismatchError struct{ Mismatches []string }

func (e *MismatchError) Error() string {
	return fmt.Sprintf("ontoindex and PostgreSQL disagree on %d requests; first: %s", len(e.Mismatches), e.Mismatches[0])
}

// Run runs the benchmark. It returns a *MismatchError, before measuring
// anything, when the systems disagree.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Rows < 1000 || o.Files < 1 || o.Files > o.Rows || o.Clients < 1 || o.Duration <= 0 || o.Warmup < 0 || o.Rounds < 1 || o.Rounds > 16 || o.ServeBin == "" {
		return nil, fmt.Errorf("searchbench: bad options: rows %d (>= 1000), files %d (1..rows), clients %d (>= 1), duration %s (> 0), warmup %s, rounds %d (1..16), serve binary %q",
			o.Rows, o.Files, o.Clients, o.Duration, o.Warmup, o.Rounds, o.ServeBin)
	}
	// The queries to measure, and the node's processors, known good
	// before a minute goes into loading rows.
	measure, err := selectQueries(queries(o.Rows, &deepPage{}), o.Queries)
	if err != nil {
		return nil, err
	}
	if o.OpenSearchCPUs != "" {
		if !o.OpenSearch {
			return nil, fmt.Errorf("searchbench: processors for an OpenSearch node (%s) without the OpenSearch side", o.OpenSearchCPUs)
		}
		if err := checkNodeCPUs(o.OpenSearchCPUs); err != nil {
			return nil, fmt.Errorf("searchbench: %w", err)
		}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	progress, say := progressOf(o.Progress)
	work, removeWork, err := WorkDir(o.Dir, "indexer-bench-search-")
	if err != nil {
		return nil, err
	}
	defer removeWork()
	rep := &Report{Rows: o.Rows, Files: o.Files, Clients: o.Clients, CPUs: runtime.NumCPU(), Seed: o.Seed,
		DurationSeconds: o.Duration.Seconds(), WarmupSeconds: o.Warmup.Seconds(), Rounds: o.Rounds}
	rep.Ontoindex.Binary = o.ServeBin
	rep.Ontoindex.Version = serverVersion(ctx, o.ServeBin, o.ServeEnv)

	// ontoindex: the Iceberg tables, then the server from process start
	// until every object type is served.
	say("writing %d customers and %d orders into Iceberg tables (%d files each)", o.Rows, o.Rows, o.Files)
	start := time.Now()
	if _, err := benchdata.WriteCustomers(ctx, work, o.Seed, o.Rows, o.Files); err != nil {
		return nil, err
	}
	if _, err := benchdata.WriteOrders(ctx, work, o.Seed, o.Rows, o.Rows, o.Files); err != nil {
		return nil, err
	}
	rep.Ontoindex.WriteTableSeconds = time.Since(start).Seconds()
	cfgPath, err := writeServerConfig(work)
	if err != nil {
		return nil, err
	}
	say("starting %s serve --build", o.ServeBin)
	start = time.Now()
	srv, err := startOntoindex(ctx, o.ServeBin, o.ServeEnv, cfgPath, progress)
	if err != nil {
		return nil, err
	}
	defer srv.stop()
	rep.Ontoindex.SearchableSeconds = time.Since(start).Seconds()
	if rep.Ontoindex.Objects, err = srv.objects(ctx, objectType); err != nil {
		return nil, err
	}
	if rep.Ontoindex.Orders, err = srv.objects(ctx, orderType); err != nil {
		return nil, err
	}
	if rep.Ontoindex.Objects != int64(o.Rows) || rep.Ontoindex.Orders != int64(o.Rows) {
		return nil, fmt.Errorf("ontoindex serves %d customers and %d orders, want %d of each", rep.Ontoindex.Objects, rep.Ontoindex.Orders, o.Rows)
	}
	say("ontoindex searchable after %.1f s", rep.Ontoindex.SearchableSeconds)
	onto := newOntoClient(srv.base, o.Clients)
	defer onto.close()

	// PostgreSQL: the same rows of both tables, timed from the first
	// CREATE TABLE to the last ANALYZE.
	pg, err := startPostgres(ctx, o.PostgresBinDir, o.Clients, o.Logger)
	switch {
	case errors.Is(err, pgserver.ErrNotFound):
		rep.PostgresAbsent = err.Error()
		say("PostgreSQL is not available (%v): ontoindex figures alone", err)
	case err != nil:
		return nil, fmt.Errorf("postgres: %w", err)
	default:
		defer func() {
			if err := pg.close(); err != nil {
				o.Logger.Warn("stop postgres", "err", err)
			}
		}()
		say("PostgreSQL %s: loading the same rows", pg.srv.Version())
		took, err := pg.load(ctx, o.Seed, o.Rows)
		if err != nil {
			return nil, fmt.Errorf("postgres: %w", err)
		}
		rep.Postgres = &PostgresFigures{Version: pg.srv.Version(), Indexes: pgIndexes, SearchableSeconds: took.Seconds()}
		say("PostgreSQL searchable after %.1f s", took.Seconds())
	}

	deep, err := prepareDeep(ctx, onto, pg)
	if err != nil {
		return nil, err
	}
	rep.DeepPage = deep.page
	qs := queries(o.Rows, deep)
	say("checking that both systems answer alike")
	if err := verify(ctx, qs, onto, pg, o.Seed); err != nil {
		return nil, err
	}

	var osSide *openSearchSide
	if o.OpenSearch {
		if osSide, err = startOpenSearch(ctx, o, work, rep, progress, say); err != nil {
			return nil, err
		}
		defer osSide.close()
		if err := osSide.check(ctx, qs, deep, onto, pg, o, progress, say); err != nil {
			return nil, err
		}
	}

	var floor *ontoClient
	var floorSide func(query) side
	if o.FloorBin != "" && measure["get"] {
		fs, err := startFloor(ctx, o.FloorBin, onto, int64(o.Rows/2), work, progress)
		if err != nil {
			return nil, err
		}
		defer fs.stop()
		floor = newOntoClient(fs.base, o.Clients)
		defer floor.close()
		floorPID := fs.pid()
		floorSide = func(q query) side {
			return side{cpu: func() float64 { return procCPUSeconds(floorPID) }, call: func(ctx context.Context, r *rand.Rand) error {
				_, err := q.onto(ctx, floor, q.gen(r))
				return err
			}}
		}
	}

	for i, q := range qs {
		if !measure[q.id] {
			continue
		}
		qr := QueryReport{ID: q.id, Name: q.name, Target: q.target}
		// ontoindex, PostgreSQL, the floor of a get, the OpenSearch
		// backend, OpenSearch straight.
		sides := make([]side, 5)
		if q.id == "get" && floor != nil {
			sides[2] = floorSide(q)
		}
		if q.onto != nil {
			sides[0] = side{cpu: func() float64 { return procCPUSeconds(srv.pid()) }, call: func(ctx context.Context, r *rand.Rand) error {
				_, err := q.onto(ctx, onto, q.gen(r))
				return err
			}}
		}
		if q.pg != nil && pg != nil {
			sides[1] = side{cpu: func() float64 { return treeCPUSeconds(pg.srv.PID()) }, call: func(ctx context.Context, r *rand.Rand) error {
				_, err := q.pg(ctx, pg, q.gen(r))
				return err
			}}
		}
		if osSide != nil {
			sides[3], sides[4] = osSide.sides(q)
			osSide.describe(&qr)
		}
		qo := o
		if q.clients > 0 && q.clients < o.Clients {
			qo.Clients, qr.Clients = q.clients, q.clients
			qr.Name += fmt.Sprintf(" (%d clients)", q.clients)
		}
		say("measuring %s (%d rounds)", qr.Name, o.Rounds)
		st, err := rounds(ctx, qo, uint64(i), sides)
		if err != nil {
			return nil, err
		}
		for k, to := range []**Stats{&qr.Ontoindex, &qr.Postgres, &qr.Floor, &qr.Backend, &qr.Straight} {
			if sides[k].call != nil {
				*to = &st[k]
			}
		}
		if qr.Ontoindex != nil || qr.Postgres != nil {
			rep.Queries = append(rep.Queries, qr)
			// The report comes at the end; a run stopped before it (a
			// baseline taking minutes a request at 10M) keeps these.
			say("measured %s: %s", q.name, measuredLine(qr))
		}
	}

	rep.Ontoindex.PeakRSSMiB = procStatusMiB(srv.pid(), "VmHWM")
	rep.Ontoindex.ServingRSSMiB = procStatusMiB(srv.pid(), "VmRSS")
	if pg != nil {
		rep.Postgres.ServingPSSMiB = pg.pss()
	}
	if osSide != nil {
		osSide.memory(rep.OpenSearch)
	}
	rep.addTargets()
	rep.Notes = notes(rep)
	return rep, nil
}

// progressOf is a run's progress, shared with the server's lines, and
// the function that writes a timed line of the run's own there.
func progressOf(w io.Writer) (*lockedWriter, func(format string, args ...any)) {
	progress := &lockedWriter{w: w}
	return progress, func(format string, args ...any) {
		fmt.Fprintf(progress, time.Now().Format("15:04:05 ")+format+"\n", args...)
	}
}

// lockedWriter serializes the progress lines of the run and of the server.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	if l.w == nil {
		return len(p), nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
