package commandtest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestHelpFlags checks the parsers of CheckDocumented on fixed texts, so
// that a parser that finds nothing cannot pass it.
func TestHelpFlags(t *testing.T) {
	help := "usage: indexer x [--a-b N]\n\nflags:\n  -a-b int\n    \tan int (default 1)\n  -c\tbool\n  -url URL\n    \tbase URL -not-a-flag\n"
	if got, want := HelpFlags(help), []string{"a-b", "c", "url"}; !slices.Equal(got, want) {
		t.Errorf("HelpFlags = %q, want %q", got, want)
	}
	row := "| `indexer x [--a-b N] [--writer=false]` | text; `--c-d` and -e, not---f |"
	got := RowFlags(row)
	if len(got) != 3 || !got["a-b"] || !got["writer"] || !got["c-d"] {
		t.Errorf("RowFlags = %v, want a-b, writer and c-d", got)
	}
}

// TestDocumentedCommands reads the rows of one program from the Command
// line sections of README.md and docs/*.md, and nothing outside them.
func TestDocumentedCommands(t *testing.T) {
	root := t.TempDir()
	mustWrite := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustWrite(filepath.Join(root, "README.md"), "# x\n\n| `lab soak` | not in a Command line section |\n\n## Command line\n\n| command | what |\n|---|---|\n| `lab soak [--n N]` | a |\n| `other build` | another program |\n\n## Next\n\n| `lab bench` | after the section |\n")
	mustWrite(filepath.Join(root, "docs", "tools.md"), "# Tools\n\n### Command line\n\n| `lab bench search --rows N` | b |\n")
	rows := DocumentedCommands(t, root, "lab")
	if len(rows) != 2 || rows["soak"] != "| `lab soak [--n N]` | a |" || rows["bench search"] != "| `lab bench search --rows N` | b |" {
		t.Errorf("rows = %q", rows)
	}
}
