// Command indexer keeps search indexes of objects in step with the Iceberg
// tables behind them. See README.md.
package main

import (
	"context"
	"os"

	"github.com/ontoindex/ontoindex/internal/cli"
)

func main() {
	// The first SIGINT or SIGTERM stops a command gracefully, a second
	// one at once.
	ctx, stop := cli.NotifyContext(context.Background(), "indexer", os.Stderr)
	code := Main(ctx, os.Args[1:], &Env{Stdout: os.Stdout, Stderr: os.Stderr})
	stop()
	os.Exit(code)
}
