package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// subcommands are the commands with subcommands of their own, which have
// a row each in README.md's Command line table.
var subcommands = [][]string{{"bench", "search"}, {"bench", "subscribe"}}

// TestREADME_commandLine checks README.md's Command line table against the
// command line: a row for every command (and subcommand), each row naming
// every flag that the command's -h lists, and no flag that it does not.
func TestREADME_commandLine(t *testing.T) {
	rows := readmeCommandRows(t, "../../README.md")
	paths := slices.Clone(subcommands)
	for _, c := range commandTable() {
		paths = append(paths, []string{c.Name})
	}
	known := map[string]bool{}
	for _, p := range paths {
		key := strings.Join(p, " ")
		known[key] = true
		t.Run(strings.ReplaceAll(key, " ", "_"), func(t *testing.T) {
			row, ok := rows[key]
			if !ok {
				t.Fatalf("README.md's Command line table has no row for `indexer %s`", key)
			}
			code, out, errOut := run(append(slices.Clone(p), "-h")...)
			if code != exitOK || out != "" {
				t.Fatalf("indexer %s -h: exit %d, stdout %q, stderr:\n%s", key, code, out, errOut)
			}
			flags := helpFlags(errOut)
			named := rowFlags(row)
			for _, f := range flags {
				if !named[f] {
					t.Errorf("README.md's row for `indexer %s` does not mention --%s (indexer %s -h lists it)", key, f, key)
				}
			}
			for f := range named {
				if !slices.Contains(flags, f) {
					t.Errorf("README.md's row for `indexer %s` mentions --%s, which indexer %s -h does not list", key, f, key)
				}
			}
		})
	}
	for key := range rows {
		if !known[key] {
			t.Errorf("README.md's Command line table has a row for `indexer %s`, which is no command", key)
		}
	}
}

// TestHelpFlags checks the parsers of TestREADME_commandLine on a fixed
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
	rows := readmeCommandRows(t, "../../README.md")
	if len(rows) < len(commandTable()) {
		t.Errorf("found %d rows in README.md's Command line table, want at least %d", len(rows), len(commandTable()))
	}
}

var (
	helpFlag = regexp.MustCompile(`(?m)^  -([A-Za-z0-9][A-Za-z0-9_-]*)`)
	rowFlag  = regexp.MustCompile(`(?:^|[^-\w])--([a-z][a-z0-9-]*)`)
	rowStart = regexp.MustCompile("^\\| `indexer ([a-z]+(?: [a-z]+)*)")
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

// readmeCommandRows returns the rows of the table under "## Command line"
// by command ("build", "bench search").
func readmeCommandRows(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Command line\n")
	if !ok {
		t.Fatalf("%s has no section ## Command line", path)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	rows := map[string]string{}
	for line := range strings.SplitSeq(section, "\n") {
		m := rowStart.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if _, dup := rows[m[1]]; dup {
			t.Errorf("%s: two rows for `indexer %s`", path, m[1])
		}
		rows[m[1]] = line
	}
	return rows
}
