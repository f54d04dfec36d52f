// Command opensearch runs a one-node OpenSearch cluster of the test kit
// (internal/testkit/opensearchtest, after .ci/install-opensearch) for
// run.sh's E2E_OPENSEARCH mode: it prints the node's URL on a line of its
// own once the cluster is green, and runs until SIGTERM or SIGINT, which
// stop the node and remove its directory.
//
//	go run ./api/testdata/e2e/opensearch
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/ontoindex/ontoindex/internal/testkit/opensearchtest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	c, err := opensearchtest.Start(ctx, opensearchtest.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "opensearch:", err)
		os.Exit(1)
	}
	fmt.Println(c.URL())
	<-ctx.Done()
	if err := c.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "opensearch:", err)
		os.Exit(1)
	}
}
