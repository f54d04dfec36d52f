// Command ontolab is the engineers' tool of ontoindex: the reliability
// campaign (soak) and the benchmarks (bench build, search, subscribe). It
// shares the product's packages and runs the product, the `indexer`
// binary, as a child process where a benchmark or the campaign needs a
// real server. Operators install `indexer` alone. See README.md.
package main

import (
	"context"
	"os"

	"github.com/ontoindex/ontoindex/internal/cli"
)

func main() {
	// The first SIGINT or SIGTERM stops a command gracefully (a bench
	// stops its servers), a second one at once.
	ctx, stop := cli.NotifyContext(context.Background(), "ontolab", os.Stderr)
	code := Main(ctx, os.Args[1:], &Env{Stdout: os.Stdout, Stderr: os.Stderr})
	stop()
	os.Exit(code)
}
