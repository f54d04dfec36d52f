package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// docTable is one command table of the docs: the rows of the table
// under section in path that start with `binary ...`.
type docTable struct {
	binary, path, section string
}

var (
	indexerCommands = docTable{"indexer", "../../docs/operations.md", "## Command line"}
	ontolabCommands = docTable{"ontolab", "../../docs/development.md", "### Command line"}
)

// TestDocs_commandLine checks the command tables of the docs against the
// command lines: a row for every command of indexer (and every subcommand a
// row names), each row naming every flag that the command's -h lists, and
// no flag that it does not; the rows of ontolab likewise, against the
// ontolab binary built from ../ontolab.
func TestDocs_commandLine(t *testing.T) {
	indexerRows := indexerCommands.rows(t)
	ontolabRows := ontolabCommands.rows(t)
	inProcess := func(args ...string) (int, string) {
		code, out, errOut := run(args...)
		if out != "" {
			return -1, "stdout: " + out
		}
		return code, errOut
	}
	commands := map[string]bool{}
	for _, c := range commandTable() {
		commands[c.Name] = true
		_, documented := indexerRows[c.Name]
		// While this binary still carries a command that moves to ontolab
		// (issue 23), its row may be ontolab's: the flags are the same.
		_, moved := ontolabRows[c.Name]
		if !documented && !moved {
			t.Errorf("%s: the table under %q has no row for `indexer %s`", indexerCommands.path, indexerCommands.section, c.Name)
		}
	}
	for key, row := range indexerRows {
		if first, _, _ := strings.Cut(key, " "); !commands[first] {
			t.Errorf("%s: a row for `indexer %s`, which is no command", indexerCommands.path, key)
			continue
		}
		checkRowFlags(t, indexerCommands, key, row, inProcess)
	}
	ontolab := ontolabHelp(t)
	for key, row := range ontolabRows {
		checkRowFlags(t, ontolabCommands, key, row, ontolab)
	}
}

// checkRowFlags runs `binary key -h` and compares the flags it lists with
// the ones the row names.
func checkRowFlags(t *testing.T, table docTable, key, row string, help func(args ...string) (int, string)) {
	t.Run(table.binary+"_"+strings.ReplaceAll(key, " ", "_"), func(t *testing.T) {
		if help == nil {
			t.Skipf("no %s in this tree (cmd/%s) to check the row against", table.binary, table.binary)
		}
		code, text := help(append(strings.Fields(key), "-h")...)
		if code != exitOK {
			t.Fatalf("%s %s -h: exit %d:\n%s", table.binary, key, code, text)
		}
		flags := helpFlags(text)
		named := rowFlags(row)
		for _, f := range flags {
			if !named[f] {
				t.Errorf("%s: the row for `%s %s` does not mention --%s (%s %s -h lists it)", table.path, table.binary, key, f, table.binary, key)
			}
		}
		for f := range named {
			if !slices.Contains(flags, f) {
				t.Errorf("%s: the row for `%s %s` mentions --%s, which %s %s -h does not list", table.path, table.binary, key, f, table.binary, key)
			}
		}
	})
}

// ontolabHelp returns a way to run `ontolab ... -h`: the binary built from
// ../ontolab, or nil on a tree that has none yet (the tools still commands
// of indexer, before issue 23's move is merged).
func ontolabHelp(t *testing.T) func(args ...string) (int, string) {
	if _, err := os.Stat("../ontolab"); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("building ../ontolab: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "ontolab")
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, goTool, "build", "-o", bin, "../ontolab").CombinedOutput(); err != nil {
		t.Fatalf("go build ../ontolab: %v\n%s", err, out)
	}
	return func(args ...string) (int, string) {
		out, err := exec.Command(bin, args...).CombinedOutput()
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			return exit.ExitCode(), string(out)
		case err != nil:
			return -1, err.Error()
		}
		return exitOK, string(out)
	}
}

// TestHelpFlags checks the parsers of TestDocs_commandLine on a fixed
// text, so that a parser that finds nothing cannot pass it.
func TestHelpFlags(t *testing.T) {
	help := "usage: indexer x [--a-b N]\n\nflags:\n  -a-b int\n    \tan int (default 1)\n  -c\tbool\n  -url URL\n    \tbase URL -not-a-flag\n"
	if got, want := helpFlags(help), []string{"a-b", "c", "url"}; !slices.Equal(got, want) {
		t.Errorf("helpFlags = %q, want %q", got, want)
	}
	row := "| `indexer x [--a-b N] [--writer=false]` | text; `--c-d` and -e, not---f |"
	got := rowFlags(row)
	if len(got) != 3 || !got["a-b"] || !got["writer"] || !got["c-d"] {
		t.Errorf("rowFlags = %v, want a-b, writer and c-d", got)
	}
	rows := len(indexerCommands.rows(t)) + len(ontolabCommands.rows(t))
	if rows < len(commandTable()) {
		t.Errorf("found %d rows in the command tables of the docs, want at least %d", rows, len(commandTable()))
	}
}

var (
	helpFlag = regexp.MustCompile(`(?m)^  -([A-Za-z0-9][A-Za-z0-9_-]*)`)
	rowFlag  = regexp.MustCompile(`(?:^|[^-\w])--([a-z][a-z0-9-]*)`)
)

// helpFlags returns the names of the flags a -h output lists (the lines of
// flag.PrintDefaults), in order.
func helpFlags(help string) []string {
	_, defaults, ok := strings.Cut(help, "\nflags:\n")
	if !ok {
		return nil
	}
	var names []string
	for _, m := range helpFlag.FindAllStringSubmatch(defaults, -1) {
		names = append(names, m[1])
	}
	return names
}

// rowFlags returns the flags a table row mentions (--name).
func rowFlags(row string) map[string]bool {
	named := map[string]bool{}
	for _, m := range rowFlag.FindAllStringSubmatch(row, -1) {
		named[m[1]] = true
	}
	return named
}

// rows returns the rows of the table by command ("build", "bench search").
func (c docTable) rows(t *testing.T) map[string]string {
	t.Helper()
	section := docSection(t, c.path, c.section)
	start := regexp.MustCompile("^\\| `" + c.binary + " ([a-z]+(?: [a-z]+)*)")
	rows := map[string]string{}
	for line := range strings.SplitSeq(section, "\n") {
		m := start.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if _, dup := rows[m[1]]; dup {
			t.Errorf("%s: two rows for `%s %s`", c.path, c.binary, m[1])
		}
		rows[m[1]] = line
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no rows for `%s ...` under %q", c.path, c.binary, c.section)
	}
	return rows
}
