package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/internal/soak"
	"github.com/ontoindex/ontoindex/internal/tmpfs"
)

// testSoak runs a small `ontolab soak` as a process, as a user does (the
// test binary is ontolab, the servers it starts and kills are indexer): one kill of each kind, every table fault, every fault of the
// data dir (the disk-full ones only as root on Linux, else reported
// skipped) and a few seconds of load. It checks that the campaign runs end
// to end and reports; .ci/test runs the short campaign itself.
func testSoak(t *testing.T, indexer string) {
	if testing.Short() {
		t.Skip("runs and kills servers for half a minute; run without -short")
	}
	out := filepath.Join(t.TempDir(), "soak.json")
	cmd := ontolabProcess(t, "soak", "--indexer", indexer, "--kills", "7", "--load", "3s", "--clients", "4", "--rows", "2000", "--groups", "10", "--json", out)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("ontolab soak: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep soak.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	k := rep.Kills
	if !rep.OK || k.Killed != 7 || k.Survived != 7 || k.DuringStart != 1 || k.Rebuilds != 1 || k.Reloads != 1 || len(rep.Faults) != 9 {
		t.Errorf("report: ok %v, kills %+v, %d faults", rep.OK, k, len(rep.Faults))
	}
	if l := rep.Load; l == nil || l.Requests == 0 || l.Errors != 0 || l.Lag.Commits == 0 || len(l.ByOp) < 5 {
		t.Errorf("load figures: %+v", l)
	}
	if rep.Store.Checks < 2*7 || rep.Served.Objects < 2000 {
		t.Errorf("checks: store %+v, served %+v", rep.Store, rep.Served)
	}
	dataDir := "data-dir faults: 7 injected, 7 survived"
	if err := tmpfs.Supported(); err != nil {
		dataDir = "data-dir faults: 5 injected, 5 survived, 2 skipped"
	}
	if len(rep.DataDir) != 7 {
		t.Errorf("%d data-dir faults, want 7: %+v", len(rep.DataDir), rep.DataDir)
	}
	for _, want := range []string{"kills: 7 kill -9", "table faults: 9 injected, 9 survived", dataDir, "verdict: ok"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("figures do not say %q:\n%s", want, stdout.String())
		}
	}
}

func TestSoak_usage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		// Any executable as the indexer: the options are checked before
		// anything runs.
		{"no clients", []string{"soak", "--clients", "0", "--indexer", os.Args[0]}, "clients 0"},
		{"no indexer", []string{"soak", "--indexer", "/nonexistent/indexer"}, "--indexer: stat /nonexistent/indexer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := run(tt.args...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitUsage, tt.want)
			}
		})
	}
}
