package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/cli"
)

// The command line's machinery is internal/cli's, shared with ontolab;
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
		{Name: "build", Summary: "build object types to the current (or a given) snapshot", Run: runBuild},
		{Name: "changelog", Summary: "print the row-level changes of a table between two snapshots", Run: runChangelog},
		{Name: "check", Summary: "check the write modes and live delete files of every table", Run: runCheck},
		{Name: "demo", Summary: "serve a demo warehouse in ./demo while a writer changes its tables", Run: runDemo},
		{Name: "export", Summary: "print every object of a type as JSON lines, sorted by primary key", Run: runExport},
		{Name: "osdk-types", Summary: "write the TypeScript definitions of the object types, interfaces and links for @osdk/client 2.22.0", Run: runOSDKTypes},
		{Name: "serve", Summary: "keep every object type fresh and serve the API until interrupted", Run: runServe},
		{Name: "status", Summary: "print where each object type of a running `indexer serve` stands", Run: runStatus},
		{Name: "view", Summary: "print a view of a table between two snapshots: current, previous, added, modified, removed or changelog rows", Run: runView},
		{Name: "version", Summary: "print the version", Run: runVersion},
	}
}

// Main runs the indexer command line and returns the exit code.
func Main(ctx context.Context, args []string, env *Env) int {
	return cli.Program{Name: "indexer", Commands: commandTable()}.Main(ctx, args, env)
}

// newFlags returns a flag set that reports errors to env and does not exit.
func newFlags(env *Env, name, synopsis string) *flag.FlagSet {
	return cli.NewFlags(env, "indexer", name, synopsis)
}

// parse parses flags; it returns an exit code when the command must stop.
func parse(fs *flag.FlagSet, args []string) (int, bool) { return cli.Parse(fs, args) }

// loadConfig loads --config, reporting errors as usage errors.
func loadConfig(env *Env, cmd, path string) (*config.Config, int, bool) {
	if path == "" {
		fmt.Fprintf(env.Stderr, "indexer %s: --config is required\n", cmd)
		return nil, exitUsage, false
	}
	cfg, err := config.Load(path)
	if err != nil {
		fmt.Fprintf(env.Stderr, "indexer %s: %v\n", cmd, err)
		return nil, exitUsage, false
	}
	return cfg, 0, true
}

// checkType validates --type against the config.
func checkType(env *Env, cmd string, cfg *config.Config, name string) bool {
	if name == "" {
		return true
	}
	if _, ok := cfg.TypeSpec(name); ok {
		return true
	}
	var names []string
	for _, t := range cfg.ObjectTypes {
		names = append(names, t.APIName)
	}
	fmt.Fprintf(env.Stderr, "indexer %s: --type %q is not an object type of the config (object types: %s)\n", cmd, name, strings.Join(names, ", "))
	return false
}

// isTerminal reports whether w is a character device.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
