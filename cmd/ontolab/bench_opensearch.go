package main

import (
	"context"
	"fmt"
	"time"

	"github.com/ontoindex/ontoindex/internal/searchbench"
	"github.com/ontoindex/ontoindex/internal/testkit/opensearchtest"
)

// runBenchOpenSearch is `ontolab bench opensearch`: the OpenSearch
// backend's scale run (internal/searchbench, opensearch_scale.go).
func runBenchOpenSearch(ctx context.Context, env *Env, args []string) int {
	fs := newFlags(env, "bench opensearch", "[--rows N] [--nodes N] [--heap-mb M] [--shards N] [--replicas N] [--tuned=false] [--edits N] [--poll-interval D] [--edit-timeout D] [--straight N] [--baseline=false] [--warm-up=false] [--embedded-index full|none] [--files N] [--dir D] [--seed N] [--json]\n\n"+
		"The OpenSearch backend at scale (issue 30): writes the customers table of `ontolab bench search`\n"+
		"with iceberg-go, starts an OpenSearch cluster of the test kit (after .ci/install-opensearch) and a\n"+
		"real `indexer serve --build` whose Customer type names it as its backend, and reports the time to\n"+
		"searchable, the build's CPU, the index's size and the memory of the server and of every node;\n"+
		"then commits --edits copy-on-write edits of one customer each and times each from the commit's\n"+
		"return until a search through the API, answered by the backend, returns the edited customer\n"+
		"(p50, p99). Progress goes to stderr, the report to stdout.")
	o := searchbench.ScaleOptions{}
	fs.IntVar(&o.Rows, "rows", 10_000_000, "customer rows")
	fs.IntVar(&o.Files, "files", 40, "data files of the Iceberg table")
	fs.IntVar(&o.Nodes, "nodes", 3, "OpenSearch nodes on loopback: 1 or 3")
	fs.IntVar(&o.HeapMB, "heap-mb", 2048, "each node's heap in MiB")
	fs.IntVar(&o.Shards, "shards", 3, "shards of the type's index (the backend's shards)")
	fs.IntVar(&o.Replicas, "replicas", 1, "replicas of each shard (the backend's replicas), fewer than --nodes")
	tuned := fs.Bool("tuned", true, "run the nodes as the distribution does (G1, both JIT compilers, every processor); false: the test kit's cheap settings (serial GC, client compiler, one processor)")
	fs.IntVar(&o.Edits, "edits", 20, "one-row edits committed after the build")
	fs.DurationVar(&o.PollInterval, "poll-interval", time.Second, "the server's poll interval (daemon.pollInterval)")
	fs.DurationVar(&o.EditTimeout, "edit-timeout", 2*time.Minute, "how long an edit may take to be found before the run fails")
	fs.Int64Var(&o.Straight, "straight", 1_000_000, "documents of the build read back and sent again straight in bulk requests, as the build sends them, for the nodes' own bulk rate (0: none)")
	fs.StringVar(&o.EmbeddedIndex, "embedded-index", "full", "the backend's embeddedIndex: full (the server keeps the in-memory index too) or none")
	fs.BoolVar(&o.WarmUp, "warm-up", true, "first build the table into the cluster once, by a server of its own, and drop it: the measured build and the straight bulk then both run on a node past its first writes (the JIT's warm-up)")
	fs.BoolVar(&o.Baseline, "baseline", true, "first build the same table into a server of the embedded index alone, for its time to searchable (the baseline)")
	fs.StringVar(&o.Dir, "dir", "", "work directory for the warehouse and the index (default: a temporary directory, removed afterwards)")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the rows")
	indexerPath := indexerFlag(fs)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if *tuned {
		o.Profile = opensearchtest.ProfileBench
	}
	var err error
	if o.ServeBin, err = serveBinary(*indexerPath); err != nil {
		fmt.Fprintf(env.Stderr, "ontolab bench opensearch: %v\n", err)
		return exitUsage
	}
	o.Progress = env.Stderr
	if err := o.Check(); err != nil {
		fmt.Fprintf(env.Stderr, "ontolab bench opensearch: %v\n", err)
		return exitUsage
	}
	rep, err := searchbench.RunScale(ctx, o)
	return reportBench(ctx, env, "bench opensearch", "", err, *asJSON, rep)
}
