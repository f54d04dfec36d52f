package main

import (
	"os"
	"testing"
)

// TestMain lets the test binary act as the indexer command, so tests can
// run real `indexer` processes (and kill them) without a separate build.
func TestMain(m *testing.M) {
	if os.Getenv("INDEXER_TEST_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}
