package main

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestCITest_flags: .ci/test knows --quick and nothing else; an unknown
// flag gets the usage and exit 2 before anything runs (no go vet line).
// README and docs/development.md show both forms.
func TestCITest_flags(t *testing.T) {
	if out, err := exec.Command("bash", "-n", "../../.ci/test").CombinedOutput(); err != nil {
		t.Fatalf("bash -n .ci/test: %v\n%s", err, out)
	}
	for _, args := range [][]string{{"--fast"}, {"--quick", "--quick"}, {"quick"}} {
		out, err := exec.Command("bash", append([]string{"../../.ci/test"}, args...)...).CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 {
			t.Errorf(".ci/test %s: %v, want exit 2\n%s", strings.Join(args, " "), err, out)
		}
		if !strings.HasPrefix(string(out), "usage: .ci/test [--quick]\n") || strings.Contains(string(out), "== go vet") {
			t.Errorf(".ci/test %s printed:\n%s\nwant the usage only", strings.Join(args, " "), out)
		}
	}
	for _, page := range []string{"../../README.md", "../../docs/development.md"} {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"\n.ci/test --quick ", "\n.ci/test  "} {
			if !strings.Contains(string(b), want) {
				t.Errorf("%s does not show %q", page, strings.TrimSpace(want))
			}
		}
	}
}

// TestReport_docsSection: the heading the list of skipped tests points at
// is in docs/development.md.
func TestReport_docsSection(t *testing.T) {
	b, err := os.ReadFile("../../docs/development.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "\n### What the tests need\n") || !strings.Contains((&skips{count: 1}).String(""), "docs/development.md#what-the-tests-need") {
		t.Error("the skipped list points at docs/development.md#what-the-tests-need, which is not a heading there")
	}
}
