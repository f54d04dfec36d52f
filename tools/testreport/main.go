// Command testreport reads `go test -json` on stdin and prints what a
// plain `go test` prints (a line per package, the output of failing tests,
// build errors), then the tests that skipped, grouped by the reason they
// gave. .ci/test pipes its go test step through it, so that a suite that
// skips outside CI (no PostgreSQL, versitygw or Chromium) is listed at the
// end of the run instead of hiding inside an `ok` line.
//
//	go test -json ./... | go run ./tools/testreport [--skipped FILE] [--module PATH]
//
// --skipped FILE writes the list of skipped tests there instead of after
// the output (.ci/test prints the file when it ends); --module PATH is
// trimmed from package names in that list. The exit status is go test's
// business (set -o pipefail): testreport fails only when it cannot write.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	skipped := flag.String("skipped", "", "write the skipped tests to this file (default: after the output)")
	module := flag.String("module", "", "module path trimmed from package names in the skipped list")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: go test -json ./... | testreport [--skipped FILE] [--module PATH]")
		os.Exit(2)
	}
	skips, err := report(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testreport: %v\n", err)
		os.Exit(1)
	}
	list := skips.String(*module)
	if *skipped == "" {
		fmt.Print(list)
		return
	}
	if err := os.WriteFile(*skipped, []byte(list), 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "testreport: %v\n", err)
		os.Exit(1)
	}
}
