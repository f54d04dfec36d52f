package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/daemon"
)

// TestReportChange: a build is reported once, though the status first
// shows it as the checkpoint stored it and then as the daemon's result
// (the same build, with the daemon's longer duration and later finish);
// the next build to the same snapshot, a rebuild into a new generation,
// is reported again.
func TestReportChange(t *testing.T) {
	since := time.Now().Add(-time.Minute)
	at := time.Now()
	status := func(gen int, ms int64, finished time.Time) daemon.TypeStatus {
		return daemon.TypeStatus{ObjectType: "Item", State: daemon.StateIdle, CheckpointSnapshotID: 7, Generation: gen, Objects: 10,
			LastBuild: &indexer.BuildSummary{Kind: indexer.KindFull, To: 7, Generation: gen, Upserts: 10, DurationMs: ms, FinishedAt: finished}}
	}
	stored := status(2, 185, at)                            // as the checkpoint has it
	daemons := status(2, 198, at.Add(13*time.Millisecond))  // as the daemon's result has it
	rebuilt := status(3, 170, at.Add(500*time.Millisecond)) // a rebuild to the same snapshot
	var w bytes.Buffer
	reportChange(&w, daemon.TypeStatus{}, stored, time.Second, since, false)
	reportChange(&w, stored, daemons, time.Second, since, false)
	if n := strings.Count(w.String(), " indexed "); n != 1 {
		t.Errorf("one build reported %d times:\n%s", n, w.String())
	}
	reportChange(&w, daemons, rebuilt, time.Second, since, false)
	if n := strings.Count(w.String(), " indexed "); n != 2 {
		t.Errorf("a rebuild into generation 3 not reported:\n%s", w.String())
	}
}
