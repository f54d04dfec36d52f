package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/ontoindex/ontoindex/internal/soak"
)

// runSoak runs the reliability campaign (package soak) and prints its
// figures; --json writes them to a file too. Exit 0 when nothing went
// wrong, 1 when the server did (or the campaign could not run).
func runSoak(ctx context.Context, env *Env, args []string) int {
	d := soak.Defaults()
	fs := newFlags(env, "soak", "[--kills N] [--load D] [--clients N] [--faults=false] [--disk-faults=false] [--rows N] [--every D] [--seed N] [--dir D] [--json FILE]\n\n"+
		"Runs real `indexer serve` processes over Iceberg tables that a writer commits to every --every,\n"+
		"kills them (kill -9) --kills times, injects table faults and faults of the data dir (the disk\n"+
		"full ones as root on Linux), and drives --clients clients for --load, checking every answer\n"+
		"against the tables. The defaults are the short campaign CI runs; the full one is\n"+
		"--kills 100 --load 10m --clients 200.")
	o := d
	fs.IntVar(&o.Kills, "kills", d.Kills, "kill -9 of the server, each followed by a restart and the checks")
	fs.DurationVar(&o.Load, "load", d.Load, "how long the clients run (0: no load)")
	fs.IntVar(&o.Clients, "clients", d.Clients, "concurrent clients of the load")
	fs.BoolVar(&o.Faults, "faults", d.Faults, "inject the table faults")
	fs.BoolVar(&o.DiskFaults, "disk-faults", d.DiskFaults, "inject the faults of the data dir: index file and state.db damaged, disk full (a tmpfs: root on Linux)")
	fs.IntVar(&o.Rows, "rows", d.Rows, "rows of the items table at the start")
	fs.IntVar(&o.Groups, "groups", d.Groups, "rows of the groups table (each item links to one)")
	fs.DurationVar(&o.Every, "every", d.Every, "time between the writer's commits")
	fs.IntVar(&o.Columns, "columns", d.Columns, "schema additions at most")
	fs.Uint64Var(&o.Seed, "seed", d.Seed, "seed of the writer, the kills and the clients")
	fs.StringVar(&o.Dir, "dir", "", "work directory, kept afterwards (default: a temporary directory, removed)")
	jsonPath := fs.String("json", "", "also write the report as JSON to this file")
	indexerPath := indexerFlag(fs)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	o.Keep = o.Dir != ""
	bin, err := serveBinary(*indexerPath)
	if err != nil {
		fmt.Fprintf(env.Stderr, "ontolab soak: %v\n", err)
		return exitUsage
	}
	o.Bin = bin
	o.Out = env.Stderr
	rep, err := soak.Run(ctx, o)
	if rep == nil {
		fmt.Fprintf(env.Stderr, "ontolab soak: %v\n", err)
		return exitUsage
	}
	if err != nil {
		rep.Error = err.Error()
		rep.OK = false
	}
	rep.Print(env.Stdout)
	if *jsonPath != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		if werr := os.WriteFile(*jsonPath, append(b, '\n'), 0o644); werr != nil {
			fmt.Fprintf(env.Stderr, "ontolab soak: %v\n", werr)
			return exitFailed
		}
	}
	switch {
	case ctx.Err() != nil:
		return exitAborted
	case !rep.OK:
		return exitFailed
	}
	return exitOK
}
