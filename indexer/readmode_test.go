package indexer_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/daemon"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
	"github.com/ontoindex/ontoindex/objects"
)

func appendOnlySpec() *objects.TypeSpec {
	return &objects.TypeSpec{APIName: "Customer", Table: "warehouse.ns.customers", ReadMode: objects.ReadModeAppendOnly}
}

// reopen closes the fixture's indexer and opens one with spec on the same
// data dir: a config change between builds.
func (f *fixture) reopen(tb testing.TB, spec objects.TypeSpec) {
	tb.Helper()
	if err := f.ix.Close(); err != nil {
		tb.Fatal(err)
	}
	f.cfg.ObjectTypes = []objects.TypeSpec{spec}
	ix, err := indexer.Open(f.ctx, f.cfg, indexer.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	f.ix = ix
	tb.Cleanup(func() { _ = ix.Close() })
}

func wantMode(tb testing.TB, r *indexer.BuildResult, kind indexer.Kind, mode objects.ReadMode, reason string) {
	tb.Helper()
	if r.Kind != kind || r.ReadMode != mode || r.Reason != reason {
		tb.Fatalf("build = kind %s, readMode %s, reason %q; want %s, %s, %q", r.Kind, r.ReadMode, r.Reason, kind, mode, reason)
	}
}

func summaryInt(t *icebergtest.Table, key string) int64 {
	var n int64
	fmt.Sscan(t.T.CurrentSnapshot().Summary.Properties[key], &n)
	return n
}

func TestIndexer_Build_appendOnly(t *testing.T) {
	t.Run("appends read only the appended files", func(t *testing.T) {
		f := mustFixture(t, nil, 3, appendOnlySpec())
		full := f.mustBuild(t, indexer.BuildOptions{})
		wantMode(t, full, indexer.KindFull, objects.ReadModeAppendOnly, "first build")
		wantResult(t, full, indexer.KindFull, 3, 30, 0)
		indexertest.MatchTable(t, f.ix, f.name, f.tb)
		var size int64 // of the appended files
		for i, n := range []int{5, 5, 7} {
			if err := f.tb.Append(f.ctx, customerRows(100+i*10, n)); err != nil {
				t.Fatal(err)
			}
			size += summaryInt(f.tb, "added-files-size")
		}
		r := f.mustBuild(t, indexer.BuildOptions{})
		wantMode(t, r, indexer.KindIncremental, objects.ReadModeAppendOnly, "")
		wantResult(t, r, indexer.KindIncremental, 3, 17, 0)
		if r.RowsRead != 17 || r.BytesRead <= 0 || r.BytesRead > size {
			t.Errorf("rowsRead %d bytesRead %d; want 17 rows, at most the %d bytes of the appended files", r.RowsRead, r.BytesRead, size)
		}
		t.Logf("appendOnly over 3 appends: read %d files, %d bytes, %d rows (full build: %d files, %d bytes)", r.FilesRead, r.BytesRead, r.RowsRead, full.FilesRead, full.BytesRead)
		indexertest.MatchTable(t, f.ix, f.name, f.tb)
	})
	t.Run("a compaction reads nothing", func(t *testing.T) {
		f := mustFixture(t, nil, 4, appendOnlySpec())
		f.mustBuild(t, indexer.BuildOptions{})
		if err := f.tb.Append(f.ctx, customerRows(100, 5)); err != nil {
			t.Fatal(err)
		}
		f.mustBuild(t, indexer.BuildOptions{})
		if err := f.tb.Compact(f.ctx); err != nil {
			t.Fatal(err)
		}
		if op := f.tb.Operation(f.tb.Snapshot()); op != table.OpReplace {
			t.Fatalf("compaction is a %s", op)
		}
		r := f.mustBuild(t, indexer.BuildOptions{})
		wantMode(t, r, indexer.KindIncremental, objects.ReadModeAppendOnly, "")
		wantResult(t, r, indexer.KindIncremental, 0, 0, 0)
		if r.BytesRead != 0 || r.RowsRead != 0 {
			t.Errorf("bytesRead %d rowsRead %d, want 0", r.BytesRead, r.RowsRead)
		}
		indexertest.MatchTable(t, f.ix, f.name, f.tb)
		// Appends after the compaction, and a compaction and an append in
		// one range.
		if err := f.tb.Append(f.ctx, customerRows(200, 3)); err != nil {
			t.Fatal(err)
		}
		wantResult(t, f.mustBuild(t, indexer.BuildOptions{}), indexer.KindIncremental, 1, 3, 0)
		if err := f.tb.Compact(f.ctx); err != nil {
			t.Fatal(err)
		}
		if err := f.tb.Append(f.ctx, customerRows(300, 4)); err != nil {
			t.Fatal(err)
		}
		wantResult(t, f.mustBuild(t, indexer.BuildOptions{}), indexer.KindIncremental, 1, 4, 0)
		indexertest.MatchTable(t, f.ix, f.name, f.tb)
	})
	t.Run("a compaction of rows appended since the checkpoint builds in full", func(t *testing.T) {
		f := mustFixture(t, nil, 2, appendOnlySpec())
		f.mustBuild(t, indexer.BuildOptions{})
		if err := f.tb.Append(f.ctx, customerRows(100, 5)); err != nil {
			t.Fatal(err)
		}
		if err := f.tb.Compact(f.ctx); err != nil {
			t.Fatal(err)
		}
		r := f.mustBuild(t, indexer.BuildOptions{})
		want := fmt.Sprintf("appendOnly saw replace snapshot %d rewrite data file ", f.tb.Snapshot())
		if r.Kind != indexer.KindFull || !strings.HasPrefix(r.Reason, want) {
			t.Fatalf("build = %s, reason %q; want full, %q...", r.Kind, r.Reason, want)
		}
		wantResult(t, r, indexer.KindFull, addedFiles(f.tb), 25, 0)
		indexertest.MatchTable(t, f.ix, f.name, f.tb)
	})
	for _, tc := range []struct {
		name  string
		op    table.Operation
		write func(*icebergtest.Table) error
	}{
		{"an overwrite builds in full", table.OpOverwrite, func(tb *icebergtest.Table) error {
			return tb.Overwrite(t.Context(), id(13), []icebergtest.Row{{"id": 13, "name": "renamed", "city": "Oslo", "score": 1.5}})
		}},
		{"a delete builds in full", table.OpDelete, func(tb *icebergtest.Table) error {
			return tb.Delete(t.Context(), iceberg.LessThan(iceberg.Reference("id"), int64(10)))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := mustFixture(t, nil, 3, appendOnlySpec())
			f.mustBuild(t, indexer.BuildOptions{})
			if err := tc.write(f.tb); err != nil {
				t.Fatal(err)
			}
			bad := f.tb.Snapshot()
			if op := f.tb.Operation(bad); op != tc.op {
				t.Fatalf("operation = %s, want %s", op, tc.op)
			}
			if err := f.tb.Append(f.ctx, customerRows(100, 5)); err != nil {
				t.Fatal(err)
			}
			r := f.mustBuild(t, indexer.BuildOptions{})
			wantMode(t, r, indexer.KindFull, objects.ReadModeAppendOnly, fmt.Sprintf("appendOnly saw %s snapshot %d", tc.op, bad))
			indexertest.MatchTable(t, f.ix, f.name, f.tb)
			cp, err := f.ix.Checkpoint(f.name)
			if err != nil || cp.LastBuild.Reason != r.Reason || cp.ReadMode != objects.ReadModeAppendOnly {
				t.Errorf("checkpoint: %v, lastBuild %+v, readMode %s", err, cp.LastBuild, cp.ReadMode)
			}
		})
	}
	t.Run("requireIncremental fails on an overwrite", func(t *testing.T) {
		spec := appendOnlySpec()
		spec.RequireIncremental = true
		f := mustFixture(t, nil, 3, spec)
		f.mustBuild(t, indexer.BuildOptions{})
		before, _ := f.ix.Checkpoint(f.name)
		if err := f.tb.Overwrite(f.ctx, id(13), []icebergtest.Row{{"id": 13, "name": "renamed", "city": "Oslo", "score": 1.5}}); err != nil {
			t.Fatal(err)
		}
		bad := f.tb.Snapshot()
		r, err := f.ix.Build(f.ctx, f.name, indexer.BuildOptions{})
		var ao *changelog.AppendOnlyError
		if !errors.Is(err, indexer.ErrIncrementalRequired) || !errors.As(err, &ao) || ao.SnapshotID != bad || ao.Operation != table.OpOverwrite {
			t.Fatalf("err = %v (%+v), want ErrIncrementalRequired naming overwrite snapshot %d", err, ao, bad)
		}
		if msg := err.Error(); !strings.Contains(msg, fmt.Sprint(bad)) || !strings.Contains(msg, "overwrite") {
			t.Errorf("message %q names neither snapshot nor operation", msg)
		}
		if r.Error == nil || r.Error.Code != indexer.CodeIncrementalNeeded {
			t.Errorf("result error = %+v", r.Error)
		}
		after, _ := f.ix.Checkpoint(f.name)
		if after.SnapshotID != before.SnapshotID {
			t.Errorf("checkpoint moved to %d", after.SnapshotID)
		}
		wantMode(t, f.mustBuild(t, indexer.BuildOptions{Full: true}), indexer.KindFull, objects.ReadModeAppendOnly, "--full")
		indexertest.MatchTable(t, f.ix, f.name, f.tb)
	})
	t.Run("requireIncremental fails on a compaction of new rows", func(t *testing.T) {
		spec := appendOnlySpec()
		spec.RequireIncremental = true
		f := mustFixture(t, nil, 2, spec)
		f.mustBuild(t, indexer.BuildOptions{})
		if err := f.tb.Append(f.ctx, customerRows(100, 5)); err != nil {
			t.Fatal(err)
		}
		if err := f.tb.Compact(f.ctx); err != nil {
			t.Fatal(err)
		}
		_, err := f.ix.Build(f.ctx, f.name, indexer.BuildOptions{})
		var ao *changelog.AppendOnlyError
		if !errors.Is(err, indexer.ErrIncrementalRequired) || !errors.As(err, &ao) || ao.SnapshotID != f.tb.Snapshot() || ao.Operation != table.OpReplace {
			t.Fatalf("err = %v, want ErrIncrementalRequired naming replace snapshot %d", err, f.tb.Snapshot())
		}
	})
	t.Run("a rollback builds in full", func(t *testing.T) {
		f := mustFixture(t, nil, 2, appendOnlySpec())
		first := f.tb.Snapshot()
		if err := f.tb.Append(f.ctx, customerRows(100, 5)); err != nil {
			t.Fatal(err)
		}
		f.mustBuild(t, indexer.BuildOptions{})
		if err := f.tb.Rollback(f.ctx, first); err != nil {
			t.Fatal(err)
		}
		r := f.mustBuild(t, indexer.BuildOptions{})
		if r.Kind != indexer.KindFull || !strings.Contains(r.Reason, "is not an ancestor") {
			t.Fatalf("build = %s, reason %q", r.Kind, r.Reason)
		}
		indexertest.MatchTable(t, f.ix, f.name, f.tb)
	})
	t.Run("from a table without snapshots", func(t *testing.T) {
		f := mustFixture(t, nil, 0, appendOnlySpec())
		wantResult(t, f.mustBuild(t, indexer.BuildOptions{}), indexer.KindFull, 0, 0, 0)
		for i := range 2 {
			if err := f.tb.Append(f.ctx, customerRows(i*10, 10)); err != nil {
				t.Fatal(err)
			}
		}
		r := f.mustBuild(t, indexer.BuildOptions{})
		wantMode(t, r, indexer.KindIncremental, objects.ReadModeAppendOnly, "")
		wantResult(t, r, indexer.KindIncremental, 2, 20, 0)
		indexertest.MatchTable(t, f.ix, f.name, f.tb)
	})
	t.Run("an appended duplicate key fails as in a full build", func(t *testing.T) {
		f := mustFixture(t, nil, 2, appendOnlySpec())
		f.mustBuild(t, indexer.BuildOptions{})
		if err := f.tb.Append(f.ctx, customerRows(5, 1)); err != nil {
			t.Fatal(err)
		}
		_, err := f.ix.Build(f.ctx, f.name, indexer.BuildOptions{})
		var dup *changelog.DuplicateKeyError
		if !errors.As(err, &dup) || dup.Keys[0].Key != "5" {
			t.Fatalf("err = %v, want duplicate key 5", err)
		}
		_, err = f.ix.Build(f.ctx, f.name, indexer.BuildOptions{Full: true})
		if !errors.As(err, &dup) {
			t.Fatalf("full build: err = %v, want duplicate key 5", err)
		}
	})
}

// TestIndexer_Build_readModeSwitch: changelog -> appendOnly continues
// incrementally from the changelog baseline; appendOnly -> changelog
// builds in full, since the appendOnly baseline keeps no row hashes.
func TestIndexer_Build_readModeSwitch(t *testing.T) {
	spec := objects.TypeSpec{APIName: "Customer", Table: "warehouse.ns.customers"}
	f := mustFixture(t, nil, 3, &spec)
	wantMode(t, f.mustBuild(t, indexer.BuildOptions{}), indexer.KindFull, objects.ReadModeChangelog, "first build")

	ao := spec
	ao.ReadMode = objects.ReadModeAppendOnly
	f.reopen(t, ao)
	if err := f.tb.Append(f.ctx, customerRows(100, 5)); err != nil {
		t.Fatal(err)
	}
	r := f.mustBuild(t, indexer.BuildOptions{})
	wantMode(t, r, indexer.KindIncremental, objects.ReadModeAppendOnly, "")
	wantResult(t, r, indexer.KindIncremental, 1, 5, 0)
	if err := f.tb.Compact(f.ctx); err != nil {
		t.Fatal(err)
	}
	wantResult(t, f.mustBuild(t, indexer.BuildOptions{}), indexer.KindIncremental, 0, 0, 0)
	indexertest.MatchTable(t, f.ix, f.name, f.tb)

	// Back to changelog, with requireIncremental: refused.
	back := spec
	back.RequireIncremental = true
	f.reopen(t, back)
	if _, err := f.ix.Build(f.ctx, f.name, indexer.BuildOptions{}); !errors.Is(err, indexer.ErrIncrementalRequired) || !strings.Contains(err.Error(), "readMode changed from appendOnly to changelog") {
		t.Fatalf("err = %v, want ErrIncrementalRequired for the readMode change", err)
	}
	f.reopen(t, spec)
	r = f.mustBuild(t, indexer.BuildOptions{})
	wantMode(t, r, indexer.KindFull, objects.ReadModeChangelog, "readMode changed from appendOnly to changelog (an appendOnly baseline keeps no row hashes)")
	indexertest.MatchTable(t, f.ix, f.name, f.tb)
	// The changelog baseline is whole again: a COW edit and a delete are
	// incremental and right.
	if err := f.tb.Overwrite(f.ctx, id(13), []icebergtest.Row{{"id": 13, "name": "renamed", "city": "Oslo", "score": 1.5}}); err != nil {
		t.Fatal(err)
	}
	wantMode(t, f.mustBuild(t, indexer.BuildOptions{}), indexer.KindIncremental, objects.ReadModeChangelog, "")
	if err := f.tb.Delete(f.ctx, iceberg.GreaterThanEqual(iceberg.Reference("id"), int64(100))); err != nil {
		t.Fatal(err)
	}
	r = f.mustBuild(t, indexer.BuildOptions{})
	wantResult(t, r, indexer.KindIncremental, r.FilesRead, 0, 5)
	indexertest.MatchTable(t, f.ix, f.name, f.tb)
}

// TestIndexer_Build_readModeJSON: build --json (the result), the
// checkpoint's lastBuild and the status say which mode ran and why a build
// was full.
func TestIndexer_Build_readModeJSON(t *testing.T) {
	f := mustFixture(t, nil, 2, appendOnlySpec())
	f.mustBuild(t, indexer.BuildOptions{})
	if err := f.tb.Delete(f.ctx, iceberg.LessThan(iceberg.Reference("id"), int64(10))); err != nil {
		t.Fatal(err)
	}
	r := f.mustBuild(t, indexer.BuildOptions{})
	want := fmt.Sprintf(`"kind":"full","readMode":"appendOnly","reason":"appendOnly saw delete snapshot %d"`, f.tb.Snapshot())
	js, _ := json.Marshal(r)
	if !strings.Contains(string(js), want) {
		t.Errorf("build JSON %s\nwant %s", js, want)
	}
	es, err := f.ix.Status(f.name)
	if err != nil {
		t.Fatal(err)
	}
	js, _ = json.Marshal(es.Checkpoint)
	if !strings.Contains(string(js), `"readMode":"appendOnly"`) || !strings.Contains(string(js), want) {
		t.Errorf("checkpoint JSON %s\nwant %s", js, want)
	}
	js, _ = json.Marshal(daemon.EngineStatus(es))
	wantStatus := fmt.Sprintf(`"lastBuild":{"kind":"full","readMode":"appendOnly","reason":"appendOnly saw delete snapshot %d"`, f.tb.Snapshot())
	if !strings.Contains(string(js), wantStatus) {
		t.Errorf("status JSON %s\nwant %s", js, wantStatus)
	}
	var back daemon.TypeStatus
	if err := json.Unmarshal(js, &back); err != nil || back.LastBuild.Reason != r.Reason || back.LastBuild.ReadMode != objects.ReadModeAppendOnly {
		t.Errorf("status round trip: %v %+v", err, back.LastBuild)
	}
}

// TestIndexer_Build_resumeReadMode: a full build interrupted in appendOnly
// mode is not resumed in changelog mode (its chunks kept no file keys): the
// build starts afresh, and its baseline then serves a changelog delete.
func TestIndexer_Build_resumeReadMode(t *testing.T) {
	f := mustFixture(t, nil, 10, appendOnlySpec())
	f.cfg.Build.ChunkRows = 5
	f.mustBuild(t, indexer.BuildOptions{})
	if err := f.ix.Close(); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(f.ctx)
	defer cancel()
	files := 0
	ix, err := indexer.Open(f.ctx, f.cfg, indexer.Options{Progress: func(indexer.Progress) {
		if files++; files == 4 {
			cancel()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Build(cctx, f.name, indexer.BuildOptions{Full: true}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled build: %v", err)
	}
	f.ix = ix
	f.reopen(t, objects.TypeSpec{APIName: "Customer", Table: "warehouse.ns.customers"})
	r := f.mustBuild(t, indexer.BuildOptions{})
	wantMode(t, r, indexer.KindFull, objects.ReadModeChangelog, "readMode changed from appendOnly to changelog (an appendOnly baseline keeps no row hashes)")
	if r.RowsRead != 100 {
		t.Errorf("rowsRead = %d, want 100 (a fresh build, not a resumed one)", r.RowsRead)
	}
	if err := f.tb.Delete(f.ctx, iceberg.LessThan(iceberg.Reference("id"), int64(25))); err != nil {
		t.Fatal(err)
	}
	wantResult(t, f.mustBuild(t, indexer.BuildOptions{}), indexer.KindIncremental, 1, 0, 25)
	indexertest.MatchTable(t, f.ix, f.name, f.tb)
}
