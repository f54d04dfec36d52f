package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/ontoindex/ontoindex/internal/testkit/commandtest"
)

// TestMain lets the test binary act as the ontolab command, so tests run
// real `ontolab` processes (and the `ontolab bench floor` that bench
// search starts) without a separate build.
func TestMain(m *testing.M) {
	if os.Getenv("ONTOLAB_TEST_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// run runs the command line in-process.
func run(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Main(context.Background(), args, &Env{Stdout: &out, Stderr: &errb})
	return code, out.String(), errb.String()
}

// ontolabProcess starts the test binary as `ontolab args...`.
func ontolabProcess(tb testing.TB, args ...string) *exec.Cmd {
	tb.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "ONTOLAB_TEST_MAIN=1")
	return cmd
}

// TestOntolab_processes runs the commands that start `indexer serve`
// children as processes, as a user does, with an indexer binary built
// from this source once for all of them (--indexer).
func TestOntolab_processes(t *testing.T) {
	indexer := commandtest.MustBuild(t, "indexer")
	t.Run("soak", func(t *testing.T) { testSoak(t, indexer) })
	t.Run("bench search with PostgreSQL", func(t *testing.T) { testBenchSearchPostgres(t, indexer) })
	t.Run("bench search without PostgreSQL", func(t *testing.T) { testBenchSearchWithoutPostgres(t, indexer) })
	t.Run("bench subscribe", func(t *testing.T) { testBenchSubscribe(t, indexer) })
	t.Run("bench interface", func(t *testing.T) { testBenchInterface(t, indexer) })
}
