package changelog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
)

func TestReplay_netStep(t *testing.T) {
	// TestChangelogIterator.testRemoveNetCarryovers, one row value at a
	// time: events ordered by ordinal, DELETE before INSERT; the first
	// change of a run survives as many times as its kind outnumbers the
	// other.
	type event struct {
		del     bool
		ordinal int32
	}
	d := func(o int32) event { return event{true, o} }
	i := func(o int32) event { return event{false, o} }
	tests := []struct {
		name   string
		events []event
		want   []event // surviving changes
	}{
		{"single delete", []event{d(0)}, []event{d(0)}},
		{"pair in one snapshot", []event{d(0), i(0)}, nil},
		{"spark sequence", []event{d(0), i(0), d(1), d(1), i(1), i(1), i(2), d(3), i(4), i(4)}, []event{i(4), i(4)}},
		{"insert then delete across snapshots", []event{i(2), d(3)}, nil},
		{"first of a run survives", []event{i(0), i(1), d(2)}, []event{i(0)}},
		{"reset after cancelling", []event{i(0), d(1), d(2)}, []event{d(2)}},
		{"delete and reinsert", []event{i(0), d(1), i(2)}, []event{i(2)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var (
				e         netEntry
				ok        bool
				cancelled int
			)
			for _, ev := range tt.events {
				var c bool
				e, ok, c = netStep(e, ok, netEntry{deleted: ev.del, file: ev.ordinal, count: 1})
				if c {
					cancelled++
				}
			}
			var got []event
			if ok {
				for range e.count {
					got = append(got, event{e.deleted, e.file})
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("survivors = %v, want %v", got, tt.want)
			}
			if n := len(tt.events) - len(tt.want); cancelled*2 != n {
				t.Errorf("cancelled %d pairs, want %d", cancelled, n/2)
			}
		})
	}
}

func TestReplay_hasher(t *testing.T) {
	// Equal rows hash equal, null equals null; everything else differs,
	// including values that only differ in where one column ends.
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "a", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "ok", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "ts", Type: arrow.FixedWidthTypes.Timestamp_us, Nullable: true},
		{Name: "dec", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
		{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
		{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
	}, nil)
	rows := []string{
		`{"id": 1, "a": "ab", "b": "c", "ok": true, "ts": "2024-01-01T00:00:00Z", "dec": "1.50", "tags": ["x"], "bin": "AAE="}`,
		`{"id": 1, "a": "ab", "b": "c", "ok": true, "ts": "2024-01-01T00:00:00Z", "dec": "1.50", "tags": ["x"], "bin": "AAE="}`,
		`{"id": 1, "a": "a", "b": "bc", "ok": true, "ts": "2024-01-01T00:00:00Z", "dec": "1.50", "tags": ["x"], "bin": "AAE="}`,
		`{"id": 1, "a": "ab", "b": null, "ok": true, "ts": "2024-01-01T00:00:00Z", "dec": "1.50", "tags": ["x"], "bin": "AAE="}`,
		`{"id": 1, "a": "ab", "b": "", "ok": true, "ts": "2024-01-01T00:00:00Z", "dec": "1.50", "tags": ["x"], "bin": "AAE="}`,
		`{"id": null, "a": "ab", "b": "c", "ok": true, "ts": "2024-01-01T00:00:00Z", "dec": "1.50", "tags": ["x"], "bin": "AAE="}`,
		`{"id": 0, "a": "ab", "b": "c", "ok": true, "ts": "2024-01-01T00:00:00Z", "dec": "1.50", "tags": ["x"], "bin": "AAE="}`,
		`{"id": 1, "a": "ab", "b": "c", "ok": false, "ts": "2024-01-01T00:00:00Z", "dec": "1.50", "tags": ["x"], "bin": "AAE="}`,
		`{"id": 1, "a": "ab", "b": "c", "ok": true, "ts": "2024-01-01T00:00:01Z", "dec": "1.50", "tags": ["x"], "bin": "AAE="}`,
		`{"id": 1, "a": "ab", "b": "c", "ok": true, "ts": "2024-01-01T00:00:00Z", "dec": "1.51", "tags": ["x"], "bin": "AAE="}`,
		`{"id": 1, "a": "ab", "b": "c", "ok": true, "ts": "2024-01-01T00:00:00Z", "dec": "1.50", "tags": ["x", ""], "bin": "AAE="}`,
		`{"id": 1, "a": "ab", "b": "c", "ok": true, "ts": "2024-01-01T00:00:00Z", "dec": "1.50", "tags": null, "bin": "AAE="}`,
		`{"id": 1, "a": "ab", "b": "c", "ok": true, "ts": "2024-01-01T00:00:00Z", "dec": "1.50", "tags": ["x"], "bin": "AAI="}`,
		`{"id": null, "a": null, "b": null, "ok": null, "ts": null, "dec": null, "tags": null, "bin": null}`,
		`{"id": null, "a": null, "b": null, "ok": null, "ts": null, "dec": null, "tags": null, "bin": null}`,
	}
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, sc, strings.NewReader("["+strings.Join(rows, ",")+"]"))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	// Hash a slice too: encoders must honour array offsets.
	sliced := rec.NewSlice(1, rec.NumRows())
	defer sliced.Release()

	var h, hs hasher
	h.bind(rec, []int{0, 1})
	hs.bind(sliced, []int{0, 1})
	equal := map[[2]int]bool{{0, 1}: true, {13, 14}: true}
	for i := range rows {
		for j := i + 1; j < len(rows); j++ {
			if got, want := h.row(i) == h.row(j), equal[[2]int{i, j}]; got != want {
				t.Errorf("rows %d and %d: equal hashes = %v, want %v", i, j, got, want)
			}
		}
		if i > 0 && h.row(i) != hs.row(i-1) {
			t.Errorf("row %d hashes differently in a slice", i)
		}
	}
	// The key covers id and a only: rows 0, 3 and 4 share it.
	if h.key(0) != h.key(3) || h.key(0) != h.key(4) || h.key(0) == h.key(2) || h.key(0) == h.key(5) {
		t.Error("identifier hashes do not follow the id and a columns")
	}
	if got := describeKey(rec, []int{0, 1}, 5); got != "id=null, a=ab" {
		t.Errorf("describeKey = %q", got)
	}
}

func TestReplay_Options(t *testing.T) {
	ctx := context.Background()
	tbl := replayTable(t, schemaWithIdentifier(), nil)
	snapAppend(t, tbl, vals(1, "a"))
	plain := replayTable(t, schemaIDData(), nil)
	snapAppend(t, plain, vals(1, "a"))

	tests := []struct {
		name    string
		plain   bool // the table without identifier fields
		opts    Options
		mode    mode
		ids     []string
		wantErr string // substring of an ErrInvalidOptions error
	}{
		{name: "default", opts: Options{}, mode: modeRaw},
		{name: "identifiers turn update images on", opts: Options{Identifiers: []string{"data"}}, mode: modeUpdates, ids: []string{"data"}},
		{name: "identifiers with updates off", opts: Options{Identifiers: []string{"data"}, Updates: UpdatesOff}, mode: modeRaw},
		{name: "updates on use identifier fields", opts: Options{Updates: UpdatesOn}, mode: modeUpdates, ids: []string{"id"}},
		{name: "latest uses identifier fields", opts: Options{Latest: true}, mode: modeLatest, ids: []string{"id"}},
		{name: "net", opts: Options{Net: true}, mode: modeNet},
		{name: "updates on without identifier fields", plain: true, opts: Options{Updates: UpdatesOn}, wantErr: "no identifier fields"},
		{name: "unknown identifier", opts: Options{Identifiers: []string{"nope"}}, wantErr: `identifier column "nope" is not a column`},
		{name: "identifier twice", opts: Options{Identifiers: []string{"id", "id"}}, wantErr: "listed twice"},
		{name: "net with identifiers", opts: Options{Net: true, Identifiers: []string{"id"}}, wantErr: "net changes cannot be combined with update images"},
		{name: "net and latest", opts: Options{Net: true, Latest: true}, wantErr: "cannot be combined"},
		{name: "latest without updates", opts: Options{Latest: true, Updates: UpdatesOff}, wantErr: "need update images"},
		{name: "unknown updates", opts: Options{Updates: 7}, wantErr: "unknown update-image setting"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := tbl
			if tt.plain {
				target = plain
			}
			cl, err := Replay(ctx, target.T, tt.opts)
			if tt.wantErr != "" {
				if !errors.Is(err, ErrInvalidOptions) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want ErrInvalidOptions containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cl.mode != tt.mode || !slices.Equal(cl.Identifiers(), tt.ids) {
				t.Errorf("mode %d identifiers %v, want mode %d identifiers %v", cl.mode, cl.Identifiers(), tt.mode, tt.ids)
			}
		})
	}
}

func TestReplay_Schema(t *testing.T) {
	tbl := replayTable(t, schemaIDData(), nil)
	snapAppend(t, tbl, vals(1, "a"))
	cl, err := Replay(context.Background(), tbl.T, Options{})
	if err != nil {
		t.Fatal(err)
	}
	fields := cl.Schema().Fields()
	want := []struct {
		name string
		typ  arrow.DataType
	}{
		{"id", arrow.PrimitiveTypes.Int32},
		{"data", arrow.BinaryTypes.String},
		{ChangeTypeColumn, arrow.BinaryTypes.String},
		{ChangeOrdinalColumn, arrow.PrimitiveTypes.Int32},
		{CommitSnapshotColumn, arrow.PrimitiveTypes.Int64},
	}
	if len(fields) != len(want) {
		t.Fatalf("schema %s, want %d fields", cl.Schema(), len(want))
	}
	for i, w := range want {
		if fields[i].Name != w.name || !arrow.TypeEqual(fields[i].Type, w.typ) {
			t.Errorf("field %d = %s %s, want %s %s", i, fields[i].Name, fields[i].Type, w.name, w.typ)
		}
	}
}

func TestReplay_Order(t *testing.T) {
	// Ordinals ascend; within one, removed files' rows (DELETE,
	// UPDATE_BEFORE) come before added files' rows (INSERT, UPDATE_AFTER).
	tbl := replayTable(t, schemaIDData(), nil)
	s1 := snapAppend(t, tbl, vals(1, "a"), vals(2, "b"), vals(3, "c"))
	s2 := snapOverwrite(t, tbl, whereID(1, 2), vals(1, "aa"), vals(4, "d"))
	s3 := snapAppend(t, tbl, vals(5, "e"))
	got, _ := mustReplay(t, tbl, Options{Identifiers: []string{"id"}})
	want := []rowChange{
		chg(Insert, 0, s1, 1, "a"), chg(Insert, 0, s1, 2, "b"), chg(Insert, 0, s1, 3, "c"),
		chg(UpdateBefore, 1, s2, 1, "a"), chg(Delete, 1, s2, 2, "b"),
		chg(UpdateAfter, 1, s2, 1, "aa"), chg(Insert, 1, s2, 4, "d"),
		chg(Insert, 2, s3, 5, "e"),
	}
	if !slices.Equal(got, want) {
		t.Errorf("order:\n%s\nwant\n%s", changeLines(got), changeLines(want))
	}
}

func TestReplay_BoundedMemory(t *testing.T) {
	// A one-row update in a table of 20 files of 50 rows tracks the rows of
	// the one rewritten file, reads only the two files of its snapshot, and
	// yields batches of at most BatchRows rows.
	tbl := replayTable(t, schemaIDData(), nil)
	for f := range 20 {
		var rs [][]any
		for i := range 50 {
			id := f*50 + i
			rs = append(rs, vals(id, fmt.Sprint("v", id)))
		}
		snapAppend(t, tbl, rs...)
	}
	before := tbl.Snapshot()
	snapOverwrite(t, tbl, whereID(517), vals(517, "changed"))
	ctx := context.Background()

	// The overwrite removes one file and adds two: the carried-over rows
	// and the new one.
	tests := []struct {
		name      string
		opts      Options
		filesRead int
	}{
		{"kept in memory", Options{From: before, Identifiers: []string{"id"}, BatchRows: 16}, 3},
		{"read twice", Options{From: before, Identifiers: []string{"id"}, BatchRows: 16, BufferBytes: -1}, 6},
		{"over the buffer", Options{From: before, Identifiers: []string{"id"}, BatchRows: 16, BufferBytes: 1}, 6},
		{"net", Options{From: before, Net: true, BatchRows: 16}, 3 + 2},
		{"latest", Options{From: before, Latest: true, Identifiers: []string{"id"}, BatchRows: 16}, 3 + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl, err := Replay(ctx, tbl.T, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if s := cl.Snapshots(); len(s) != 1 || s[0].DeletedFiles != 1 || s[0].AddedFiles != 2 {
				t.Fatalf("Snapshots() = %+v, want one removed and two added files", s)
			}
			var rows int64
			for rec, err := range cl.Records(ctx) {
				if err != nil {
					t.Fatal(err)
				}
				if rec.NumRows() > 16 {
					t.Errorf("batch of %d rows, want at most 16", rec.NumRows())
				}
				rows += rec.NumRows()
			}
			st := cl.Stats()
			if st.FilesRead != tt.filesRead {
				t.Errorf("FilesRead = %d, want %d", st.FilesRead, tt.filesRead)
			}
			if st.PeakTrackedRows == 0 || st.PeakTrackedRows > 2*50 {
				t.Errorf("PeakTrackedRows = %d, want at most the 100 rows of the snapshot (the table has 1000)", st.PeakTrackedRows)
			}
			if st.CarryOvers != 49 {
				t.Errorf("CarryOvers = %d, want 49", st.CarryOvers)
			}
			if want := int64(1); tt.opts.Latest && rows != want {
				t.Errorf("%d rows, want %d", rows, want)
			} else if !tt.opts.Latest && rows != 2 {
				t.Errorf("%d rows, want 2", rows)
			}
		})
	}
	t.Run("whole history", func(t *testing.T) {
		cl, err := Replay(ctx, tbl.T, Options{Identifiers: []string{"id"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, err := range cl.Records(ctx) {
			if err != nil {
				t.Fatal(err)
			}
		}
		if st := cl.Stats(); st.PeakTrackedRows > 100 || st.Inserts != 1000 || st.UpdatesBefore != 1 || st.UpdatesAfter != 1 {
			t.Errorf("stats = %+v: tracked rows must stay within one snapshot's", st)
		}
	})
}

func TestReplay_Records(t *testing.T) {
	ctx := context.Background()
	tbl := replayTable(t, schemaIDData(), nil)
	for i := range 5 {
		snapAppend(t, tbl, vals(i, "x"))
	}
	cl, err := Replay(ctx, tbl.T, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("stop early", func(t *testing.T) {
		n := 0
		for _, err := range cl.Records(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			if n++; n == 2 {
				break
			}
		}
		if st := cl.Stats(); st.Inserts != 2 || st.FilesRead != 2 {
			t.Errorf("after two batches: %+v, want two files read and two inserts", st)
		}
	})
	t.Run("replay again", func(t *testing.T) {
		a, err := collectChanges(ctx, cl)
		if err != nil {
			t.Fatal(err)
		}
		b, err := collectChanges(ctx, cl)
		if err != nil {
			t.Fatal(err)
		}
		if len(a) != 5 || !slices.Equal(a, b) {
			t.Errorf("two replays: %v and %v", a, b)
		}
	})
	t.Run("canceled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		var err error
		for _, e := range cl.Records(cctx) {
			if e != nil {
				err = e
			}
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
	t.Run("missing data file", func(t *testing.T) {
		// A data file gone from storage fails with the file and the
		// snapshot that added it.
		snaps := cl.Snapshots()
		f := cl.steps[2].files[0].task.File.FilePath()
		fs, err := tbl.T.FS(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := fs.Remove(f); err != nil {
			t.Fatal(err)
		}
		_, err = collectChanges(ctx, cl)
		if err == nil || !strings.Contains(err.Error(), f) || !strings.Contains(err.Error(), fmt.Sprint(snaps[2].SnapshotID)) {
			t.Errorf("err = %v, want it to name %s and snapshot %d", err, f, snaps[2].SnapshotID)
		}
	})
}

func TestReplay_ReservedColumn(t *testing.T) {
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int32},
		iceberg.NestedField{ID: 2, Name: ChangeTypeColumn, Type: iceberg.PrimitiveTypes.String})
	tbl := replayTable(t, sc, nil)
	snapAppend(t, tbl, vals(1, "a"))
	_, err := Replay(context.Background(), tbl.T, Options{})
	if !errors.Is(err, ErrInvalidOptions) || !strings.Contains(err.Error(), ChangeTypeColumn) {
		t.Errorf("err = %v, want ErrInvalidOptions naming %s", err, ChangeTypeColumn)
	}
}
