package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// program is a command line of two commands, the second of which parses
// one flag.
func program() Program {
	return Program{Name: "lab", Commands: []Command{
		{Name: "zeta", Summary: "the last", Run: func(context.Context, *Env, []string) int { return ExitFailed }},
		{Name: "alpha", Summary: "the first", Run: func(_ context.Context, env *Env, args []string) int {
			fs := NewFlags(env, "lab", "alpha", "[--n N]")
			n := fs.Int("n", 1, "a number")
			if code, ok := Parse(fs, args); !ok {
				return code
			}
			return *n
		}},
	}}
}

func TestProgram_Main(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no command", nil, ExitUsage, "usage: lab <command> [flags]\n\ncommands:\n  alpha      the first\n  zeta       the last\n\nRun lab <command> -h for the flags of a command.\n"},
		{"help", []string{"help"}, ExitOK, "usage: lab <command>"},
		{"unknown command", []string{"beta"}, ExitUsage, "lab: unknown command \"beta\"\n\nusage: lab"},
		{"a command", []string{"zeta"}, ExitFailed, ""},
		{"a command's flag", []string{"alpha", "--n", "7"}, 7, ""},
		{"a command's -h", []string{"alpha", "-h"}, ExitOK, "usage: lab alpha [--n N]\n\nflags:\n  -n int\n    \ta number (default 1)\n"},
		{"a bad flag", []string{"alpha", "--m", "1"}, ExitUsage, "flag provided but not defined: -m"},
		{"an argument", []string{"alpha", "extra"}, ExitUsage, "lab alpha: unexpected argument \"extra\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := program().Main(context.Background(), tt.args, &Env{Stdout: &stdout, Stderr: &stderr})
			if code != tt.code || stdout.Len() != 0 || !strings.Contains(stderr.String(), tt.stderr) || (tt.stderr == "" && stderr.Len() != 0) {
				t.Errorf("exit %d (want %d), stdout %q, stderr:\n%s\nwant in stderr:\n%s", code, tt.code, stdout.String(), stderr.String(), tt.stderr)
			}
		})
	}
}
