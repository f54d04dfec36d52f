package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ontoindex/ontoindex/internal/cli"
	"github.com/ontoindex/ontoindex/internal/searchbench"
)

// runBenchInterface is `ontolab bench interface`: a search over an
// interface implemented by two types of half the rows each against the
// same search over one type of all of them (internal/searchbench,
// interface.go).
func runBenchInterface(ctx context.Context, env *Env, args []string) int {
	fs := newFlags(env, "bench interface", "[--rows N] [--clients C] [--duration D] [--files N] [--dir D] [--json] [--seed N]\n\n"+
		"Writes the customers table of `ontolab bench search` with iceberg-go, and the same rows into two\n"+
		"tables of half the ids each; serves them with a real `indexer serve` as the object type Customer\n"+
		"(all the rows) and CustomerLow and CustomerHigh (the halves), which implement the interface\n"+
		"Client; checks that each query answers the same objects through the interface as through\n"+
		"Customer, and measures each from C concurrent clients on both in alternating rounds: q/s, p50,\n"+
		"p99 and the ratio interface / one type against the target (within 1.2x). Progress goes to\n"+
		"stderr, the report to stdout. Exit 1 when the two answer differently.")
	o := searchbench.Options{}
	fs.IntVar(&o.Rows, "rows", 1_000_000, "customer rows: the one type's, and the two halves' together")
	fs.IntVar(&o.Clients, "clients", 50, "concurrent clients")
	fs.DurationVar(&o.Duration, "duration", 10*time.Second, "measured time per query and side")
	fs.DurationVar(&o.Warmup, "warmup", 0, "warm-up before each side's first part of a query (default: a fifth of --duration, at most 2s)")
	fs.IntVar(&o.Rounds, "rounds", 5, "parts, 1..16, that each query's --duration is cut into on each side, alternating between the sides")
	fs.IntVar(&o.Files, "files", 40, "data files of the whole table (each half has half as many)")
	fs.StringVar(&o.Dir, "dir", "", "work directory for the warehouse and the index (default: a temporary directory, removed afterwards)")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the rows and of the query parameters")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	indexerPath := indexerFlag(fs)
	queries := fs.String("queries", "", "expert: comma-separated `ids` of the queries to measure (default: all; an unknown id is refused with the list); all are still checked")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	defaultWarmup(fs, &o)
	if o.Rows < 1000 || o.Clients < 1 || o.Duration <= 0 || o.Files < 1 || o.Files > o.Rows/2 || o.Rounds < 1 || o.Rounds > 16 {
		fmt.Fprintln(env.Stderr, "ontolab bench interface: need --rows >= 1000, --clients >= 1, --duration > 0, 1 <= --files <= --rows/2 and 1 <= --rounds <= 16")
		return exitUsage
	}
	var err error
	if o.ServeBin, err = serveBinary(*indexerPath); err != nil {
		fmt.Fprintf(env.Stderr, "ontolab bench interface: %v\n", err)
		return exitUsage
	}
	if *queries != "" {
		o.Queries = strings.Split(*queries, ",")
	}
	o.Progress = env.Stderr
	o.Logger = cli.Logger(env)

	rep, err := searchbench.RunInterface(ctx, o)
	return reportBench(ctx, env, "bench interface", "the interface and the one type disagree", err, *asJSON, rep)
}
