package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/ontoindex/ontoindex/internal/subscribebench"
)

// runBenchSubscribe is `ontolab bench subscribe`: websocket subscriptions
// on a served type while a writer commits (internal/subscribebench).
func runBenchSubscribe(ctx context.Context, env *Env, args []string) int {
	fs := newFlags(env, "bench subscribe", "[--subscriptions N] [--connections C] [--commits N] [--poll-interval D] [--rows N] [--json]\n\n"+
		"Writes the customers table of `ontolab bench search` with iceberg-go, serves it with a real\n"+
		"`indexer serve` that polls every --poll-interval, opens --connections websocket connections that\n"+
		"hold --subscriptions subscriptions between them (kinds: base, a filter that holds every edited\n"+
		"key, a filter that holds none), and commits copy-on-write edits of one customer each. It reports\n"+
		"the latency from each commit's return to the receipt of the objectSetChanged naming its key\n"+
		"(p50, p99), the server's CPU per delivered change, every delivery that went wrong, and the q/s of\n"+
		"search queries with and without the subscribers, the writer committing in both. Progress goes to\n"+
		"stderr, the report to stdout. Exit 1 when a delivery went wrong.")
	o := subscribebench.Options{}
	fs.IntVar(&o.Subscriptions, "subscriptions", 1000, "concurrent subscriptions")
	fs.IntVar(&o.Connections, "connections", 10, "websocket connections the subscriptions are spread over (= --subscriptions: one each)")
	fs.IntVar(&o.Commits, "commits", 30, "edits committed in each quiet part (no search load), without and with subscribers")
	fs.DurationVar(&o.CommitEvery, "commit-every", 500*time.Millisecond, "time between commits")
	fs.DurationVar(&o.PollInterval, "poll-interval", time.Second, "the server's poll interval (daemon.pollInterval)")
	fs.IntVar(&o.Rows, "rows", 100_000, "customer rows (edits go to the first half of the keys, one key each)")
	fs.IntVar(&o.Files, "files", 40, "data files of the Iceberg table")
	kinds := fs.String("kinds", "base,match,never", "kinds the subscriptions cycle through: base (every customer), match (a filter holding every edited key), never (a filter holding none)")
	queries := fs.String("queries", "get,sorted", "search queries (ids of `ontolab bench search`) measured with and without the subscribers; empty: none")
	fs.IntVar(&o.Clients, "clients", 50, "concurrent search clients")
	fs.DurationVar(&o.Duration, "duration", 5*time.Second, "measured time per search part")
	fs.DurationVar(&o.Warmup, "warmup", time.Second, "warm-up before each search part")
	fs.IntVar(&o.Rounds, "rounds", 3, "alternating rounds of search parts without and with subscribers, per query")
	fs.StringVar(&o.Dir, "dir", "", "work directory for the warehouse and the index (default: a temporary directory, removed afterwards)")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the rows and of the query parameters")
	indexerPath := indexerFlag(fs)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	var err error
	if o.Kinds, err = subscribebench.ParseKinds(*kinds); err != nil {
		fmt.Fprintf(env.Stderr, "ontolab bench subscribe: --kinds: %v\n", err)
		return exitUsage
	}
	if *queries != "" {
		o.Queries = strings.Split(*queries, ",")
	}
	explicit := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { explicit[f.Name] = true })
	if !explicit["connections"] {
		o.Connections = min(o.Connections, o.Subscriptions)
	}
	if o.ServeBin, err = serveBinary(*indexerPath); err != nil {
		fmt.Fprintf(env.Stderr, "ontolab bench subscribe: %v\n", err)
		return exitUsage
	}
	o.Progress = env.Stderr
	if err := o.Check(); err != nil {
		fmt.Fprintf(env.Stderr, "ontolab bench subscribe: %v\n", err)
		return exitUsage
	}

	rep, err := subscribebench.Run(ctx, o)
	switch {
	case ctx.Err() != nil:
		fmt.Fprintln(env.Stderr, "ontolab bench subscribe: interrupted")
		return exitAborted
	case err != nil:
		fmt.Fprintf(env.Stderr, "ontolab bench subscribe: %v\n", err)
		return exitFailed
	}
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return exitFailed
		}
	} else if err := rep.WriteText(env.Stdout); err != nil {
		return exitFailed
	}
	if len(rep.Errors) > 0 {
		return exitFailed
	}
	return exitOK
}
