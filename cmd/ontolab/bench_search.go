package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"github.com/ontoindex/ontoindex/internal/cli"
	"github.com/ontoindex/ontoindex/internal/searchbench"
)

// runBenchSearch is `ontolab bench search`: ontoindex against PostgreSQL on
// the same rows (internal/searchbench).
func runBenchSearch(ctx context.Context, env *Env, args []string) int {
	fs := newFlags(env, "bench search", "[--rows N] [--clients C] [--duration D] [--files N] [--dir D] [--json] [--seed N] [--opensearch [--opensearch-tuned=false] [--opensearch-warm-up=false] [--opensearch-cpus LIST]]\n\n"+
		"Writes a customers table and an orders table linked to it with iceberg-go and the same rows\n"+
		"into a throwaway PostgreSQL (when installed), serves the tables with a real `indexer serve`,\n"+
		"checks that both systems answer alike, and measures each query from C concurrent clients on\n"+
		"the two systems in alternating rounds: q/s, p50, p99, their ratio, time to searchable and memory,\n"+
		"with the targets of the search engine and links issues. Progress goes to stderr, the report\n"+
		"to stdout. Exit 1 when the systems disagree.")
	o := searchbench.Options{}
	fs.IntVar(&o.Rows, "rows", 1_000_000, "customer rows")
	fs.IntVar(&o.Clients, "clients", 50, "concurrent clients, on each system")
	fs.DurationVar(&o.Duration, "duration", 10*time.Second, "measured time per query and system")
	fs.DurationVar(&o.Warmup, "warmup", 0, "warm-up before each system's first part of a query (default: a fifth of --duration, at most 2s)")
	fs.IntVar(&o.Rounds, "rounds", 5, "parts, 1..16, that each query's --duration is cut into on each system, alternating between the systems")
	fs.IntVar(&o.Files, "files", 40, "data files of the Iceberg table")
	fs.StringVar(&o.Dir, "dir", "", "work directory for the warehouse and the index (default: a temporary directory, removed afterwards)")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the rows and of the query parameters")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	fs.BoolVar(&o.OpenSearch, "opensearch", false, "also measure the queries on a second server whose types have a one-node OpenSearch cluster (the test kit's, from .ci/install-opensearch) as their backend, and their query DSL sent straight to the cluster")
	fs.BoolVar(&o.OpenSearchTuned, "opensearch-tuned", true, "run the OpenSearch node as the distribution does (G1, both JIT compilers, every processor); false: the test kit's cheap settings (serial GC, client compiler, one processor), which the figures before 2026-12-05 had")
	fs.BoolVar(&o.OpenSearchWarmUp, "opensearch-warm-up", true, "first build both tables into the cluster once, by a server of its own, and drop them: the measured builds and the straight bulk then both run on a node past its first writes (the JIT's warm-up)")
	fs.StringVar(&o.OpenSearchCPUs, "opensearch-cpus", "", "run the OpenSearch node on these `processors` alone (a list as taskset takes it: 0, 2-3), as a cluster runs on machines of its own; start the bench on the others (taskset --cpu-list 1 ontolab bench search ...), or it refuses")
	floor := fs.Bool("floor", true, "measure the get by key also on a bare net/http server that answers the bytes of one get (the standard library's floor)")
	// Expert flags, for measuring another build of ontoindex or another
	// PostgreSQL installation.
	indexerPath := indexerFlag(fs)
	fs.StringVar(&o.PostgresBinDir, "pg-bin", "", "expert: `dir`ectory of PostgreSQL's initdb and postgres (default: newest /usr/lib/postgresql/*/bin, else $PATH)")
	queries := fs.String("queries", "", "expert: comma-separated `ids` of the queries to measure (default: all; an unknown id is refused with the list); all are still verified")
	cpuProfile := fs.String("cpuprofile", "", "expert: write a CPU profile of the bench process (the clients) to this file")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if *cpuProfile != "" {
		stop, err := cli.StartCPUProfile(*cpuProfile)
		if err != nil {
			fmt.Fprintf(env.Stderr, "ontolab bench search: %v\n", err)
			return exitFailed
		}
		defer stop()
	}
	defaultWarmup(fs, &o)
	if o.Rows < 1000 || o.Clients < 1 || o.Duration <= 0 || o.Files < 1 || o.Files > o.Rows || o.Rounds < 1 || o.Rounds > 16 {
		fmt.Fprintln(env.Stderr, "ontolab bench search: need --rows >= 1000, --clients >= 1, --duration > 0, 1 <= --files <= --rows and 1 <= --rounds <= 16")
		return exitUsage
	}
	var err error
	if o.ServeBin, err = serveBinary(*indexerPath); err != nil {
		fmt.Fprintf(env.Stderr, "ontolab bench search: %v\n", err)
		return exitUsage
	}
	if *floor {
		// The floor is the standard library's, whatever build serves:
		// this ontolab's `bench floor`.
		if o.FloorBin, err = os.Executable(); err != nil {
			fmt.Fprintf(env.Stderr, "ontolab bench search: %v\n", err)
			return exitFailed
		}
	}
	if *queries != "" {
		o.Queries = strings.Split(*queries, ",")
	}
	o.Progress = env.Stderr
	o.Logger = cli.Logger(env)

	rep, err := searchbench.Run(ctx, o)
	return reportBench(ctx, env, "bench search", "ontoindex and PostgreSQL disagree", err, *asJSON, rep)
}

// defaultWarmup sets the warm-up, unless --warmup is given, to a fifth of
// the duration, at most 2s.
func defaultWarmup(fs *flag.FlagSet, o *searchbench.Options) {
	warmupSet := false
	fs.Visit(func(f *flag.Flag) { warmupSet = warmupSet || f.Name == "warmup" })
	if !warmupSet {
		o.Warmup = min(o.Duration/5, 2*time.Second)
	}
}

// reportBench ends a bench of internal/searchbench: what disagreed (a
// *searchbench.MismatchError, the sides named by disagree), an
// interruption, another error, or the report as JSON or as text.
func reportBench(ctx context.Context, env *Env, name, disagree string, err error, asJSON bool, rep interface{ WriteText(io.Writer) error }) int {
	var mismatch *searchbench.MismatchError
	switch {
	case errors.As(err, &mismatch):
		fmt.Fprintf(env.Stderr, "ontolab %s: RESULTS DIFFER: %s on %d requests:\n", name, disagree, len(mismatch.Mismatches))
		for _, m := range mismatch.Mismatches {
			fmt.Fprintf(env.Stderr, "  %s\n", m)
		}
		return exitFailed
	case ctx.Err() != nil:
		fmt.Fprintf(env.Stderr, "ontolab %s: interrupted\n", name)
		return exitAborted
	case err != nil:
		fmt.Fprintf(env.Stderr, "ontolab %s: %v\n", name, err)
		return exitFailed
	}
	if asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return exitFailed
		}
		return exitOK
	}
	if err := rep.WriteText(env.Stdout); err != nil {
		return exitFailed
	}
	return exitOK
}

// runBenchFloor is `ontolab bench floor`, which bench search starts: a
// bare net/http server that answers every request with the bytes of a
// file (internal/searchbench, floor.go).
func runBenchFloor(ctx context.Context, env *Env, args []string) int {
	fs := newFlags(env, "bench floor", "--body FILE [--listen ADDR]\n\n"+
		"Serves the bytes of FILE as a JSON response to every request with net/http's server and\n"+
		"nothing else, until SIGINT or SIGTERM: the floor bench search measures a get by key against.")
	body := fs.String("body", "", "file whose bytes every response carries")
	listen := fs.String("listen", "127.0.0.1:0", "address to listen on")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	b, err := os.ReadFile(*body)
	if err != nil {
		fmt.Fprintf(env.Stderr, "ontolab bench floor: %v\n", err)
		return exitUsage
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", *listen)
	if err != nil {
		fmt.Fprintf(env.Stderr, "ontolab bench floor: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(env.Stderr, "ontolab bench floor: listening on http://%s\n", ln.Addr())
	if err := searchbench.ServeFloor(ctx, ln, b); err != nil {
		fmt.Fprintf(env.Stderr, "ontolab bench floor: %v\n", err)
		return exitFailed
	}
	return exitOK
}
