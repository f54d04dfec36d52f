package commandtest

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Run runs a command line of the program under test in-process and
// returns its exit code and output.
type Run func(args ...string) (code int, stdout, stderr string)

// CheckDocumented checks the Command line tables of the documentation
// under root (README.md and docs/*.md: the rows of each section headed
// "Command line") against program's command line: a row `program
// <command>` for every command path of commands, each naming every flag
// that the command's -h lists and no flag that it does not, and no row
// for a command that is not there. run runs the program; -h must exit 0.
func CheckDocumented(t *testing.T, root, program string, commands [][]string, run Run) {
	t.Helper()
	rows := DocumentedCommands(t, root, program)
	known := map[string]bool{}
	for _, p := range commands {
		key := strings.Join(p, " ")
		known[key] = true
		t.Run(strings.ReplaceAll(key, " ", "_"), func(t *testing.T) {
			row, ok := rows[key]
			if !ok {
				t.Fatalf("the documentation's Command line table has no row for `%s %s`", program, key)
			}
			code, out, errOut := run(append(slices.Clone(p), "-h")...)
			if code != 0 || out != "" {
				t.Fatalf("%s %s -h: exit %d, stdout %q, stderr:\n%s", program, key, code, out, errOut)
			}
			flags := HelpFlags(errOut)
			named := RowFlags(row)
			for _, f := range flags {
				if !named[f] {
					t.Errorf("the row for `%s %s` does not mention --%s (%s %s -h lists it)", program, key, f, program, key)
				}
			}
			for f := range named {
				if !slices.Contains(flags, f) {
					t.Errorf("the row for `%s %s` mentions --%s, which %s %s -h does not list", program, key, f, program, key)
				}
			}
		})
	}
	for key := range rows {
		if !known[key] {
			t.Errorf("the documentation's Command line table has a row for `%s %s`, which is no command", program, key)
		}
	}
}

var (
	helpFlag       = regexp.MustCompile(`(?m)^  -([A-Za-z0-9][A-Za-z0-9_-]*)`)
	rowFlag        = regexp.MustCompile(`(?:^|[^-\w])--([a-z][a-z0-9-]*)`)
	commandHeading = regexp.MustCompile(`^#+ Command line\s*$`)
)

// HelpFlags returns the names of the flags a -h output lists (the lines
// of flag.PrintDefaults), in order.
func HelpFlags(help string) []string {
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

// RowFlags returns the flags a table row mentions (--name).
func RowFlags(row string) map[string]bool {
	named := map[string]bool{}
	for _, m := range rowFlag.FindAllStringSubmatch(row, -1) {
		named[m[1]] = true
	}
	return named
}

// DocumentedCommands returns the rows of program's commands in the
// sections headed "Command line" of README.md and docs/*.md under root,
// by command ("build", "bench search"). Two rows for one command are an
// error.
func DocumentedCommands(t *testing.T, root, program string) map[string]string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	rowStart := regexp.MustCompile("^\\| `" + regexp.QuoteMeta(program) + " ([a-z][a-z-]*(?: [a-z][a-z-]*)*)")
	rows := map[string]string{}
	sections := 0
	for _, path := range append([]string{filepath.Join(root, "README.md")}, docs...) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		in := false
		for line := range strings.SplitSeq(string(b), "\n") {
			if strings.HasPrefix(line, "#") {
				in = commandHeading.MatchString(line)
				if in {
					sections++
				}
				continue
			}
			m := rowStart.FindStringSubmatch(line)
			if !in || m == nil {
				continue
			}
			if _, dup := rows[m[1]]; dup {
				t.Errorf("%s: a second row for `%s %s`", path, program, m[1])
			}
			rows[m[1]] = line
		}
	}
	if sections == 0 {
		t.Fatalf("no section headed Command line in %s/README.md or docs/*.md", root)
	}
	return rows
}
