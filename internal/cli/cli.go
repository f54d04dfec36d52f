package cli

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
)

// Exit codes.
const (
	ExitOK      = 0
	ExitFailed  = 1 // the command ran and something failed
	ExitUsage   = 2 // bad arguments or config
	ExitAborted = 130
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

// Program is a command line: its name ("indexer") and its commands.
type Program struct {
	Name     string
	Commands []Command
}

// Main runs the command line args (without the program name) and returns
// the exit code.
func (p Program) Main(ctx context.Context, args []string, env *Env) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		p.usage(env.Stderr)
		if len(args) == 0 {
			return ExitUsage
		}
		return ExitOK
	}
	i := slices.IndexFunc(p.Commands, func(c Command) bool { return c.Name == args[0] })
	if i < 0 {
		fmt.Fprintf(env.Stderr, "%s: unknown command %q\n\n", p.Name, args[0])
		p.usage(env.Stderr)
		return ExitUsage
	}
	return p.Commands[i].Run(ctx, env, args[1:])
}

// usage lists the commands sorted by name, whatever the table's order.
func (p Program) usage(w io.Writer) {
	fmt.Fprintf(w, "usage: %s <command> [flags]\n\ncommands:\n", p.Name)
	sorted := slices.Clone(p.Commands)
	slices.SortFunc(sorted, func(a, b Command) int { return strings.Compare(a.Name, b.Name) })
	for _, c := range sorted {
		fmt.Fprintf(w, "  %-10s %s\n", c.Name, c.Summary)
	}
	fmt.Fprintf(w, "\nRun %s <command> -h for the flags of a command.\n", p.Name)
}

// NewFlags returns the flag set of `program name`: it reports errors and
// its usage (synopsis, then the flags) to env and does not exit.
func NewFlags(env *Env, program, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(program+" "+name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(env.Stderr, "usage: %s %s\n\nflags:\n", fs.Name(), synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// Parse parses the flags of a flag set of NewFlags; it returns an exit
// code and false when the command must stop (-h, a bad flag, an
// argument that is no flag).
func Parse(fs *flag.FlagSet, args []string) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK, false
		}
		return ExitUsage, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return ExitUsage, false
	}
	return 0, true
}

// Logger logs to stderr at the level of $INDEXER_LOG (debug, info, warn,
// error; default warn).
func Logger(env *Env) *slog.Logger {
	level := slog.LevelWarn
	if v := os.Getenv("INDEXER_LOG"); v != "" {
		_ = level.UnmarshalText([]byte(v))
	}
	return slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: level}))
}
