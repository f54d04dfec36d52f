package subscribebench

import (
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/internal/benchdata"
)

func TestSpreadStep(t *testing.T) {
	for _, keys := range []int64{1, 2, 500, 7919 * 2, 50_000, 500_000} {
		step := spreadStep(keys)
		n := min(keys, 20_000)
		seen := make(map[int64]bool, n)
		for seq := range n {
			k := seq * step % keys
			if seen[k] || k < 0 || k >= keys {
				t.Fatalf("keys %d, step %d: key %d of seq %d repeats or is out of range", keys, step, k, seq)
			}
			seen[k] = true
		}
	}
}

// TestWriter_run commits edits to a real customers table and reads them
// back: one row per key, carrying the commit's name, in the commit's
// snapshot.
func TestWriter_run(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	const seed, rows = 3, 1000
	if _, err := benchdata.WriteCustomers(ctx, dir, seed, rows, 4); err != nil {
		t.Fatal(err)
	}
	w, err := openWriter(ctx, dir, seed, rows)
	if err != nil {
		t.Fatal(err)
	}
	commits, err := w.run(ctx, time.Millisecond, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(commits) != 3 {
		t.Fatalf("%d commits, want 3", len(commits))
	}
	snapshots := map[int64]bool{}
	for i, c := range commits {
		if c.Seq != i || c.Key < 0 || c.Key >= editedKeys(rows) || !w.committed[c.Key] || snapshots[c.Snapshot] || c.Returned.IsZero() {
			t.Errorf("commit %d: %+v", i, c)
		}
		snapshots[c.Snapshot] = true
		if got := mustNames(t, w.tbl, c.Key); len(got) != 1 || got[0] != c.Name {
			t.Errorf("customer %d has names %q, want [%q]", c.Key, got, c.Name)
		}
	}
	if commits[0].Key == commits[1].Key {
		t.Errorf("two commits of key %d", commits[0].Key)
	}
	if last := w.tbl.CurrentSnapshot().SnapshotID; last != commits[2].Snapshot {
		t.Errorf("table at snapshot %d, last commit made %d", last, commits[2].Snapshot)
	}

	stop := make(chan struct{})
	close(stop)
	more, err := w.run(ctx, time.Hour, 0, stop)
	if err != nil || len(more) != 1 {
		t.Errorf("run until a closed stop: %d commits, %v; want the one before the first wait", len(more), err)
	}
}

// mustNames reads the names of the rows with id key.
func mustNames(t *testing.T, tbl *table.Table, key int64) []string {
	t.Helper()
	_, it, err := tbl.Scan(table.WithRowFilter(iceberg.EqualTo(iceberg.Reference("id"), key)), table.WithSelectedFields("id", "name")).ToArrowRecords(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for rec, err := range it {
		if err != nil {
			t.Fatal(err)
		}
		ids := rec.Column(0).(*array.Int64)
		col := rec.Column(1).(*array.String)
		for i := range int(rec.NumRows()) {
			if ids.Value(i) == key {
				names = append(names, col.Value(i))
			}
		}
		rec.Release()
	}
	return names
}
