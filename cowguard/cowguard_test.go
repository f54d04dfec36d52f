package cowguard_test

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/cowguard"
	"github.com/ontoindex/ontoindex/internal/testkit/fixtures"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

func TestWriteModes(t *testing.T) {
	tests := []struct {
		name      string
		props     iceberg.Properties
		want      [3]string
		set       [3]bool
		anyMOR    bool
		defaulted int // "(default)" marks in String
	}{
		{name: "absent", props: nil, want: [3]string{"copy-on-write", "copy-on-write", "copy-on-write"}, defaulted: 3},
		{name: "empty value", props: iceberg.Properties{cowguard.DeleteModeKey: ""}, want: [3]string{"copy-on-write", "copy-on-write", "copy-on-write"}, defaulted: 3},
		{name: "delete mor", props: iceberg.Properties{cowguard.DeleteModeKey: "merge-on-read"},
			want: [3]string{"merge-on-read", "copy-on-write", "copy-on-write"}, set: [3]bool{true, false, false}, anyMOR: true, defaulted: 2},
		{name: "update mor", props: iceberg.Properties{cowguard.UpdateModeKey: "merge-on-read"},
			want: [3]string{"copy-on-write", "merge-on-read", "copy-on-write"}, set: [3]bool{false, true, false}, anyMOR: true, defaulted: 2},
		{name: "merge mor", props: iceberg.Properties{cowguard.MergeModeKey: "merge-on-read"},
			want: [3]string{"copy-on-write", "copy-on-write", "merge-on-read"}, set: [3]bool{false, false, true}, anyMOR: true, defaulted: 2},
		{name: "all cow explicit", props: iceberg.Properties{cowguard.DeleteModeKey: "copy-on-write", cowguard.UpdateModeKey: "copy-on-write", cowguard.MergeModeKey: "copy-on-write"},
			want: [3]string{"copy-on-write", "copy-on-write", "copy-on-write"}, set: [3]bool{true, true, true}},
		{name: "other properties", props: iceberg.Properties{"write.format.default": "parquet", "write.delete.granularity": "file"},
			want: [3]string{"copy-on-write", "copy-on-write", "copy-on-write"}, defaulted: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := cowguard.WriteModes(tt.props)
			if got := [3]string{m.Delete, m.Update, m.Merge}; got != tt.want {
				t.Errorf("modes %v, want %v", got, tt.want)
			}
			if got := [3]bool{m.DeleteSet, m.UpdateSet, m.MergeSet}; got != tt.set {
				t.Errorf("set flags %v, want %v", got, tt.set)
			}
			if m.AnyMergeOnRead() != tt.anyMOR {
				t.Errorf("AnyMergeOnRead = %v, want %v", m.AnyMergeOnRead(), tt.anyMOR)
			}
			s := m.String()
			if n := strings.Count(s, "(default)"); n != tt.defaulted {
				t.Errorf("String() = %q: %d defaults marked, want %d", s, n, tt.defaulted)
			}
			for i, k := range []string{cowguard.DeleteModeKey, cowguard.UpdateModeKey, cowguard.MergeModeKey} {
				if !strings.Contains(s, k+"="+tt.want[i]) {
					t.Errorf("String() = %q lacks %s=%s", s, k, tt.want[i])
				}
			}
		})
	}
}

func TestDeleteCounts_String(t *testing.T) {
	tests := []struct {
		c     cowguard.DeleteCounts
		total int
		want  string
	}{
		{cowguard.DeleteCounts{}, 0, "0 position-delete files, 0 equality-delete files, 0 deletion vectors"},
		{cowguard.DeleteCounts{Position: 1, Equality: 1, DeletionVectors: 1}, 3, "1 position-delete file, 1 equality-delete file, 1 deletion vector"},
		{cowguard.DeleteCounts{Position: 6, DeletionVectors: 2}, 8, "6 position-delete files, 0 equality-delete files, 2 deletion vectors"},
	}
	for _, tt := range tests {
		if got := tt.c.String(); got != tt.want {
			t.Errorf("%+v: String() = %q, want %q", tt.c, got, tt.want)
		}
		if got := tt.c.Total(); got != tt.total {
			t.Errorf("%+v: Total() = %d, want %d", tt.c, got, tt.total)
		}
	}
}

// fixtureCase is what cowguard must see in a real-engine fixture's current
// snapshot.
type fixtureCase struct {
	name    string
	fv      int
	deletes cowguard.DeleteCounts
	verdict cowguard.Verdict
}

// fixtureCases covers every readable fixture in testdata/real-iceberg.
func fixtureCases() []fixtureCase {
	return []fixtureCase{
		{"duckdb_spark_lineitem_iceberg_cow", 2, cowguard.DeleteCounts{}, cowguard.VerdictWarn}, // write.update.mode=merge-on-read, COW delete
		{"duckdb_spark_generated_spec1_0_001", 1, cowguard.DeleteCounts{}, cowguard.VerdictOK},
		{"duckdb_spark_generated_spec2_0_001", 2, cowguard.DeleteCounts{Position: 3}, cowguard.VerdictFail},
		{"pyiceberg_upsert_cow_target", 2, cowguard.DeleteCounts{}, cowguard.VerdictOK},
		{"pg_lake_spark_v2_posdeletes", 2, cowguard.DeleteCounts{Position: 3}, cowguard.VerdictFail},
		{"iceberg_cxx_spark_refdeletes3", 2, cowguard.DeleteCounts{Position: 6}, cowguard.VerdictFail},
		{"iceberg_cxx_trino476_granular_deletes", 2, cowguard.DeleteCounts{Position: 2}, cowguard.VerdictFail},
		// Trino OPTIMIZE rewrote every data file; its two position-delete files
		// apply to no live data file any more.
		{"iceberg_cxx_trino476_dangling_deletes", 2, cowguard.DeleteCounts{Dangling: 2}, cowguard.VerdictWarn},
		{"iceberg_cxx_trino480_v3_deletion_vectors", 3, cowguard.DeleteCounts{DeletionVectors: 2}, cowguard.VerdictFail},
		{"impala_spark_iceberg_v3_deletion_vectors", 3, cowguard.DeleteCounts{DeletionVectors: 2}, cowguard.VerdictFail},
		{"pg_lake_spark353_v3_pos_dv", 3, cowguard.DeleteCounts{DeletionVectors: 1}, cowguard.VerdictFail},
		{"impala_spark_iceberg_v3_row_lineage", 3, cowguard.DeleteCounts{}, cowguard.VerdictOK},
		{"pg_lake_spark353_v3_evolution_full", 3, cowguard.DeleteCounts{}, cowguard.VerdictOK},
		{"pg_lake_spark353_v3_nested_evolution", 3, cowguard.DeleteCounts{}, cowguard.VerdictOK},
		{"pg_lake_spark353_v3_branches_tags", 3, cowguard.DeleteCounts{}, cowguard.VerdictOK},
	}
}

const strippedFixture = "impala_flink_eqdeletes_ORIGINAL_stripped_avro_headers"

func TestFixtureCases_CoverTestdata(t *testing.T) {
	names, err := fixtures.Names(fixtures.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	var covered []string
	for _, c := range fixtureCases() {
		covered = append(covered, c.name)
	}
	covered = append(covered, strippedFixture)
	for _, n := range names {
		if !slices.Contains(covered, n) {
			t.Errorf("fixture %s has no case in fixtureCases", n)
		}
	}
}

func summaryInt(tb testing.TB, s *table.Snapshot, key string) int {
	tb.Helper()
	if s.Summary == nil || s.Summary.Properties[key] == "" {
		return 0
	}
	n, err := strconv.Atoi(s.Summary.Properties[key])
	if err != nil {
		tb.Fatalf("snapshot %d summary %s: %v", s.SnapshotID, key, err)
	}
	return n
}

func TestLiveDeletes_Fixtures(t *testing.T) {
	ctx := context.Background()
	for _, tc := range fixtureCases() {
		t.Run(tc.name, func(t *testing.T) {
			tbl := fixtures.MustLoad(t, tc.name)
			fs, err := tbl.FS(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got, err := cowguard.LiveDeletes(ctx, fs, tbl.CurrentSnapshot())
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.deletes {
				t.Errorf("current snapshot: %+v, want %+v", got, tc.deletes)
			}
			// Every snapshot: the engines' own summaries count the delete
			// files; v3 tables here hold deletion vectors only.
			for _, s := range tbl.Metadata().Snapshots() {
				c, err := cowguard.LiveDeletes(ctx, fs, &s)
				if err != nil {
					t.Fatalf("snapshot %d: %v", s.SnapshotID, err)
				}
				want := summaryInt(t, &s, "total-delete-files")
				if c.Total()+c.Dangling != want {
					t.Errorf("snapshot %d (%s): %+v, the summary counts %d delete files", s.SnapshotID, s.Summary.Operation, c, want)
				}
				if c.Equality != 0 {
					t.Errorf("snapshot %d: %d equality-delete files, none were written", s.SnapshotID, c.Equality)
				}
				if tc.fv >= 3 && c.Position != 0 {
					t.Errorf("snapshot %d of a v3 table: %d position-delete files counted, want deletion vectors", s.SnapshotID, c.Position)
				}
				if tc.fv < 3 && c.DeletionVectors != 0 {
					t.Errorf("snapshot %d of a v%d table: %d deletion vectors", s.SnapshotID, tc.fv, c.DeletionVectors)
				}
			}
		})
	}
}

func TestLiveDeletes_NilSnapshot(t *testing.T) {
	c, err := cowguard.LiveDeletes(context.Background(), nil, nil)
	if err != nil || c != (cowguard.DeleteCounts{}) {
		t.Errorf("LiveDeletes(nil snapshot) = %+v, %v; want zero, nil", c, err)
	}
}

// The stripped fixture's delete manifests lack Iceberg's Avro header keys,
// so they cannot be read: the error must name the manifest and snapshot.
func TestLiveDeletes_StrippedAvroHeaders(t *testing.T) {
	ctx := context.Background()
	tables, err := fixtures.Tables(fixtures.Dir(t), strippedFixture)
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) == 0 {
		t.Fatal("no tables")
	}
	for _, dir := range tables {
		t.Run(path.Base(dir), func(t *testing.T) {
			tbl := fixtures.MustLoad(t, strippedFixture+"/"+path.Base(dir))
			fs, err := tbl.FS(ctx)
			if err != nil {
				t.Fatal(err)
			}
			snap := tbl.CurrentSnapshot()
			list, err := snap.Manifests(fs)
			if err != nil {
				t.Fatal(err)
			}
			_, err = cowguard.LiveDeletes(ctx, fs, snap)
			if err == nil {
				t.Fatal("LiveDeletes succeeded on manifests without Iceberg metadata")
			}
			named := false
			for _, m := range list {
				if m.ManifestContent() == iceberg.ManifestContentDeletes && strings.Contains(err.Error(), m.FilePath()) {
					named = true
				}
			}
			if !named || !strings.Contains(err.Error(), strconv.FormatInt(snap.SnapshotID, 10)) {
				t.Errorf("error does not name a delete manifest and snapshot %d: %v", snap.SnapshotID, err)
			}
		})
	}
}

func TestInspect_Fixtures(t *testing.T) {
	ctx := context.Background()
	for _, tc := range fixtureCases() {
		t.Run(tc.name, func(t *testing.T) {
			tbl := fixtures.MustLoad(t, tc.name)
			r, err := cowguard.Inspect(ctx, tbl, "real."+tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != tc.verdict || r.LiveDeleteFiles != tc.deletes || r.FormatVersion != tc.fv ||
				r.Table != "real."+tc.name || r.SnapshotID != tbl.CurrentSnapshot().SnapshotID {
				t.Errorf("report %+v, want verdict %s, deletes %+v, fv %d, snapshot %d", r, tc.verdict, tc.deletes, tc.fv, tbl.CurrentSnapshot().SnapshotID)
			}
			if r.WriteModes != cowguard.WriteModes(tbl.Properties()) {
				t.Errorf("write modes %+v, want those of the table properties", r.WriteModes)
			}
			var want []string
			switch r.Verdict {
			case cowguard.VerdictFail:
				want = []string{"merge-on-read", "copy-on-write", r.LiveDeleteFiles.String(), strconv.FormatInt(r.SnapshotID, 10)}
			case cowguard.VerdictWarn:
				want = []string{"merge-on-read", "copy-on-write"}
				if r.LiveDeleteFiles.Dangling > 0 {
					want = []string{"dangling", "rewrite_position_delete_files"}
				}
			case cowguard.VerdictOK:
				if tc.fv == 1 {
					want = []string{"format version 1"}
				}
			}
			for _, s := range want {
				if !strings.Contains(r.Message, s) {
					t.Errorf("message %q lacks %q", r.Message, s)
				}
			}
		})
	}
}

func TestInspect_StrippedAvroHeaders(t *testing.T) {
	tbl := fixtures.MustLoad(t, strippedFixture+"/iceberg_v2_delete_equality")
	r, err := cowguard.Inspect(context.Background(), tbl, "t")
	if err == nil {
		t.Fatalf("Inspect succeeded with %+v", r)
	}
	if r.Verdict == cowguard.VerdictOK {
		t.Errorf("verdict ok despite the error")
	}
	if !strings.Contains(err.Error(), "manifest") || !strings.Contains(err.Error(), ".avro") {
		t.Errorf("error does not name the manifest: %v", err)
	}
}

// icebergTable is a table written by iceberg-go in a temporary warehouse,
// with ten rows appended.
func icebergTable(tb testing.TB, props iceberg.Properties) *icebergtest.Table {
	tb.Helper()
	ctx := context.Background()
	w := icebergtest.MustWarehouse(tb)
	sc := iceberg.NewSchemaWithIdentifiers(1, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
	)
	tbl, err := w.CreateTable(ctx, "ns.t", sc, props)
	if err != nil {
		tb.Fatal(err)
	}
	var rows []icebergtest.Row
	for i := range 10 {
		rows = append(rows, icebergtest.Row{"id": i, "name": fmt.Sprint("n", i)})
	}
	if err := tbl.Append(ctx, rows); err != nil {
		tb.Fatal(err)
	}
	return tbl
}

func idIs(v int64) iceberg.BooleanExpression { return iceberg.EqualTo(iceberg.Reference("id"), v) }

// deleteManifests counts the delete manifests in the current snapshot's
// manifest list, and those that hold only DELETED entries.
func deleteManifests(tb testing.TB, tbl *table.Table) (all, onlyDeleted int) {
	tb.Helper()
	fs, err := tbl.FS(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	list, err := tbl.CurrentSnapshot().Manifests(fs)
	if err != nil {
		tb.Fatal(err)
	}
	for _, m := range list {
		if m.ManifestContent() != iceberg.ManifestContentDeletes {
			continue
		}
		all++
		if !m.HasAddedFiles() && !m.HasExistingFiles() && m.DeletedDataFiles() > 0 {
			onlyDeleted++
		}
	}
	return all, onlyDeleted
}

func TestCheck_IcebergGo(t *testing.T) {
	ctx := context.Background()
	morV2 := iceberg.Properties{"format-version": "2", cowguard.DeleteModeKey: cowguard.MergeOnRead}
	morV3 := iceberg.Properties{"format-version": "3", cowguard.DeleteModeKey: cowguard.MergeOnRead}
	tests := []struct {
		name  string
		props iceberg.Properties
		edit  func(tb testing.TB, tbl *icebergtest.Table)
		want  cowguard.DeleteCounts // zero: Check must pass
		// leftovers: delete manifests of only DELETED entries that the
		// final snapshot must still list (so the test exercises them).
		leftovers bool
	}{
		{name: "append only", props: morV2, edit: func(testing.TB, *icebergtest.Table) {}},
		{name: "copy-on-write delete", props: iceberg.Properties{"format-version": "2"}, edit: func(tb testing.TB, tbl *icebergtest.Table) {
			mustDo(tb, tbl.Delete(ctx, idIs(3)))
		}},
		{name: "position deletes v2", props: morV2, edit: func(tb testing.TB, tbl *icebergtest.Table) {
			mustDo(tb, tbl.Delete(ctx, idIs(3)))
		}, want: cowguard.DeleteCounts{Position: 1}},
		{name: "two position-delete commits", props: morV2, edit: func(tb testing.TB, tbl *icebergtest.Table) {
			mustDo(tb, tbl.Delete(ctx, idIs(3)))
			mustDo(tb, tbl.Delete(ctx, idIs(4)))
		}, want: cowguard.DeleteCounts{Position: 2}},
		{name: "equality deletes", props: iceberg.Properties{"format-version": "2"}, edit: func(tb testing.TB, tbl *icebergtest.Table) {
			mustDo(tb, tbl.EqualityDelete(ctx, []string{"id"}, []icebergtest.Row{{"id": 5}}))
		}, want: cowguard.DeleteCounts{Equality: 1}},
		{name: "deletion vector v3", props: morV3, edit: func(tb testing.TB, tbl *icebergtest.Table) {
			mustDo(tb, tbl.Delete(ctx, idIs(3)))
		}, want: cowguard.DeleteCounts{DeletionVectors: 1}},
		{name: "position and equality deletes", props: morV2, edit: func(tb testing.TB, tbl *icebergtest.Table) {
			mustDo(tb, tbl.Delete(ctx, idIs(3)))
			mustDo(tb, tbl.EqualityDelete(ctx, []string{"id"}, []icebergtest.Row{{"id": 5}}))
		}, want: cowguard.DeleteCounts{Position: 1, Equality: 1}},
		{name: "compacted v2", props: morV2, edit: func(tb testing.TB, tbl *icebergtest.Table) {
			mustDo(tb, tbl.Delete(ctx, idIs(3)))
			mustDo(tb, tbl.EqualityDelete(ctx, []string{"id"}, []icebergtest.Row{{"id": 5}}))
			mustDo(tb, tbl.Compact(ctx))
		}, leftovers: true},
		{name: "compacted v3 then appended", props: morV3, edit: func(tb testing.TB, tbl *icebergtest.Table) {
			mustDo(tb, tbl.Delete(ctx, idIs(3)))
			mustDo(tb, tbl.Compact(ctx))
			mustDo(tb, tbl.Append(ctx, []icebergtest.Row{{"id": 100, "name": "new"}}))
		}, leftovers: true},
		{name: "deleted again after compaction", props: morV2, edit: func(tb testing.TB, tbl *icebergtest.Table) {
			mustDo(tb, tbl.Delete(ctx, idIs(3)))
			mustDo(tb, tbl.Compact(ctx))
			mustDo(tb, tbl.Delete(ctx, idIs(4)))
		}, want: cowguard.DeleteCounts{Position: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tbl := icebergTable(t, tt.props)
			tt.edit(t, tbl)
			snap := tbl.T.CurrentSnapshot()
			if _, only := deleteManifests(t, tbl.T); (only > 0) != tt.leftovers {
				t.Fatalf("the snapshot lists %d delete manifests of only DELETED entries; the case expects leftovers: %v", only, tt.leftovers)
			}
			fs, err := tbl.T.FS(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got, err := cowguard.LiveDeletes(ctx, fs, snap)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("LiveDeletes = %+v, want %+v", got, tt.want)
			}

			err = cowguard.Check(ctx, tbl.T, "ns.t", snap)
			if tt.want.Total() == 0 {
				if err != nil {
					t.Errorf("Check: %v, want nil", err)
				}
				return
			}
			wrapped := fmt.Errorf("build: %w", err)
			var me *cowguard.MergeOnReadError
			if !errors.As(wrapped, &me) {
				t.Fatalf("Check: %v, want a *MergeOnReadError through wrapping", err)
			}
			if me.Table != "ns.t" || me.SnapshotID != snap.SnapshotID || me.Operation != string(snap.Summary.Operation) ||
				me.Deletes != tt.want || me.Modes != cowguard.WriteModes(tbl.T.Properties()) || me.ObjectType != "" {
				t.Errorf("error %+v, want table ns.t, snapshot %d (%s), deletes %+v", me, snap.SnapshotID, snap.Summary.Operation, tt.want)
			}
			msg := err.Error()
			for _, s := range []string{"merge-on-read", "copy-on-write", "ns.t", strconv.FormatInt(snap.SnapshotID, 10), tt.want.String()} {
				if !strings.Contains(msg, s) {
					t.Errorf("message lacks %q: %s", s, msg)
				}
			}

			r, err := cowguard.Inspect(ctx, tbl.T, "ns.t")
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != cowguard.VerdictFail || r.LiveDeleteFiles != tt.want {
				t.Errorf("Inspect: %+v, want fail with %+v", r, tt.want)
			}
		})
	}
}

func mustDo(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}

func TestInspect_IcebergGo(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		props   iceberg.Properties
		verdict cowguard.Verdict
		fv      int
	}{
		{name: "v2 defaults", props: iceberg.Properties{"format-version": "2"}, verdict: cowguard.VerdictOK, fv: 2},
		{name: "v2 delete mor", props: iceberg.Properties{"format-version": "2", cowguard.DeleteModeKey: cowguard.MergeOnRead}, verdict: cowguard.VerdictWarn, fv: 2},
		{name: "v3 merge mor", props: iceberg.Properties{"format-version": "3", cowguard.MergeModeKey: cowguard.MergeOnRead}, verdict: cowguard.VerdictWarn, fv: 3},
		{name: "v2 explicit cow", props: iceberg.Properties{"format-version": "2", cowguard.DeleteModeKey: cowguard.CopyOnWrite,
			cowguard.UpdateModeKey: cowguard.CopyOnWrite, cowguard.MergeModeKey: cowguard.CopyOnWrite}, verdict: cowguard.VerdictOK, fv: 2},
		// A v1 table cannot hold delete files, whatever its properties say.
		{name: "v1 with mor properties", props: iceberg.Properties{"format-version": "1", cowguard.DeleteModeKey: cowguard.MergeOnRead}, verdict: cowguard.VerdictOK, fv: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tbl := icebergTable(t, tt.props)
			r, err := cowguard.Inspect(ctx, tbl.T, "ns.t")
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != tt.verdict || r.FormatVersion != tt.fv || r.LiveDeleteFiles.Total() != 0 || r.SnapshotID != tbl.T.CurrentSnapshot().SnapshotID {
				t.Errorf("report %+v, want verdict %s, fv %d", r, tt.verdict, tt.fv)
			}
			if r.Message == "" {
				t.Error("empty message")
			}
		})
	}

	t.Run("no snapshot", func(t *testing.T) {
		w := icebergtest.MustWarehouse(t)
		sc := iceberg.NewSchema(1, iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64})
		tbl, err := w.CreateTable(ctx, "ns.empty", sc, iceberg.Properties{"format-version": "2"})
		if err != nil {
			t.Fatal(err)
		}
		r, err := cowguard.Inspect(ctx, tbl.T, "ns.empty")
		if err != nil || r.Verdict != cowguard.VerdictOK || r.SnapshotID != 0 {
			t.Errorf("Inspect of a table without snapshots: %+v, %v; want ok, snapshot 0", r, err)
		}
		if err := cowguard.Check(ctx, tbl.T, "ns.empty", nil); err != nil {
			t.Errorf("Check(nil snapshot) = %v", err)
		}
	})
}

func TestMergeOnReadError_Error(t *testing.T) {
	modes := cowguard.WriteModes(iceberg.Properties{cowguard.DeleteModeKey: cowguard.MergeOnRead})
	tests := []struct {
		name    string
		err     *cowguard.MergeOnReadError
		want    []string
		notWant []string
	}{
		{
			name: "with object type",
			err: &cowguard.MergeOnReadError{ObjectType: "Customer", Table: "warehouse.sales.customers", SnapshotID: 42, Operation: "delete",
				Deletes: cowguard.DeleteCounts{Position: 2}, Modes: modes},
			want: []string{"object type Customer", "table warehouse.sales.customers", "snapshot 42", "(delete)", "merge-on-read", "copy-on-write",
				"2 position-delete files", "write.delete.mode=merge-on-read", "write.update.mode=copy-on-write (default)", "compact"},
		},
		{
			name:    "without object type or operation",
			err:     &cowguard.MergeOnReadError{Table: "t", SnapshotID: 7, Deletes: cowguard.DeleteCounts{DeletionVectors: 1}, Modes: modes},
			want:    []string{"table t snapshot 7 has live", "1 deletion vector", "merge-on-read", "copy-on-write"},
			notWant: []string{"object type", "()"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := tt.err.Error()
			for _, s := range tt.want {
				if !strings.Contains(msg, s) {
					t.Errorf("message lacks %q: %s", s, msg)
				}
			}
			for _, s := range tt.notWant {
				if strings.Contains(msg, s) {
					t.Errorf("message contains %q: %s", s, msg)
				}
			}
			var me *cowguard.MergeOnReadError
			if !errors.As(fmt.Errorf("object type X: %w", fmt.Errorf("build: %w", tt.err)), &me) || me != tt.err {
				t.Error("errors.As does not find the error through two wraps")
			}
		})
	}
}

// Check refuses a snapshot that a merge-on-read DELETE left with a deletion
// vector (here one written by Spark 3.5 with Iceberg 1.10).
func ExampleCheck() {
	ctx := context.Background()
	tbl, err := fixtures.Load(ctx, "../testdata/real-iceberg", "pg_lake_spark353_v3_pos_dv")
	if err != nil {
		fmt.Println(err)
		return
	}
	err = cowguard.Check(ctx, tbl, "lake.public.v3_pos_dv", tbl.CurrentSnapshot())
	var mor *cowguard.MergeOnReadError
	if errors.As(err, &mor) {
		fmt.Println("refused snapshot", mor.SnapshotID, "of", mor.Table)
		fmt.Println("live:", mor.Deletes)
		fmt.Println("modes:", mor.Modes)
	}
	// Output:
	// refused snapshot 657408537013115270 of lake.public.v3_pos_dv
	// live: 0 position-delete files, 0 equality-delete files, 1 deletion vector
	// modes: write.delete.mode=merge-on-read, write.update.mode=merge-on-read, write.merge.mode=copy-on-write (default)
}

// Inspect reports a table's write modes and live delete files.
func ExampleInspect() {
	ctx := context.Background()
	tbl, err := fixtures.Load(ctx, "../testdata/real-iceberg", "duckdb_spark_lineitem_iceberg_cow")
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := cowguard.Inspect(ctx, tbl, "tpch.lineitem")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Verdict, r.LiveDeleteFiles.Total())
	fmt.Println(r.WriteModes.Update)
	// Output:
	// warn 0
	// merge-on-read
}
