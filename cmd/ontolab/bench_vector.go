package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ontoindex/ontoindex/internal/vectorbench"
)

// runBenchVector is `ontolab bench vector`: ontoindex's HNSW index against
// exact search and FAISS's HNSW with the same parameters
// (internal/vectorbench).
func runBenchVector(ctx context.Context, env *Env, args []string) int {
	fs := newFlags(env, "bench vector", "[--vectors N] [--dimension D] [--queries Q] [--k K] [--m M] [--ef-construction N] [--ef-search N] [--min-duration D] [--python P] [--venv DIR] [--dir D] [--json] [--seed N]\n\n"+
		"Generates N clustered vectors of dimension D and Q query vectors; builds ontoindex's vector index\n"+
		"(HNSW, euclidean) over them and FAISS's IndexHNSWFlat (faiss-cpu from PyPI, installed into --venv\n"+
		"when --python is not given) with the same M, efConstruction and efSearch; measures recall@K of\n"+
		"both against exact search, q/s of both and of exact search on every core, build time and memory\n"+
		"per vector. Progress goes to stderr, the report to stdout.")
	o := vectorbench.Options{}
	fs.IntVar(&o.Vectors, "vectors", 1_000_000, "vectors indexed")
	fs.IntVar(&o.Dimension, "dimension", 128, "their dimension")
	fs.IntVar(&o.Queries, "queries", 1000, "query vectors (each searched exactly once for the truth)")
	fs.IntVar(&o.K, "k", 10, "neighbours per query")
	fs.IntVar(&o.M, "m", 16, "HNSW links per node (2M on level 0), both sides")
	fs.IntVar(&o.EfConstruction, "ef-construction", 64, "HNSW efConstruction, both sides")
	fs.IntVar(&o.EfSearch, "ef-search", 64, "HNSW efSearch, both sides")
	fs.DurationVar(&o.MinDuration, "min-duration", 3*time.Second, "least time each side's searches are measured for")
	fs.StringVar(&o.Python, "python", "", "a python that imports faiss (default: the one of --venv)")
	home, _ := os.UserHomeDir()
	fs.StringVar(&o.Venv, "venv", filepath.Join(home, ".cache", "ontoindex", "faiss-venv"), "virtualenv the bench makes and installs faiss-cpu into when it lacks it")
	fs.StringVar(&o.Dir, "dir", "", "work directory for the vector files (default: a temporary directory, removed afterwards)")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the vectors and of the graph's levels")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if o.Vectors < 100 || o.Dimension < 1 || o.Queries < 1 || o.K < 1 || o.K > o.Vectors || o.M < 2 || o.EfConstruction < 1 || o.EfSearch < 1 {
		fmt.Fprintln(env.Stderr, "ontolab bench vector: need --vectors >= 100, --dimension >= 1, --queries >= 1, 1 <= --k <= --vectors, --m >= 2 and ef values >= 1")
		return exitUsage
	}
	o.Progress = env.Stderr
	rep, err := vectorbench.Run(ctx, o)
	return reportBench(ctx, env, "bench vector", "", err, *asJSON, rep)
}
