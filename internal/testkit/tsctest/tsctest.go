// Package tsctest type-checks TypeScript with tsc against @osdk/client
// 2.22.0, both from the node_modules of the end-to-end test's package
// (api/testdata/e2e, where npm ci installs them from its lock file), for
// the tests of the generated OSDK definitions (api/typescript,
// `indexer osdk-types`).
package tsctest

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TSC is a tsc to run: node and the node_modules that hold typescript and
// @osdk/client.
type TSC struct {
	Node    string
	Modules string
}

// Find returns the tsc of api/testdata/e2e. Without node or the installed
// packages it fails tb on CI (CI=true), where .ci/run installs them, and
// skips it elsewhere, saying how to install them.
func Find(tb testing.TB) TSC {
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
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("tsctest: no source path to find api/testdata/e2e from")
	}
	modules := filepath.Join(filepath.Dir(self), "..", "..", "..", "api", "testdata", "e2e", "node_modules")
	for _, need := range []string{"typescript/bin/tsc", "@osdk/client/package.json"} {
		if _, err := os.Stat(filepath.Join(modules, need)); err != nil {
			missing("api/testdata/e2e/node_modules/%s is not installed", need)
		}
	}
	return TSC{Node: node, Modules: modules}
}

// Project makes dir a project that resolves packages from the modules
// (a node_modules link) as ES modules (package.json), with tsconfig.json
// written from compilerOptions (JSON) and include (file globs).
func (c TSC) Project(tb testing.TB, dir, compilerOptions string, include ...string) {
	tb.Helper()
	quoted := make([]string, len(include))
	for i, p := range include {
		quoted[i] = strconv.Quote(p)
	}
	for name, text := range map[string]string{
		"package.json":  `{"type": "module"}` + "\n",
		"tsconfig.json": `{"compilerOptions": ` + compilerOptions + `, "include": [` + strings.Join(quoted, ", ") + "]}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.Symlink(c.Modules, filepath.Join(dir, "node_modules")); err != nil && !errors.Is(err, os.ErrExist) {
		tb.Fatal(err)
	}
}

// Error is one error tsc reports.
type Error struct {
	File string // relative to the project, with slashes
	Line int
	Text string // TSnnnn: message
}

func (e Error) String() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Text) }

var errorLine = regexp.MustCompile(`^(.+?)\((\d+),\d+\): error (TS\d+: .*)$`)

// Check type-checks the project in dir (its tsconfig.json) and returns
// the errors tsc reports; anything else it prints fails tb.
func (c TSC) Check(tb testing.TB, dir string) []Error {
	tb.Helper()
	cmd := exec.CommandContext(tb.Context(), c.Node, filepath.Join(c.Modules, "typescript", "bin", "tsc"),
		"-p", filepath.Join(dir, "tsconfig.json"), "--pretty", "false")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 2) { // 2: errors reported
		tb.Fatalf("tsc: %v\n%s", err, out)
	}
	var errs []Error
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), " ") { // a message's continuation
			continue
		}
		m := errorLine.FindStringSubmatch(sc.Text())
		if m == nil {
			tb.Fatalf("tsc printed what is not an error of a file: %q\n%s", sc.Text(), out)
		}
		line, _ := strconv.Atoi(m[2])
		errs = append(errs, Error{File: filepath.ToSlash(m[1]), Line: line, Text: m[3]})
	}
	return errs
}
