package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"

	"github.com/ontoindex/ontoindex/indexer/config"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailed  = 1 // the command ran and something failed
	exitUsage   = 2 // bad arguments or config
	exitAborted = 130
)

// Env is what a command writes to; tests pass buffers.
type Env struct {
	Stdout io.Writer
	Stderr io.Writer
}

// Command is one subcommand.
type Command struct {
	Name    string
	Summary string
	Run     func(ctx context.Context, env *Env, args []string) int
}

// commandTable lists every subcommand, in one place: a function, not a
// package variable, so that no file can add to it or change it at run time.
func commandTable() []Command {
	return []Command{
		{Name: "bench", Summary: "benchmarks: build (the default) measures builds, search compares search with PostgreSQL", Run: runBench},
		{Name: "build", Summary: "build object types to the current (or a given) snapshot", Run: runBuild},
		{Name: "changelog", Summary: "print the row-level changes of a table between two snapshots", Run: runChangelog},
		{Name: "check", Summary: "check the write modes and live delete files of every table", Run: runCheck},
		{Name: "demo", Summary: "serve a demo warehouse in ./demo while a writer changes its tables", Run: runDemo},
		{Name: "export", Summary: "print every object of a type as JSON lines, sorted by primary key", Run: runExport},
		{Name: "serve", Summary: "keep every object type fresh and serve the API until interrupted", Run: runServe},
		{Name: "soak", Summary: "the reliability campaign: kill -9, table and data-dir faults and load on real servers, with figures", Run: runSoak},
		{Name: "status", Summary: "print where each object type of a running `indexer serve` stands", Run: runStatus},
		{Name: "view", Summary: "print a view of a table between two snapshots: current, previous, added, modified, removed or changelog rows", Run: runView},
		{Name: "version", Summary: "print the version", Run: runVersion},
	}
}

// Main runs the indexer command line and returns the exit code.
func Main(ctx context.Context, args []string, env *Env) int {
	commands := commandTable()
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(env.Stderr, commands)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	i := slices.IndexFunc(commands, func(c Command) bool { return c.Name == args[0] })
	if i < 0 {
		fmt.Fprintf(env.Stderr, "indexer: unknown command %q\n\n", args[0])
		usage(env.Stderr, commands)
		return exitUsage
	}
	return commands[i].Run(ctx, env, args[1:])
}

// usage lists the commands sorted by name, whatever the table's order.
func usage(w io.Writer, commands []Command) {
	fmt.Fprintln(w, "usage: indexer <command> [flags]\n\ncommands:")
	sorted := slices.Clone(commands)
	slices.SortFunc(sorted, func(a, b Command) int { return strings.Compare(a.Name, b.Name) })
	for _, c := range sorted {
		fmt.Fprintf(w, "  %-10s %s\n", c.Name, c.Summary)
	}
	fmt.Fprintln(w, "\nRun indexer <command> -h for the flags of a command.")
}

// newFlags returns a flag set that reports errors to env and does not exit.
func newFlags(env *Env, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(env.Stderr, "usage: indexer %s %s\n\nflags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses flags; it returns an exit code when the command must stop.
func parse(fs *flag.FlagSet, args []string) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK, false
		}
		return exitUsage, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "indexer %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return exitUsage, false
	}
	return 0, true
}

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

// logger logs to stderr at the level of $INDEXER_LOG (debug, info, warn, error; default warn).
func logger(env *Env) *slog.Logger {
	level := slog.LevelWarn
	if v := os.Getenv("INDEXER_LOG"); v != "" {
		_ = level.UnmarshalText([]byte(v))
	}
	return slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: level}))
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
