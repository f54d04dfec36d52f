package changelog

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/cowguard"
	"github.com/ontoindex/ontoindex/internal/testkit/fixtures"
)

func TestView_modes(t *testing.T) {
	// A history with every kind of snapshot, partitioned so that
	// rewrites touch only some files; every range of it, every view.
	tbl := replayTable(t, schemaWithIdentifier(), nil, "data")
	snapAppend(t, tbl, vals(1, "a"), vals(2, "b"), vals(3, "a"))
	snapAppend(t, tbl, vals(4, "c"))
	snapOverwrite(t, tbl, whereID(2), vals(2, "a"))
	commitSnap(t, tbl, tbl.Compact)
	snapDelete(t, tbl, whereID(4))
	snapOverwrite(t, tbl, whereID(1, 3), vals(1, "aa"), vals(3, "a"))
	snapAppend(t, tbl, vals(4, "c"), vals(5, "d"))
	chain := snapshotChain(tbl.T)
	for i := range chain {
		for j := i + 1; j < len(chain); j++ {
			t.Run(rangeName(chain[i], chain[j]), func(t *testing.T) {
				checkViews(t, tbl.T, chain[i], chain[j], []string{"id"})
			})
		}
	}
}

func TestView_emptyRange(t *testing.T) {
	// from == to (a consumer that is up to date): current and previous
	// are the rows at that snapshot, the other views are empty.
	tbl := replayTable(t, schemaWithIdentifier(), nil)
	snapAppend(t, tbl, vals(1, "a"))
	s := snapAppend(t, tbl, vals(2, "b"))
	want := scanRows(t, tbl.T, s)
	for _, m := range ViewModes() {
		rows, _, v := viewRows(t, tbl.T, ViewOptions{Mode: m, From: s, To: s, Identifiers: []string{"id"}})
		if m == ViewCurrent || m == ViewPrevious {
			assertRows(t, string(m), multiset(rows), want)
		} else if len(rows) > 0 {
			t.Errorf("%s of an empty range: %v", m, rows)
		}
		if f, to := v.Range(); f != s || to != s || v.Changelog() != nil {
			t.Errorf("%s: Range() = (%d, %d], Changelog() = %v; want (%d, %d] and no replay", m, f, to, v.Changelog(), s, s)
		}
		if m == ViewChangelog && len(v.Schema().Fields()) != 5 {
			t.Errorf("changelog schema %s, want the metadata columns", v.Schema())
		}
	}
}

func TestView_columns(t *testing.T) {
	tbl := replayTable(t, schemaIDDataAge(), nil)
	s1 := snapAppend(t, tbl, vals(1, "a", 10), vals(2, "b", 20))
	snapOverwrite(t, tbl, whereID(2), vals(2, "b", 21))
	// The age changed, the selected columns did not: the row is still
	// modified, shown with the selected columns only.
	rows, _, v := viewRows(t, tbl.T, ViewOptions{Mode: ViewModified, From: s1, Identifiers: []string{"id"}, Columns: []string{"data", "id"}})
	if got := v.Schema().Field(0).Name + "," + v.Schema().Field(1).Name; got != "data,id" || len(v.Schema().Fields()) != 2 {
		t.Errorf("schema %s, want data, id", v.Schema())
	}
	if len(rows) != 1 || rows[0].String() != "b, 2" {
		t.Errorf("modified rows %v, want [b, 2]", rows)
	}
	rows, types, v := viewRows(t, tbl.T, ViewOptions{Mode: ViewChangelog, From: s1, Identifiers: []string{"id"}, Columns: []string{"age"}})
	if n := len(v.Schema().Fields()); n != 4 || len(rows) != 1 || rows[0].String() != "21" || types[0] != UpdateAfter {
		t.Errorf("changelog of age: %d columns, rows %v %v; want age and the metadata columns, one UPDATE_AFTER of 21", n, rows, types)
	}
}

func TestView_errors(t *testing.T) {
	ctx := context.Background()
	tbl := replayTable(t, schemaIDData(), nil)
	s1 := snapAppend(t, tbl, vals(1, "a"))
	s2 := snapAppend(t, tbl, vals(2, "b"))
	tests := []struct {
		name string
		opts ViewOptions
		want error
		text string
	}{
		{"unknown mode", ViewOptions{Mode: "latest"}, ErrInvalidOptions, `"latest"`},
		{"modified without identifiers", ViewOptions{Mode: ViewModified, From: s1}, ErrInvalidOptions, "identifier"},
		{"modified without identifiers, empty range", ViewOptions{Mode: ViewModified, From: s2, To: s2}, ErrInvalidOptions, "identifier"},
		{"unknown identifier", ViewOptions{Mode: ViewChangelog, From: s2, To: s2, Identifiers: []string{"nope"}}, ErrInvalidOptions, `"nope"`},
		{"unknown column", ViewOptions{Mode: ViewCurrent, Columns: []string{"nope"}}, ErrInvalidOptions, `"nope"`},
		{"column twice", ViewOptions{Mode: ViewCurrent, Columns: []string{"id", "id"}}, ErrInvalidOptions, "twice"},
		{"unknown snapshot", ViewOptions{Mode: ViewCurrent, From: 123}, ErrSnapshotNotFound, "123"},
		{"reversed range", ViewOptions{Mode: ViewPrevious, From: s2, To: s1}, ErrNotAncestor, "not an ancestor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := View(ctx, tbl.T, tt.opts)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.text) || !strings.Contains(err.Error(), "db.t") {
				t.Errorf("err = %v, want %v naming %s and the table", err, tt.want, tt.text)
			}
		})
	}
	t.Run("duplicate identifiers", func(t *testing.T) {
		dup := replayTable(t, schemaIDData(), nil)
		s := snapAppend(t, dup, vals(1, "a"), vals(1, "b"))
		snapOverwrite(t, dup, whereID(1), vals(1, "c"), vals(1, "d"))
		v, err := View(ctx, dup.T, ViewOptions{Mode: ViewModified, From: s, Identifiers: []string{"id"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, err = range v.Records(ctx) {
			if err != nil {
				break
			}
		}
		if err == nil || !strings.Contains(err.Error(), "unique") || !strings.Contains(err.Error(), "db.t") {
			t.Errorf("err = %v, want identifiers that are not unique", err)
		}
	})
}

func TestView_mergeOnRead(t *testing.T) {
	ctx := context.Background()
	tbl := replayTable(t, schemaWithIdentifier(), iceberg.Properties{cowguard.DeleteModeKey: cowguard.MergeOnRead})
	s1 := snapAppend(t, tbl, vals(1, "a"), vals(2, "b"))
	s2 := snapDelete(t, tbl, whereID(1))
	s3 := commitSnap(t, tbl, tbl.Compact)
	s4 := snapAppend(t, tbl, vals(3, "c"))
	refused := func(opts ViewOptions) {
		t.Helper()
		_, err := View(ctx, tbl.T, opts)
		var mor *cowguard.MergeOnReadError
		if !errors.As(err, &mor) || mor.SnapshotID != s2 {
			t.Errorf("View(%+v) = %v, want *cowguard.MergeOnReadError for snapshot %d", opts, err, s2)
		}
	}
	for _, m := range []ViewMode{ViewAdded, ViewRemoved, ViewModified, ViewChangelog} {
		refused(ViewOptions{Mode: m, From: s1, To: s3, Identifiers: []string{"id"}})
	}
	refused(ViewOptions{Mode: ViewCurrent, From: s1, To: s2})
	refused(ViewOptions{Mode: ViewPrevious, From: s2, To: s4})
	// The compaction left no live delete file: what follows it is a
	// copy-on-write range again.
	checkViews(t, tbl.T, s3, s4, []string{"id"})
	rows, _, _ := viewRows(t, tbl.T, ViewOptions{Mode: ViewCurrent, From: s1, To: s3})
	assertRows(t, "current after the compaction", multiset(rows), scanRows(t, tbl.T, s3))
}

func TestView_realEngines(t *testing.T) {
	// Tables written by Spark and PyIceberg (testdata/real-iceberg): each
	// snapshot's own range, and the whole history.
	for _, fx := range []struct {
		name string
		ids  []string
	}{
		{"duckdb_spark_lineitem_iceberg_cow", []string{"l_orderkey", "l_linenumber"}},
		{"duckdb_spark_generated_spec1_0_001", nil},
		{"pyiceberg_upsert_cow_target", nil},
	} {
		t.Run(fx.name, func(t *testing.T) {
			tbl := fixtures.MustLoad(t, fx.name)
			chain := snapshotChain(tbl)
			first := 1
			if testing.Short() {
				// The race run of CI: the last snapshot's range and the
				// whole history take every code path at a fraction of the
				// cost (the race detector slows these scans tenfold).
				first = len(chain) - 1
			}
			for i := max(first, 1); i < len(chain); i++ {
				t.Run(rangeName(chain[i-1], chain[i]), func(t *testing.T) { checkViews(t, tbl, chain[i-1], chain[i], fx.ids) })
			}
			t.Run("whole history", func(t *testing.T) { checkViews(t, tbl, 0, chain[len(chain)-1], fx.ids) })
		})
	}
	t.Run("merge-on-read tables are refused", func(t *testing.T) {
		for _, name := range []string{"pg_lake_spark_v2_posdeletes", "iceberg_cxx_trino480_v3_deletion_vectors"} {
			tbl := fixtures.MustLoad(t, name)
			for _, m := range []ViewMode{ViewCurrent, ViewChangelog} {
				_, err := View(context.Background(), tbl, ViewOptions{Mode: m})
				var mor *cowguard.MergeOnReadError
				if !errors.As(err, &mor) {
					t.Errorf("%s %s: err = %v, want *cowguard.MergeOnReadError", name, m, err)
				}
			}
		}
	})
}
