package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// event is one line of `go test -json` (go doc cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// testKey names a test of a package.
type testKey struct{ pkg, test string }

// report copies the stream of go test -json from in to out as a plain go
// test shows it, and returns the tests that skipped. Lines that are not
// JSON (go test -json writes none) are copied as they are.
func report(in io.Reader, out io.Writer) (*skips, error) {
	w := bufio.NewWriter(out)
	r := &reporter{out: w, buffers: map[testKey][]string{}, skips: &skips{}}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024) // a test may print long lines
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			fmt.Fprintln(w, sc.Text())
		} else {
			r.handle(e)
		}
		// Flush per line: the run is long, and its reader watches it live.
		if err := w.Flush(); err != nil {
			return nil, fmt.Errorf("write: %w", err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read go test -json: %w", err)
	}
	return r.skips, nil
}

// reporter holds the output of every test that has not ended: a test's
// output is shown only if it (or a test it belongs to) fails.
type reporter struct {
	out     io.Writer
	buffers map[testKey][]string
	order   []testKey // tests in the order they started, to flush a crashed package
	skips   *skips
}

func (r *reporter) handle(e event) {
	switch {
	case e.Action == "build-output":
		io.WriteString(r.out, e.Output)
	case e.Test == "" && e.Action == "output":
		if e.Output != "PASS\n" { // a plain go test prints only the ok line
			io.WriteString(r.out, e.Output)
		}
	case e.Test == "" && (e.Action == "pass" || e.Action == "fail"):
		r.endPackage(e.Package, e.Action == "fail")
	case e.Test == "":
	case e.Action == "run":
		k := testKey{e.Package, e.Test}
		if _, ok := r.buffers[k]; !ok {
			r.buffers[k] = nil
			r.order = append(r.order, k)
		}
	case e.Action == "output":
		k := testKey{e.Package, e.Test}
		if _, running := r.buffers[k]; !running {
			io.WriteString(r.out, e.Output) // after the test ended: shown, not lost
		} else if !strings.HasPrefix(e.Output, "=== ") { // RUN, PAUSE, CONT, NAME
			r.buffers[k] = append(r.buffers[k], e.Output)
		}
	case e.Action == "pass" || e.Action == "fail" || e.Action == "skip":
		r.endTest(testKey{e.Package, e.Test}, e.Action)
	}
}

// endTest: a failing or skipping subtest's lines go to its parent's, to be
// shown if the parent fails; a failing top-level test's lines are shown.
func (r *reporter) endTest(k testKey, action string) {
	lines := r.buffers[k]
	r.forget(k)
	if action == "skip" {
		r.skips.add(k, skipReason(lines))
	}
	if action == "pass" {
		return
	}
	if i := strings.LastIndexByte(k.test, '/'); i >= 0 {
		parent := testKey{k.pkg, k.test[:i]}
		r.buffers[parent] = append(r.buffers[parent], lines...)
		return
	}
	if action == "fail" {
		io.WriteString(r.out, strings.Join(lines, ""))
	}
}

// endPackage shows, when the package failed, the output of its tests that
// never ended (a panic, a timeout), then forgets them.
func (r *reporter) endPackage(pkg string, failed bool) {
	for _, k := range r.order {
		if k.pkg != pkg {
			continue
		}
		if lines, ok := r.buffers[k]; ok && failed {
			io.WriteString(r.out, strings.Join(lines, ""))
		}
		r.forget(k)
	}
}

func (r *reporter) forget(k testKey) {
	delete(r.buffers, k)
	for i, o := range r.order {
		if o == k {
			r.order = append(r.order[:i], r.order[i+1:]...)
			break
		}
	}
}

// logLine is the start of a line that t.Log or t.Skip writes:
// "    file_test.go:12: message".
var logLine = regexp.MustCompile(`^\s+\S+\.go:\d+: `)

// skipReason is the message a skipped test gave: its last logged line
// (t.Skip's), without the file and line, with the lines that continue it.
func skipReason(lines []string) string {
	var reason []string
	for _, l := range lines {
		switch {
		case strings.HasPrefix(strings.TrimSpace(l), "--- SKIP: "):
		case logLine.MatchString(l):
			reason = []string{strings.TrimSpace(logLine.ReplaceAllString(l, ""))}
		case reason != nil && strings.TrimSpace(l) != "":
			reason = append(reason, strings.TrimSpace(l))
		}
	}
	if reason == nil {
		return "(no reason given)"
	}
	return strings.Join(reason, " ")
}

// skips are the skipped tests grouped by reason, in the order the reasons
// first came.
type skips struct {
	reasons []string
	tests   map[string][]testKey
	count   int
}

func (s *skips) add(k testKey, reason string) {
	if s.tests == nil {
		s.tests = map[string][]testKey{}
	}
	if _, ok := s.tests[reason]; !ok {
		s.reasons = append(s.reasons, reason)
	}
	s.tests[reason] = append(s.tests[reason], k)
	s.count++
}

// String lists the skipped tests: a heading, then each reason and the
// tests that gave it, a line per package, module trimmed from the package
// names. No skipped test: "".
func (s *skips) String(module string) string {
	if s.count == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "== skipped: %d %s did not run (docs/development.md#what-the-tests-need):\n", s.count, plural(s.count, "test"))
	for _, reason := range s.reasons {
		fmt.Fprintf(&b, "%s\n", reason)
		var pkgs []string
		byPkg := map[string][]string{}
		for _, k := range s.tests[reason] {
			pkg := k.pkg
			if pkg == module {
				pkg = "."
			} else if module != "" {
				pkg = strings.TrimPrefix(pkg, module+"/")
			}
			if _, ok := byPkg[pkg]; !ok {
				pkgs = append(pkgs, pkg)
			}
			byPkg[pkg] = append(byPkg[pkg], k.test)
		}
		for _, pkg := range pkgs {
			fmt.Fprintf(&b, "    %s: %s\n", pkg, strings.Join(byPkg[pkg], ", "))
		}
	}
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
