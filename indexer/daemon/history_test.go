package daemon_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/cowguard"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/daemon"
	"github.com/ontoindex/ontoindex/internal/testkit/daemontest"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
	"github.com/ontoindex/ontoindex/internal/testkit/peopletest"
	"github.com/ontoindex/ontoindex/objects"
)

// TestDaemon_recentBuilds: the status lists the builds the daemon ran,
// oldest first: the first full build, an incremental one after a
// copy-on-write commit, the refusal of a merge-on-read snapshot (with the
// refusal's details in lastError), and the build after the compaction.
// The JSON carries the snapshot ids as strings and decodes back.
func TestDaemon_recentBuilds(t *testing.T) {
	ctx := context.Background()
	w := icebergtest.MustWarehouse(t)
	tbl := peopletest.MustPeople(t, w, "ns.mor", peopletest.MergeOnRead(), 2, 5)
	ix := indexertest.Open(t, daemonConfig(t, w, objects.TypeSpec{APIName: "Person", Table: "warehouse.ns.mor"}))
	d := mustRunDaemon(t, ix, daemon.Options{})
	st := daemontest.WaitStatus(t, d.Daemon, "Person", "the first build", daemontest.UpToDate(tbl))
	if len(st.RecentBuilds) != 1 {
		t.Fatalf("recentBuilds after the first build = %+v", st.RecentBuilds)
	}
	first := st.RecentBuilds[0]
	if first.Kind != indexer.KindFull || first.To != tbl.T.CurrentSnapshot().SnapshotID || first.Upserts != 10 || first.FilesRead != 2 ||
		first.Error != "" || first.FinishedAt.IsZero() || first.LagSeconds < 0 {
		t.Fatalf("first build = %+v", first)
	}

	other := peopletest.MustOtherWriter(t, w, "ns.mor")
	if err := other.Overwrite(ctx, iceberg.EqualTo(iceberg.Reference("id"), int64(4)), []icebergtest.Row{peopletest.Row(4, "renamed")}); err != nil {
		t.Fatal(err)
	}
	cow := other.T.CurrentSnapshot()
	committed := time.UnixMilli(cow.TimestampMs)
	st = daemontest.WaitStatus(t, d.Daemon, "Person", "the incremental build", daemontest.UpToDate(other))
	seen := time.Since(committed).Seconds()
	if len(st.RecentBuilds) != 2 {
		t.Fatalf("recentBuilds = %+v", st.RecentBuilds)
	}
	inc := st.RecentBuilds[1]
	if inc.Kind != indexer.KindIncremental || inc.To != cow.SnapshotID || inc.Upserts != 1 || inc.Deletes != 0 || inc.Error != "" {
		t.Fatalf("incremental build = %+v", inc)
	}
	// The lag ends with the build: between the commit and now.
	if inc.LagSeconds < 0 || inc.LagSeconds > seen+0.001 || inc.FinishedAt.Before(committed.Add(-time.Second)) {
		t.Fatalf("incremental build lag %v s, finished %v; committed %v, %v s ago", inc.LagSeconds, inc.FinishedAt, committed, seen)
	}

	if err := other.Delete(ctx, iceberg.EqualTo(iceberg.Reference("id"), int64(3))); err != nil {
		t.Fatal(err)
	}
	mor := other.T.CurrentSnapshot().SnapshotID
	st = daemontest.WaitStatus(t, d.Daemon, "Person", "blocked", func(st daemon.TypeStatus) bool { return st.State == daemon.StateBlocked })
	if len(st.RecentBuilds) != 3 {
		t.Fatalf("recentBuilds = %+v", st.RecentBuilds)
	}
	if ref := st.RecentBuilds[2]; ref.Error != indexer.CodeMergeOnRead || ref.To != mor || ref.Upserts != 0 || ref.LagSeconds < 0 {
		t.Fatalf("refused build = %+v", ref)
	}
	e := st.LastError
	if e == nil || e.MergeOnRead == nil {
		t.Fatalf("lastError = %+v", e)
	}
	want := indexer.MergeOnReadInfo{Table: "warehouse.ns.mor", SnapshotID: mor, Operation: "delete",
		LiveDeleteFiles: cowguard.DeleteCounts{Position: 1}, WriteModes: e.MergeOnRead.WriteModes, Fix: cowguard.Fix}
	if *e.MergeOnRead != want || e.MergeOnRead.WriteModes.Delete != cowguard.MergeOnRead {
		t.Errorf("lastError.mergeOnRead = %+v, want %+v", *e.MergeOnRead, want)
	}
	if !strings.HasSuffix(e.Message, "Fix: "+cowguard.Fix) {
		t.Errorf("the message does not end with the fix: %s", e.Message)
	}

	raw, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var doubles struct {
		RecentBuilds []map[string]any `json:"recentBuilds"`
		LastError    struct {
			MergeOnRead map[string]any `json:"mergeOnRead"`
		} `json:"lastError"`
	}
	if err := json.Unmarshal(raw, &doubles); err != nil || len(doubles.RecentBuilds) != 3 {
		t.Fatalf("status %s: %v", raw, err)
	}
	if got := doubles.RecentBuilds[2]["to"]; got != jsonString(mor) {
		t.Errorf("recentBuilds[2].to = %#v, want the string of %d", got, mor)
	}
	if got := doubles.LastError.MergeOnRead["snapshotId"]; got != jsonString(mor) {
		t.Errorf("lastError.mergeOnRead.snapshotId = %#v, want the string of %d", got, mor)
	}
	var back daemon.TypeStatus
	if err := json.Unmarshal(raw, &back); err != nil || len(back.RecentBuilds) != 3 || back.RecentBuilds[2] != st.RecentBuilds[2] {
		t.Fatalf("decoded %+v, %v; want %+v", back.RecentBuilds, err, st.RecentBuilds)
	}

	if err := other.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	st = daemontest.WaitStatus(t, d.Daemon, "Person", "recovery", daemontest.UpToDate(other))
	if n := len(st.RecentBuilds); n != 4 || st.RecentBuilds[3].Error != "" || st.RecentBuilds[3].Deletes != 1 {
		t.Fatalf("recentBuilds after the compaction = %+v", st.RecentBuilds)
	}
}

func jsonString(id int64) string {
	b, _ := json.Marshal(id)
	return string(b)
}
