package main

import (
	"os"
	"testing"

	"github.com/ontoindex/ontoindex/internal/testkit/deploytest"
)

// TestMain lets the test binary act as the indexer command, so tests can
// run real `indexer` processes (and kill them) without a separate build,
// and as the writer process of deploytest.Deployment.Write.
func TestMain(m *testing.M) {
	deploytest.RunWriterIfAsked() // a writer process of the deployment tests
	if os.Getenv("INDEXER_TEST_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}
