package daemon_test

import (
	"encoding/json"
	"regexp"
	"strconv"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/daemon"
	"github.com/ontoindex/ontoindex/internal/testkit/daemontest"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
	"github.com/ontoindex/ontoindex/internal/testkit/peopletest"
	"github.com/ontoindex/ontoindex/objects"
)

// TestTypeStatus_JSON: the status of a real daemon carries its snapshot
// ids (checkpoint, table, the last build's from and to) as JSON strings,
// which clients that read numbers as doubles keep exact; the bare numbers
// of servers before decode to the same status.
func TestTypeStatus_JSON(t *testing.T) {
	w := icebergtest.MustWarehouse(t)
	tbl := peopletest.MustPeople(t, w, "ns.people", nil, 2, 3)
	ix := indexertest.Open(t, daemonConfig(t, w, objects.TypeSpec{APIName: "Person", Table: "warehouse.ns.people"}))
	d := mustRunDaemon(t, ix, daemon.Options{})
	st := daemontest.WaitStatus(t, d.Daemon, "Person", "the first build", daemontest.UpToDate(tbl))
	snap := strconv.FormatInt(tbl.T.CurrentSnapshot().SnapshotID, 10)

	raw, err := json.Marshal(d.Report())
	if err != nil {
		t.Fatal(err)
	}
	var doubles struct {
		ObjectTypes []struct {
			Checkpoint any            `json:"checkpointSnapshotId"`
			Table      any            `json:"tableSnapshotId"`
			Generation any            `json:"generation"`
			LastBuild  map[string]any `json:"lastBuild"`
		} `json:"objectTypes"`
	}
	if err := json.Unmarshal(raw, &doubles); err != nil || len(doubles.ObjectTypes) != 1 {
		t.Fatalf("report %s: %v", raw, err)
	}
	got := doubles.ObjectTypes[0]
	if got.Checkpoint != snap || got.Table != snap || got.LastBuild["to"] != snap || got.LastBuild["from"] != "0" {
		t.Errorf("snapshot ids are not the strings %q:\n%s", snap, raw)
	}
	if got.Generation != float64(1) {
		t.Errorf("generation = %#v, want the number 1 (it is small: a number)", got.Generation)
	}

	var back daemon.StatusReport
	if err := json.Unmarshal(raw, &back); err != nil || len(back.ObjectTypes) != 1 {
		t.Fatalf("decode %s: %v", raw, err)
	}
	old := regexp.MustCompile(`"(checkpointSnapshotId|tableSnapshotId|from|to)":"(-?[0-9]+)"`).ReplaceAll(raw, []byte(`"$1":$2`))
	var fromOld daemon.StatusReport
	if err := json.Unmarshal(old, &fromOld); err != nil || len(fromOld.ObjectTypes) != 1 {
		t.Fatalf("decode bare ids %s: %v", old, err)
	}
	for what, b := range map[string]daemon.TypeStatus{"string ids": back.ObjectTypes[0], "bare ids": fromOld.ObjectTypes[0]} {
		if b.CheckpointSnapshotID != st.CheckpointSnapshotID || b.TableSnapshotID != st.TableSnapshotID || b.LastBuild == nil ||
			b.LastBuild.From != st.LastBuild.From || b.LastBuild.To != st.LastBuild.To || b.Objects != st.Objects || b.State != st.State {
			t.Errorf("%s decode to %+v, want %+v", what, b, st)
		}
	}
}
