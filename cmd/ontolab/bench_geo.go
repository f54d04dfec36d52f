package main

import (
	"context"
	"fmt"
	"time"

	"github.com/ontoindex/ontoindex/internal/cli"
	"github.com/ontoindex/ontoindex/internal/geobench"
)

// runBenchGeo is `ontolab bench geo`: the geo filters of the engine
// against PostGIS on the same points and polygons (internal/geobench).
func runBenchGeo(ctx context.Context, env *Env, args []string) int {
	fs := newFlags(env, "bench geo", "[--rows N] [--duration D] [--seed N] [--json]\n\n"+
		"Indexes N points and N polygons (over the continental United States) with the engine, loads the\n"+
		"same rows into PostGIS (postgresql-15-postgis-3, GiST indexes), checks that both answer every geo\n"+
		"filter alike, and measures each as a page of 100 and as a count, one query at a time on each\n"+
		"side: q/s and the ratio ontoindex / PostGIS. Progress goes to stderr, the report to stdout.")
	o := geobench.Options{}
	fs.IntVar(&o.Rows, "rows", 1_000_000, "points, and as many polygons")
	fs.DurationVar(&o.Duration, "duration", 5*time.Second, "measured time per filter, form and side")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the rows")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if o.Rows < 1000 || o.Duration <= 0 {
		fmt.Fprintln(env.Stderr, "ontolab bench geo: need --rows >= 1000 and --duration > 0")
		return exitUsage
	}
	o.Progress = env.Stderr
	o.Logger = cli.Logger(env)
	rep, err := geobench.Run(ctx, o)
	return reportBench(ctx, env, "bench geo", "", err, *asJSON, rep)
}
