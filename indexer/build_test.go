package indexer_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/cowguard"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
	"github.com/ontoindex/ontoindex/objects"
)

// customerSchema: id long (identifier), name string, city string, score double.
func customerSchema() *iceberg.Schema {
	return iceberg.NewSchemaWithIdentifiers(1, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "city", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 4, Name: "score", Type: iceberg.PrimitiveTypes.Float64},
	)
}

func customerRows(from, n int) []icebergtest.Row {
	cities := []string{"Lisbon", "Oslo", "Quito", "Hanoi"}
	rows := make([]icebergtest.Row, n)
	for i := range rows {
		id := from + i
		rows[i] = icebergtest.Row{"id": id, "name": fmt.Sprintf("customer %d", id), "city": cities[id%len(cities)], "score": float64(id) / 4}
	}
	return rows
}

type fixture struct {
	ctx  context.Context
	tb   *icebergtest.Table
	ix   *indexer.Indexer
	cfg  *config.Config
	name string
}

// mustFixture creates table ns.customers with files of 10 rows each and an
// indexer with object type Customer over it.
func mustFixture(tb testing.TB, props iceberg.Properties, files int, spec *objects.TypeSpec) *fixture {
	tb.Helper()
	ctx := context.Background()
	w := icebergtest.MustWarehouse(tb)
	t, err := w.CreateTable(ctx, "ns.customers", customerSchema(), props)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range files {
		if err := t.Append(ctx, customerRows(i*10, 10)); err != nil {
			tb.Fatal(err)
		}
	}
	if spec == nil {
		spec = &objects.TypeSpec{APIName: "Customer", Table: "warehouse.ns.customers"}
	}
	cfg := indexertest.Config(tb, w, *spec)
	return &fixture{ctx: ctx, tb: t, ix: indexertest.Open(tb, cfg), cfg: cfg, name: spec.APIName}
}

func (f *fixture) mustBuild(tb testing.TB, opts indexer.BuildOptions) *indexer.BuildResult {
	tb.Helper()
	r, err := f.ix.Build(f.ctx, f.name, opts)
	if err != nil {
		tb.Fatalf("build: %v", err)
	}
	return r
}

func id(v int64) iceberg.BooleanExpression { return iceberg.EqualTo(iceberg.Reference("id"), v) }

func wantResult(tb testing.TB, r *indexer.BuildResult, kind indexer.Kind, files int, upserts, deletes int64) {
	tb.Helper()
	if r.Kind != kind || r.FilesRead != files || r.Upserts != upserts || r.Deletes != deletes {
		tb.Fatalf("build = kind %s, files %d, upserts %d, deletes %d; want %s, %d, %d, %d", r.Kind, r.FilesRead, r.Upserts, r.Deletes, kind, files, upserts, deletes)
	}
}

func addedFiles(t *icebergtest.Table) int {
	s := t.T.CurrentSnapshot().Summary.Properties
	var n int
	fmt.Sscan(s["added-data-files"], &n)
	return n
}

func TestIndexer_Build(t *testing.T) {
	t.Run("append", func(t *testing.T) {
		f := mustFixture(t, nil, 3, nil)
		wantResult(t, f.mustBuild(t, indexer.BuildOptions{}), indexer.KindFull, 3, 30, 0)
		indexertest.MatchTable(t, f.ix, f.name, f.tb)
		if err := f.tb.Append(f.ctx, customerRows(100, 5)); err != nil {
			t.Fatal(err)
		}
		r := f.mustBuild(t, indexer.BuildOptions{})
		wantResult(t, r, indexer.KindIncremental, 1, 5, 0)
		if r.RowsRead != 5 {
			t.Errorf("rowsRead = %d, want 5", r.RowsRead)
		}
		indexertest.MatchTable(t, f.ix, f.name, f.tb)
	})
	t.Run("cow update of one row in a file of many", func(t *testing.T) {
		f := mustFixture(t, nil, 3, nil)
		f.mustBuild(t, indexer.BuildOptions{})
		if err := f.tb.Overwrite(f.ctx, id(13), []icebergtest.Row{{"id": 13, "name": "renamed", "city": "Oslo", "score": 1.5}}); err != nil {
			t.Fatal(err)
		}
		r := f.mustBuild(t, indexer.BuildOptions{})
		// The rewritten file (9 carry-overs) and the file with the new row.
		wantResult(t, r, indexer.KindIncremental, addedFiles(f.tb), 1, 0)
		if r.RowsRead != 10 {
			t.Errorf("rowsRead = %d, want 10", r.RowsRead)
		}
		indexertest.MatchTable(t, f.ix, f.name, f.tb)
	})
	t.Run("cow delete", func(t *testing.T) {
		f := mustFixture(t, nil, 3, nil)
		f.mustBuild(t, indexer.BuildOptions{})
		if err := f.tb.Delete(f.ctx, iceberg.GreaterThanEqual(iceberg.Reference("id"), int64(25))); err != nil {
			t.Fatal(err)
		}
		wantResult(t, f.mustBuild(t, indexer.BuildOptions{}), indexer.KindIncremental, 1, 0, 5)
		indexertest.MatchTable(t, f.ix, f.name, f.tb)
		// Deleting a whole file reads nothing.
		if err := f.tb.Delete(f.ctx, iceberg.LessThan(iceberg.Reference("id"), int64(10))); err != nil {
			t.Fatal(err)
		}
		r := f.mustBuild(t, indexer.BuildOptions{})
		wantResult(t, r, indexer.KindIncremental, 0, 0, 10)
		if r.BytesRead != 0 {
			t.Errorf("bytesRead = %d, want 0", r.BytesRead)
		}
		indexertest.MatchTable(t, f.ix, f.name, f.tb)
	})
	t.Run("carry-over only rewrite", func(t *testing.T) {
		f := mustFixture(t, nil, 3, nil)
		f.mustBuild(t, indexer.BuildOptions{})
		// Rewrite the file holding id 5 and write the identical row back.
		if err := f.tb.Overwrite(f.ctx, id(5), customerRows(5, 1)); err != nil {
			t.Fatal(err)
		}
		r := f.mustBuild(t, indexer.BuildOptions{})
		wantResult(t, r, indexer.KindIncremental, addedFiles(f.tb), 0, 0)
		if r.RowsRead != 10 {
			t.Errorf("rowsRead = %d, want 10", r.RowsRead)
		}
		// Compaction: a replace snapshot rewriting every file.
		if err := f.tb.Compact(f.ctx); err != nil {
			t.Fatal(err)
		}
		r = f.mustBuild(t, indexer.BuildOptions{})
		wantResult(t, r, indexer.KindIncremental, addedFiles(f.tb), 0, 0)
		indexertest.MatchTable(t, f.ix, f.name, f.tb)
	})
	t.Run("no-op build", func(t *testing.T) {
		f := mustFixture(t, nil, 2, nil)
		first := f.mustBuild(t, indexer.BuildOptions{})
		r := f.mustBuild(t, indexer.BuildOptions{})
		wantResult(t, r, indexer.KindNone, 0, 0, 0)
		if r.FromSnapshotID != first.ToSnapshotID || r.ToSnapshotID != first.ToSnapshotID {
			t.Errorf("no-op build from %d to %d, want %d", r.FromSnapshotID, r.ToSnapshotID, first.ToSnapshotID)
		}
	})
	t.Run("full rebuild into a new generation", func(t *testing.T) {
		f := mustFixture(t, nil, 2, nil)
		g1 := f.mustBuild(t, indexer.BuildOptions{}).Generation
		r := f.mustBuild(t, indexer.BuildOptions{Full: true})
		wantResult(t, r, indexer.KindFull, 2, 20, 0)
		if r.Generation != g1+1 {
			t.Errorf("generation = %d, want %d", r.Generation, g1+1)
		}
		indexertest.MatchTable(t, f.ix, f.name, f.tb)
	})
	t.Run("rollback", func(t *testing.T) {
		f := mustFixture(t, nil, 2, nil)
		before := f.tb.T.CurrentSnapshot().SnapshotID
		if err := f.tb.Overwrite(f.ctx, id(3), []icebergtest.Row{{"id": 3, "name": "x"}}); err != nil {
			t.Fatal(err)
		}
		if err := f.tb.Append(f.ctx, customerRows(50, 3)); err != nil {
			t.Fatal(err)
		}
		f.mustBuild(t, indexer.BuildOptions{})
		if err := f.tb.Rollback(f.ctx, before); err != nil {
			t.Fatal(err)
		}
		r := f.mustBuild(t, indexer.BuildOptions{})
		// The original file of id 3 is live again: read it, delete 50..52.
		wantResult(t, r, indexer.KindIncremental, 1, 1, 3)
		indexertest.MatchTable(t, f.ix, f.name, f.tb)
	})
	t.Run("snapshot expiry with file cleanup between builds", func(t *testing.T) {
		f := mustFixture(t, nil, 3, nil)
		f.mustBuild(t, indexer.BuildOptions{})
		if err := f.tb.Overwrite(f.ctx, id(1), []icebergtest.Row{{"id": 1, "name": "one"}}); err != nil {
			t.Fatal(err)
		}
		if err := f.tb.Delete(f.ctx, iceberg.LessThan(iceberg.Reference("id"), int64(20))); err != nil {
			t.Fatal(err)
		}
		if err := f.tb.Append(f.ctx, customerRows(40, 2)); err != nil {
			t.Fatal(err)
		}
		if err := f.tb.ExpireAllButCurrent(f.ctx); err != nil {
			t.Fatal(err)
		}
		if len(f.tb.T.Metadata().Snapshots()) != 1 {
			t.Fatalf("expiry kept %d snapshots", len(f.tb.T.Metadata().Snapshots()))
		}
		r := f.mustBuild(t, indexer.BuildOptions{})
		wantResult(t, r, indexer.KindIncremental, 1, 2, 20)
		indexertest.MatchTable(t, f.ix, f.name, f.tb)
	})
	t.Run("empty table, then rows", func(t *testing.T) {
		f := mustFixture(t, nil, 0, nil)
		r := f.mustBuild(t, indexer.BuildOptions{})
		wantResult(t, r, indexer.KindFull, 0, 0, 0)
		if r.ToSnapshotID != 0 {
			t.Errorf("toSnapshotId = %d for a table without snapshots", r.ToSnapshotID)
		}
		wantResult(t, f.mustBuild(t, indexer.BuildOptions{}), indexer.KindNone, 0, 0, 0)
		if err := f.tb.Append(f.ctx, customerRows(0, 3)); err != nil {
			t.Fatal(err)
		}
		wantResult(t, f.mustBuild(t, indexer.BuildOptions{}), indexer.KindIncremental, 1, 3, 0)
		indexertest.MatchTable(t, f.ix, f.name, f.tb)
	})
	t.Run("partitioned table", func(t *testing.T) {
		ctx := context.Background()
		w := icebergtest.MustWarehouse(t)
		tb, err := w.CreatePartitionedTable(ctx, "ns.customers", customerSchema(), []string{"city"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := tb.Append(ctx, customerRows(0, 40)); err != nil { // one file per city
			t.Fatal(err)
		}
		ix := indexertest.Open(t, indexertest.Config(t, w, objects.TypeSpec{APIName: "Customer", Table: "warehouse.ns.customers"}))
		r, err := ix.Build(ctx, "Customer", indexer.BuildOptions{})
		if err != nil || r.FilesRead != 4 {
			t.Fatalf("build = %+v, %v", r, err)
		}
		// Move customer 5 from Oslo to Lisbon: a rewrite in one partition, a new row in another.
		if err := tb.Overwrite(ctx, id(5), []icebergtest.Row{{"id": 5, "name": "moved", "city": "Lisbon", "score": 1}}); err != nil {
			t.Fatal(err)
		}
		// iceberg-go rewrites every file whose id bounds admit 5 (all
		// four): three of them only carry rows over.
		r, err = ix.Build(ctx, "Customer", indexer.BuildOptions{})
		if err != nil || r.Kind != indexer.KindIncremental || r.Upserts != 1 || r.Deletes != 0 || r.FilesRead != addedFiles(tb) {
			t.Fatalf("build = %+v, %v", r, err)
		}
		indexertest.MatchTable(t, ix, "Customer", tb)
	})
	t.Run("build to an older snapshot", func(t *testing.T) {
		f := mustFixture(t, nil, 2, nil)
		s1 := f.tb.T.CurrentSnapshot().SnapshotID
		if err := f.tb.Append(f.ctx, customerRows(30, 4)); err != nil {
			t.Fatal(err)
		}
		f.mustBuild(t, indexer.BuildOptions{})
		r := f.mustBuild(t, indexer.BuildOptions{SnapshotID: s1})
		wantResult(t, r, indexer.KindIncremental, 0, 0, 4)
		indexertest.MatchTable(t, f.ix, f.name, f.tb)
		if _, err := f.ix.Build(f.ctx, f.name, indexer.BuildOptions{SnapshotID: 42}); indexer.ErrorCode(err) != indexer.CodeSnapshotNotFound {
			t.Errorf("unknown snapshot: err = %v", err)
		}
	})
}

func TestIndexer_Build_mergeOnRead(t *testing.T) {
	tests := []struct {
		name   string
		fv     string
		commit func(f *fixture) error
		want   cowguard.DeleteCounts
	}{
		{"position delete", "2", func(f *fixture) error { return f.tb.Delete(f.ctx, id(4)) }, cowguard.DeleteCounts{Position: 1}},
		{"deletion vector", "3", func(f *fixture) error { return f.tb.Delete(f.ctx, id(4)) }, cowguard.DeleteCounts{DeletionVectors: 1}},
		{"equality delete", "2", func(f *fixture) error {
			return f.tb.EqualityDelete(f.ctx, []string{"id"}, []icebergtest.Row{{"id": 4}})
		}, cowguard.DeleteCounts{Equality: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mustFixture(t, iceberg.Properties{"format-version": tt.fv, cowguard.DeleteModeKey: cowguard.MergeOnRead}, 2, nil)
			good := f.mustBuild(t, indexer.BuildOptions{})
			if err := tt.commit(f); err != nil {
				t.Fatal(err)
			}
			r, err := f.ix.Build(f.ctx, f.name, indexer.BuildOptions{})
			var mor *cowguard.MergeOnReadError
			if !errors.As(err, &mor) {
				t.Fatalf("build err = %v, want *cowguard.MergeOnReadError", err)
			}
			if mor.Deletes != tt.want || mor.ObjectType != "Customer" || mor.SnapshotID != f.tb.T.CurrentSnapshot().SnapshotID {
				t.Errorf("error = %+v", mor)
			}
			for _, s := range []string{"merge-on-read", "copy-on-write", "warehouse.ns.customers", fmt.Sprint(mor.SnapshotID)} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
			if r.Error == nil || r.Error.Code != indexer.CodeMergeOnRead {
				t.Errorf("result error = %+v", r.Error)
			}
			// The index is untouched and keeps serving.
			cp, _ := f.ix.Checkpoint(f.name)
			if cp.SnapshotID != good.ToSnapshotID {
				t.Errorf("checkpoint moved to %d", cp.SnapshotID)
			}
			v, err := f.ix.View(f.name)
			if err != nil {
				t.Fatal(err)
			}
			if o, _ := v.Get(mustKey(t, v.Type(), "4")); o == nil {
				t.Error("object 4 is gone after a refused build")
			}
			v.Release()
			// Clean the table: copy-on-write again, compact; the next build succeeds.
			if err := f.tb.SetProperties(f.ctx, iceberg.Properties{cowguard.DeleteModeKey: cowguard.CopyOnWrite}); err != nil {
				t.Fatal(err)
			}
			if err := f.tb.Compact(f.ctx); err != nil {
				t.Fatal(err)
			}
			r = f.mustBuild(t, indexer.BuildOptions{})
			if r.Kind != indexer.KindIncremental || r.Deletes != 1 || r.Upserts != 0 {
				t.Errorf("recovery build = %+v", r)
			}
			indexertest.MatchTable(t, f.ix, f.name, f.tb)
		})
	}
}

func mustKey(tb testing.TB, t *objects.Type, s string) []byte {
	tb.Helper()
	k, err := t.ParseKey(s)
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

func TestIndexer_Build_keys(t *testing.T) {
	t.Run("duplicate keys fail the build", func(t *testing.T) {
		f := mustFixture(t, nil, 2, nil)
		f.mustBuild(t, indexer.BuildOptions{})
		if err := f.tb.Append(f.ctx, customerRows(3, 2)); err != nil { // ids 3 and 4 again
			t.Fatal(err)
		}
		_, err := f.ix.Build(f.ctx, f.name, indexer.BuildOptions{})
		var dup *changelog.DuplicateKeyError
		if !errors.As(err, &dup) {
			t.Fatalf("err = %v, want *changelog.DuplicateKeyError", err)
		}
		if len(dup.Keys) != 2 || dup.Keys[0].Key != "3" || len(dup.Keys[0].Files) != 2 {
			t.Errorf("duplicates = %+v", dup.Keys)
		}
		if !strings.Contains(err.Error(), ".parquet") {
			t.Errorf("error does not name files: %v", err)
		}
		// Nothing was applied: the old state is served.
		indexertest.MatchTable(t, f.ix, f.name, f.tb)
		cp, _ := f.ix.Checkpoint(f.name)
		if cp.Objects != 20 {
			t.Errorf("objects = %d, want 20", cp.Objects)
		}
		// A full build of the bad snapshot fails too and keeps the generation.
		if _, err := f.ix.Build(f.ctx, f.name, indexer.BuildOptions{Full: true}); !errors.As(err, &dup) {
			t.Fatalf("full build err = %v", err)
		}
		if cp2, _ := f.ix.Checkpoint(f.name); cp2.Generation != cp.Generation {
			t.Errorf("generation changed from %d to %d", cp.Generation, cp2.Generation)
		}
	})
	for _, policy := range []objects.InvalidRowPolicy{objects.InvalidRowSkip, objects.InvalidRowFail} {
		t.Run("null key with onInvalidRow "+string(policy), func(t *testing.T) {
			ctx := context.Background()
			w := icebergtest.MustWarehouse(t)
			sc := iceberg.NewSchema(1,
				iceberg.NestedField{ID: 1, Name: "code", Type: iceberg.PrimitiveTypes.String},
				iceberg.NestedField{ID: 2, Name: "label", Type: iceberg.PrimitiveTypes.String})
			tb, err := w.CreateTable(ctx, "ns.codes", sc, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := tb.Append(ctx, []icebergtest.Row{{"code": "a", "label": "A"}, {"code": nil, "label": "none"}, {"code": "b", "label": "B"}}); err != nil {
				t.Fatal(err)
			}
			ix := indexertest.Open(t, indexertest.Config(t, w, objects.TypeSpec{APIName: "Code", Table: "warehouse.ns.codes", PrimaryKey: []string{"code"}, OnInvalidRow: policy}))
			r, err := ix.Build(ctx, "Code", indexer.BuildOptions{})
			if policy == objects.InvalidRowFail {
				var inv *changelog.InvalidRowError
				if !errors.As(err, &inv) || inv.Row.Row != 1 || !strings.Contains(err.Error(), "null") {
					t.Fatalf("err = %v", err)
				}
				if cp, _ := ix.Checkpoint("Code"); cp != nil {
					t.Errorf("failed first build left a checkpoint")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.SkippedRows != 1 || r.Upserts != 2 {
				t.Errorf("result = %+v", r)
			}
			cp, _ := ix.Checkpoint("Code")
			if cp.InvalidRows.Count != 1 || len(cp.InvalidRows.Samples) != 1 || !strings.Contains(cp.InvalidRows.Samples[0].Reason, "code") {
				t.Errorf("invalid rows = %+v", cp.InvalidRows)
			}
		})
	}
	t.Run("composite primary key", func(t *testing.T) {
		ctx := context.Background()
		w := icebergtest.MustWarehouse(t)
		sc := iceberg.NewSchemaWithIdentifiers(1, []int{1, 2},
			iceberg.NestedField{ID: 1, Name: "order_id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
			iceberg.NestedField{ID: 2, Name: "line", Type: iceberg.PrimitiveTypes.Int32, Required: true},
			iceberg.NestedField{ID: 3, Name: "sku", Type: iceberg.PrimitiveTypes.String})
		tb, err := w.CreateTable(ctx, "ns.lines", sc, nil)
		if err != nil {
			t.Fatal(err)
		}
		var rows []icebergtest.Row
		for o := 1; o <= 3; o++ {
			for l := 1; l <= 3; l++ {
				rows = append(rows, icebergtest.Row{"order_id": o, "line": l, "sku": fmt.Sprintf("sku-%d-%d", o, l)})
			}
		}
		if err := tb.Append(ctx, rows); err != nil {
			t.Fatal(err)
		}
		ix := indexertest.Open(t, indexertest.Config(t, w, objects.TypeSpec{APIName: "Line", Table: "warehouse.ns.lines"}))
		if _, err := ix.Build(ctx, "Line", indexer.BuildOptions{}); err != nil {
			t.Fatal(err)
		}
		cond := iceberg.NewAnd(iceberg.EqualTo(iceberg.Reference("order_id"), int64(2)), iceberg.EqualTo(iceberg.Reference("line"), int32(3)))
		if err := tb.Overwrite(ctx, cond, []icebergtest.Row{{"order_id": 2, "line": 3, "sku": "changed"}}); err != nil {
			t.Fatal(err)
		}
		r, err := ix.Build(ctx, "Line", indexer.BuildOptions{})
		if err != nil || r.Upserts != 1 {
			t.Fatalf("build = %+v, %v", r, err)
		}
		indexertest.MatchTable(t, ix, "Line", tb)
		v, _ := ix.View("Line")
		defer v.Release()
		o, err := v.Get(mustKey(t, v.Type(), "2,3"))
		if err != nil || o == nil {
			t.Fatalf("get 2,3: %v %v", o, err)
		}
		if got := v.Type().JSON(o); got["sku"] != "changed" || got["__primaryKey"] != "2,3" {
			t.Errorf("object = %v", got)
		}
	})
}

func TestIndexer_Build_schemaEvolution(t *testing.T) {
	explicit := &objects.TypeSpec{APIName: "Customer", Table: "warehouse.ns.customers", Properties: map[string]objects.PropertySpec{
		"id": {Column: "id"}, "name": {Column: "name"}, "city": {Column: "city", Search: objects.SearchKeyword}}}
	t.Run("added column with explicit properties stays incremental", func(t *testing.T) {
		f := mustFixture(t, nil, 2, explicit)
		f.mustBuild(t, indexer.BuildOptions{})
		if err := f.tb.AddColumn(f.ctx, "tier", iceberg.PrimitiveTypes.String); err != nil {
			t.Fatal(err)
		}
		if err := f.tb.Append(f.ctx, []icebergtest.Row{{"id": 500, "name": "new", "city": "Oslo", "tier": "gold"}}); err != nil {
			t.Fatal(err)
		}
		wantResult(t, f.mustBuild(t, indexer.BuildOptions{}), indexer.KindIncremental, 1, 1, 0)
		indexertest.MatchTable(t, f.ix, f.name, f.tb)
	})
	t.Run("added column with default properties rebuilds with the new property", func(t *testing.T) {
		f := mustFixture(t, nil, 2, nil)
		f.mustBuild(t, indexer.BuildOptions{})
		if err := f.tb.AddColumn(f.ctx, "tier", iceberg.PrimitiveTypes.String); err != nil {
			t.Fatal(err)
		}
		if err := f.tb.Append(f.ctx, []icebergtest.Row{{"id": 500, "name": "new", "tier": "gold"}}); err != nil {
			t.Fatal(err)
		}
		wantResult(t, f.mustBuild(t, indexer.BuildOptions{}), indexer.KindFull, 3, 21, 0)
		indexertest.MatchTable(t, f.ix, f.name, f.tb)
		cp, _ := f.ix.Checkpoint(f.name)
		if _, ok := cp.Type.Property("tier"); !ok {
			t.Error("property tier missing after rebuild")
		}
	})
	t.Run("dropped mapped column fails naming column, table and schema", func(t *testing.T) {
		f := mustFixture(t, nil, 2, explicit)
		f.mustBuild(t, indexer.BuildOptions{})
		if err := f.tb.DropColumn(f.ctx, "city"); err != nil {
			t.Fatal(err)
		}
		_, err := f.ix.Build(f.ctx, f.name, indexer.BuildOptions{})
		if indexer.ErrorCode(err) != indexer.CodeSchemaMismatch {
			t.Fatalf("err = %v", err)
		}
		sid := f.tb.T.Schema().ID
		for _, s := range []string{`"city"`, "warehouse.ns.customers", fmt.Sprintf("schema id %d", sid)} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("error %q does not mention %s", err, s)
			}
		}
		indexertest.MatchTable(t, f.ix, f.name, f.tb) // still the old snapshot
	})
	t.Run("type promotion keeps carry-overs", func(t *testing.T) {
		ctx := context.Background()
		w := icebergtest.MustWarehouse(t)
		sc := iceberg.NewSchemaWithIdentifiers(1, []int{1},
			iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int32, Required: true},
			iceberg.NestedField{ID: 2, Name: "qty", Type: iceberg.PrimitiveTypes.Int32},
			iceberg.NestedField{ID: 3, Name: "price", Type: iceberg.PrimitiveTypes.Float32})
		tb, err := w.CreateTable(ctx, "ns.stock", sc, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := tb.Append(ctx, []icebergtest.Row{{"id": 1, "qty": 5, "price": 1.5}, {"id": 2, "qty": 7, "price": 2.25}}); err != nil {
			t.Fatal(err)
		}
		ix := indexertest.Open(t, indexertest.Config(t, w, objects.TypeSpec{APIName: "Stock", Table: "warehouse.ns.stock"}))
		if _, err := ix.Build(ctx, "Stock", indexer.BuildOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := tb.PromoteColumn(ctx, "qty", iceberg.PrimitiveTypes.Int64); err != nil {
			t.Fatal(err)
		}
		if err := tb.PromoteColumn(ctx, "price", iceberg.PrimitiveTypes.Float64); err != nil {
			t.Fatal(err)
		}
		if err := tb.Overwrite(ctx, iceberg.EqualTo(iceberg.Reference("id"), int32(2)), []icebergtest.Row{{"id": 2, "qty": 5000000000, "price": 2.25}}); err != nil {
			t.Fatal(err)
		}
		r, err := ix.Build(ctx, "Stock", indexer.BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Kind != indexer.KindIncremental || r.Upserts != 1 {
			t.Errorf("build = %+v", r)
		}
		cp, _ := ix.Checkpoint("Stock")
		if p, _ := cp.Type.Property("qty"); p.Type.Kind != objects.KindLong {
			t.Errorf("qty type = %s, want long", p.Type)
		}
		indexertest.MatchTable(t, ix, "Stock", tb)
	})
}

func TestIndexer_Build_fullTriggers(t *testing.T) {
	spec := objects.TypeSpec{APIName: "Customer", Table: "warehouse.ns.customers"}
	f := mustFixture(t, nil, 2, &spec)
	f.mustBuild(t, indexer.BuildOptions{})
	s := spec
	s.SemanticVersion = 2
	f.reopen(t, s)
	wantResult(t, f.mustBuild(t, indexer.BuildOptions{}), indexer.KindFull, 2, 20, 0)
	wantResult(t, f.mustBuild(t, indexer.BuildOptions{}), indexer.KindNone, 0, 0, 0)

	s.TitleProperty = "name" // a mapping change
	s.RequireIncremental = true
	f.reopen(t, s)
	if _, err := f.ix.Build(f.ctx, f.name, indexer.BuildOptions{}); !errors.Is(err, indexer.ErrIncrementalRequired) {
		t.Fatalf("requireIncremental: err = %v", err)
	}
	wantResult(t, f.mustBuild(t, indexer.BuildOptions{Full: true}), indexer.KindFull, 2, 20, 0)

	s.PrimaryKey = []string{"name"} // a primary-key change
	s.RequireIncremental = false
	f.reopen(t, s)
	wantResult(t, f.mustBuild(t, indexer.BuildOptions{}), indexer.KindFull, 2, 20, 0)
	cp, _ := f.ix.Checkpoint(f.name)
	if cp.Type.PrimaryKey[0] != "name" {
		t.Errorf("primary key = %v", cp.Type.PrimaryKey)
	}
	indexertest.MatchTable(t, f.ix, f.name, f.tb)
}

// TestIndexer_Build_cost: after a one-row COW edit in a table of at least
// 20 data files, only the files the commit added are read.
func TestIndexer_Build_cost(t *testing.T) {
	f := mustFixture(t, nil, 24, nil)
	full := f.mustBuild(t, indexer.BuildOptions{})
	if full.FilesRead != 24 {
		t.Fatalf("full build read %d files", full.FilesRead)
	}
	if err := f.tb.Overwrite(f.ctx, id(117), []icebergtest.Row{{"id": 117, "name": "edited", "city": "Oslo", "score": 0.5}}); err != nil {
		t.Fatal(err)
	}
	var added, addedBytes int64
	fmt.Sscan(f.tb.T.CurrentSnapshot().Summary.Properties["added-data-files"], &added)
	fmt.Sscan(f.tb.T.CurrentSnapshot().Summary.Properties["added-files-size"], &addedBytes)
	r := f.mustBuild(t, indexer.BuildOptions{})
	if int64(r.FilesRead) != added {
		t.Errorf("filesRead = %d, want %d (files the commit added)", r.FilesRead, added)
	}
	if r.BytesRead <= 0 || r.BytesRead > addedBytes {
		t.Errorf("bytesRead = %d, want in (0, %d]", r.BytesRead, addedBytes)
	}
	if r.Upserts != 1 || r.Deletes != 0 {
		t.Errorf("upserts %d deletes %d", r.Upserts, r.Deletes)
	}
	t.Logf("cost test: %d data files; one-row COW edit added %d files of %d bytes; build read %d files, %d bytes, %d rows (full build: %d bytes)",
		24, added, addedBytes, r.FilesRead, r.BytesRead, r.RowsRead, full.BytesRead)
	indexertest.MatchTable(t, f.ix, f.name, f.tb)
}

// TestIndexer_Build_recreatedTable: a table dropped and created again under
// the same name is another table (a new uuid): its first build is full,
// never a diff against the baseline of the old one, and a type that
// requires incremental builds fails naming both uuids, its checkpoint
// untouched.
func TestIndexer_Build_recreatedTable(t *testing.T) {
	f := mustFixture(t, nil, 3, nil)
	f.mustBuild(t, indexer.BuildOptions{})
	before, _ := f.ix.Checkpoint(f.name)
	oldUUID := f.tb.T.Metadata().TableUUID().String()
	if err := f.tb.W.Catalog.DropTable(f.ctx, f.tb.Ident); err != nil {
		t.Fatal(err)
	}
	nt, err := f.tb.W.CreateTable(f.ctx, "ns.customers", customerSchema(), nil)
	if err != nil {
		t.Fatal(err)
	}
	f.tb = nt
	// Some keys of the old table, with the same values, and new ones.
	if err := nt.Append(f.ctx, customerRows(25, 10)); err != nil {
		t.Fatal(err)
	}
	newUUID := nt.T.Metadata().TableUUID().String()

	spec := f.cfg.ObjectTypes[0]
	spec.RequireIncremental = true
	f.reopen(t, spec)
	_, err = f.ix.Build(f.ctx, f.name, indexer.BuildOptions{})
	if !errors.Is(err, indexer.ErrIncrementalRequired) {
		t.Fatalf("requireIncremental: err = %v, want ErrIncrementalRequired", err)
	}
	for _, want := range []string{"recreated", oldUUID, newUUID} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if cp, _ := f.ix.Checkpoint(f.name); cp.SnapshotID != before.SnapshotID || cp.Generation != before.Generation {
		t.Errorf("checkpoint moved to snapshot %d generation %d after a refused build", cp.SnapshotID, cp.Generation)
	}

	spec.RequireIncremental = false
	f.reopen(t, spec)
	r := f.mustBuild(t, indexer.BuildOptions{})
	wantResult(t, r, indexer.KindFull, 1, 10, 0)
	if !strings.Contains(r.Reason, "recreated") || !strings.Contains(r.Reason, newUUID) {
		t.Errorf("reason = %q, want the table recreated with uuid %s", r.Reason, newUUID)
	}
	if r.Generation == before.Generation {
		t.Errorf("full build in generation %d, the old table's", r.Generation)
	}
	indexertest.MatchTable(t, f.ix, f.name, f.tb)
	// The next build continues incrementally from the new table.
	if err := nt.Append(f.ctx, customerRows(100, 2)); err != nil {
		t.Fatal(err)
	}
	wantResult(t, f.mustBuild(t, indexer.BuildOptions{}), indexer.KindIncremental, 1, 2, 0)
	indexertest.MatchTable(t, f.ix, f.name, f.tb)
}
