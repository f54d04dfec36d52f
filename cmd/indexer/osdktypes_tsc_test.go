package main

import (
	"bufio"
	"errors"

	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// e2eModules is the node_modules of the end-to-end test's package
// (api/testdata/e2e): @osdk/client 2.22.0 and typescript, as npm ci
// installs them from its package-lock.json.
const e2eModules = "../../api/testdata/e2e/node_modules"

// mustTSC returns node and the node_modules that hold tsc and
// @osdk/client. Without them it fails the test on CI, where .ci/run
// installs them, and skips it elsewhere.
func mustTSC(tb testing.TB) (node, modules string) {
	tb.Helper()
	missing := func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		if os.Getenv("CI") == "true" {
			tb.Fatalf("%s: .ci/run installs them (npm ci in api/testdata/e2e)", msg)
		}
		tb.Skipf("%s: run npm ci in api/testdata/e2e to type-check the generated definitions", msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("no node on PATH")
	}
	modules, err = filepath.Abs(e2eModules)
	if err != nil {
		tb.Fatal(err)
	}
	for _, need := range []string{"typescript/bin/tsc", "@osdk/client/package.json"} {
		if _, err := os.Stat(filepath.Join(modules, need)); err != nil {
			missing("%s is not installed", filepath.Join(e2eModules, need))
		}
	}
	return node, modules
}

// tscError is one error tsc reports.
type tscError struct {
	file string // relative to the project
	line int
	text string // TSnnnn: message
}

var tscLine = regexp.MustCompile(`^(.+?)\((\d+),\d+\): error (TS\d+: .*)$`)

// runTSC type-checks the project in dir and returns its errors.
func runTSC(tb testing.TB, node, modules, dir string) []tscError {
	tb.Helper()
	cmd := exec.CommandContext(tb.Context(), node, filepath.Join(modules, "typescript", "bin", "tsc"), "-p", filepath.Join(dir, "tsconfig.json"), "--pretty", "false")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 2) { // 2: errors reported
		tb.Fatalf("tsc: %v\n%s", err, out)
	}
	var errs []tscError
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), " ") { // a message's continuation
			continue
		}
		m := tscLine.FindStringSubmatch(sc.Text())
		if m == nil {
			tb.Fatalf("tsc printed what is not an error of a file: %q\n%s", sc.Text(), out)
		}
		var line int
		fmt.Sscan(m[2], &line)
		errs = append(errs, tscError{file: filepath.ToSlash(m[1]), line: line, text: m[3]})
	}
	return errs
}

// wantedErrors are the lines of the misuse files marked "// want error",
// by file.
func wantedErrors(tb testing.TB, dir string) map[string][]int {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "misuse", "*.ts"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no misuse files in %s: %v", dir, err)
	}
	want := map[string][]int{}
	for _, f := range files {
		rel := "misuse/" + filepath.Base(f)
		for i, l := range strings.Split(mustRead(tb, f), "\n") {
			if strings.HasSuffix(l, "// want error") {
				want[rel] = append(want[rel], i+1)
			}
		}
		if len(want[rel]) == 0 {
			tb.Fatalf("%s marks no line // want error", rel)
		}
	}
	return want
}

// TestRunOSDKTypes_tsc generates the definitions of the demo with its
// interfaces and type-checks an application that uses them with tsc
// --strict against @osdk/client 2.22.0 (testdata/osdkapp/app.ts: where,
// fetchOne, $as, $link, pivotTo, union, aggregate, narrowToType, interface
// links, asyncIterLinks): it must have no error, nor must the
// definitions. Each misuse (testdata/osdkapp/misuse) must fail on the
// lines it marks, and only there: a property a type or an interface
// lacks, a value of the wrong type, a link it does not have, a type that
// does not implement the interface, a property read as the wrong type.
func TestRunOSDKTypes_tsc(t *testing.T) {
	node, modules := mustTSC(t)
	dir := t.TempDir()
	cfg := mustInterfaceWarehouse(t, dir, nil)
	app := filepath.Join(dir, "app")
	if err := os.CopyFS(app, os.DirFS("testdata/osdkapp")); err != nil {
		t.Fatal(err)
	}
	mustFile(t, filepath.Join(app, "package.json"), `{"type": "module"}`+"\n")
	if err := os.Symlink(modules, filepath.Join(app, "node_modules")); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run("osdk-types", "--config", cfg, "--out", filepath.Join(app, "generated")); code != exitOK {
		t.Fatalf("osdk-types exit %d: %s", code, errOut)
	}
	want := wantedErrors(t, app)
	got := map[string][]int{}
	for _, e := range runTSC(t, node, modules, app) {
		if !strings.HasPrefix(e.file, "misuse/") {
			t.Errorf("%s:%d: %s", e.file, e.line, e.text)
			continue
		}
		if !slices.Contains(want[e.file], e.line) {
			t.Errorf("%s:%d: an error on a line not marked // want error: %s", e.file, e.line, e.text)
		}
		got[e.file] = append(got[e.file], e.line)
	}
	for file, lines := range want {
		for _, l := range lines {
			if !slices.Contains(got[file], l) {
				t.Errorf("%s:%d: tsc accepted a misuse", file, l)
			}
		}
	}
}
