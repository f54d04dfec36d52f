package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/internal/testkit/daemontest"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

// asClient decodes an ops response as JavaScript and jq read it: numbers
// as doubles.
func asClient(tb testing.TB, r response) map[string]any {
	tb.Helper()
	if r.status != http.StatusOK && r.status != http.StatusAccepted {
		tb.Fatalf("%d %s", r.status, r.body)
	}
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		tb.Fatalf("decode %s: %v", r.body, err)
	}
	return m
}

// wantIDs checks that each key of m holds its snapshot id as a string,
// exact where a double would round it.
func wantIDs(tb testing.TB, what string, m map[string]any, ids map[string]int64) {
	tb.Helper()
	for key, id := range ids {
		if got, want := m[key], strconv.FormatInt(id, 10); got != want {
			tb.Errorf("%s: %s = %#v, want the string %q (in %v)", what, key, got, want, m)
		}
	}
}

// TestOps_snapshotIDs: every ops response that carries a snapshot id,
// the status of all types and of one, the rebuild's answer and the
// write-mode report, with a daemon and without, carries it as a string;
// generation stays a number.
func TestOps_snapshotIDs(t *testing.T) {
	e := mustOpsEnv(t, 2, 10, true)
	e.start(t)
	e.waitStatus(t, "People", "built", daemontest.UpToDate(e.people))
	first := e.people.T.CurrentSnapshot().SnapshotID
	if err := e.people.Overwrite(context.Background(), iceberg.EqualTo(iceberg.Reference("id"), int64(3)),
		[]icebergtest.Row{{"id": 3, "name": "renamed three", "city": "Oslo"}}); err != nil {
		t.Fatal(err)
	}
	e.waitStatus(t, "People", "updated", daemontest.UpToDate(e.people))
	snap := e.people.T.CurrentSnapshot().SnapshotID
	status := map[string]int64{"checkpointSnapshotId": snap, "tableSnapshotId": snap}
	lastBuild := map[string]int64{"from": first, "to": snap}

	one := asClient(t, e.do(t, http.MethodGet, "/api/indexer/v1/status/People", appToken, nil))
	wantIDs(t, "status of People", one, status)
	wantIDs(t, "status of People: lastBuild", one["lastBuild"].(map[string]any), lastBuild)
	if one["generation"] != float64(1) {
		t.Errorf("generation = %#v, want the number 1", one["generation"])
	}
	all := asClient(t, e.do(t, http.MethodGet, "/api/indexer/v1/status", appToken, nil))
	people := all["objectTypes"].([]any)[0].(map[string]any)
	wantIDs(t, "status", people, status)
	wantIDs(t, "status: lastBuild", people["lastBuild"].(map[string]any), lastBuild)

	checks := asClient(t, e.do(t, http.MethodGet, "/api/indexer/v1/checks/write-modes", appToken, nil))
	wantIDs(t, "write-mode report", checks["objectTypes"].([]any)[0].(map[string]any), map[string]int64{"snapshotId": snap})

	rebuilt := asClient(t, e.do(t, http.MethodPost, "/api/indexer/v1/objectTypes/People/rebuild", adminToken, nil))
	wantIDs(t, "rebuild", rebuilt, map[string]int64{"checkpointSnapshotId": snap})

	// Without a daemon, status comes from the engine's checkpoints.
	e2 := mustOpsEnv(t, 2, 10, false)
	if _, err := e2.ix.Build(context.Background(), "People", indexer.BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	snap2 := e2.people.T.CurrentSnapshot().SnapshotID
	st := asClient(t, e2.do(t, http.MethodGet, "/api/indexer/v1/status/People", appToken, nil))
	wantIDs(t, "status without a daemon", st, map[string]int64{"checkpointSnapshotId": snap2})
	wantIDs(t, "status without a daemon: lastBuild", st["lastBuild"].(map[string]any), map[string]int64{"from": 0, "to": snap2})
}
