package main

import (
	"context"
	"flag"

	"github.com/ontoindex/ontoindex/internal/cli"
)

// The command line's machinery is internal/cli's, shared with indexer;
// these names bind it to this program.
const (
	exitOK      = cli.ExitOK
	exitFailed  = cli.ExitFailed
	exitUsage   = cli.ExitUsage
	exitAborted = cli.ExitAborted
)

type (
	// Env is what a command writes to; tests pass buffers.
	Env = cli.Env
	// Command is one subcommand.
	Command = cli.Command
)

// commandTable lists every subcommand, in one place: a function, not a
// package variable, so that no file can add to it or change it at run time.
func commandTable() []Command {
	return []Command{
		{Name: "bench", Summary: "benchmarks: build (the default) measures builds, search compares search with PostgreSQL, subscribe measures subscriptions, interface compares a search over an interface with one over a type, vector compares the vector index with exact search and FAISS", Run: runBench},
		{Name: "soak", Summary: "the reliability campaign: kill -9, table and data-dir faults and load on real servers, with figures", Run: runSoak},
	}
}

// Main runs the ontolab command line and returns the exit code.
func Main(ctx context.Context, args []string, env *Env) int {
	return cli.Program{Name: "ontolab", Commands: commandTable()}.Main(ctx, args, env)
}

// newFlags returns a flag set that reports errors to env and does not exit.
func newFlags(env *Env, name, synopsis string) *flag.FlagSet {
	return cli.NewFlags(env, "ontolab", name, synopsis)
}

// parse parses flags; it returns an exit code when the command must stop.
func parse(fs *flag.FlagSet, args []string) (int, bool) { return cli.Parse(fs, args) }
