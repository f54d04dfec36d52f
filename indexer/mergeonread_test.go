package indexer_test

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/cowguard"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
	"github.com/ontoindex/ontoindex/objects"
)

// morSpec is the Customer type with mergeOnRead: index.
func morSpec() *objects.TypeSpec {
	return &objects.TypeSpec{APIName: "Customer", Table: "warehouse.ns.customers", MergeOnRead: objects.MergeOnReadIndex}
}

func TestIndexer_Check_mergeOnRead(t *testing.T) {
	tests := []struct {
		name        string
		spec        *objects.TypeSpec
		wantVerdict cowguard.Verdict
		wantMessage string
	}{
		{"refuse", nil, cowguard.VerdictFail, "incremental indexing is blocked"},
		{"index", morSpec(), cowguard.VerdictOK, "indexed with merge-on-read (mergeOnRead: index)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mustFixture(t, iceberg.Properties{"format-version": "2", cowguard.DeleteModeKey: cowguard.MergeOnRead}, 2, tt.spec)
			if err := f.tb.Delete(f.ctx, id(4)); err != nil {
				t.Fatal(err)
			}
			r, err := f.ix.Check(f.ctx, f.name)
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != tt.wantVerdict || !strings.Contains(r.Message, tt.wantMessage) || r.LiveDeleteFiles.Position != 1 {
				t.Errorf("check = %s %q (%+v), want %s %q", r.Verdict, r.Message, r.LiveDeleteFiles, tt.wantVerdict, tt.wantMessage)
			}
			st, err := f.ix.Status(f.name)
			if err != nil {
				t.Fatal(err)
			}
			if want := map[bool]objects.MergeOnReadPolicy{true: objects.MergeOnReadIndex}[tt.spec != nil]; st.MergeOnRead != want {
				t.Errorf("status mergeOnRead = %q, want %q", st.MergeOnRead, want)
			}
		})
	}
}

func TestIndexer_Build_mergeOnReadIndex(t *testing.T) {
	tests := []struct {
		name   string
		fv     string
		commit func(f *fixture) error
		want   func(t *testing.T, r *indexer.BuildResult)
	}{
		{"position delete", "2", func(f *fixture) error { return f.tb.Delete(f.ctx, id(4)) }, func(t *testing.T, r *indexer.BuildResult) {
			wantMOR(t, r, 0, 1, 1, 1, 0)
		}},
		{"deletion vector", "3", func(f *fixture) error { return f.tb.Delete(f.ctx, id(4)) }, func(t *testing.T, r *indexer.BuildResult) {
			wantMOR(t, r, 0, 1, 1, 1, 0)
		}},
		{"two deletion vectors of one file", "3", func(f *fixture) error {
			if err := f.tb.Delete(f.ctx, id(4)); err != nil {
				return err
			}
			return f.tb.Delete(f.ctx, id(5))
		}, func(t *testing.T, r *indexer.BuildResult) {
			// The live vector holds the positions of 3, 4 and 5; the build
			// before applied 3, so two are new.
			wantMOR(t, r, 0, 2, 1, 2, 0)
		}},
		{"equality delete on the key", "2", func(f *fixture) error {
			return f.tb.EqualityDelete(f.ctx, []string{"id"}, []icebergtest.Row{{"id": 4}, {"id": 17}})
		}, func(t *testing.T, r *indexer.BuildResult) {
			wantMOR(t, r, 0, 2, 1, 0, 2)
			if r.FilesRead != 0 {
				t.Errorf("an equality delete on the key read %d data files", r.FilesRead)
			}
		}},
		{"equality delete on another column", "2", func(f *fixture) error {
			return f.tb.EqualityDelete(f.ctx, []string{"city"}, []icebergtest.Row{{"city": "Oslo"}})
		}, func(t *testing.T, r *indexer.BuildResult) {
			wantMOR(t, r, 0, 5, 1, 0, 5)
			if r.EqualityFilesScanned != 2 {
				t.Errorf("equalityFilesScanned = %d, want 2", r.EqualityFilesScanned)
			}
		}},
		{"delete and insert the key again", "2", func(f *fixture) error {
			if err := f.tb.Delete(f.ctx, id(4)); err != nil {
				return err
			}
			return f.tb.Append(f.ctx, []icebergtest.Row{{"id": 4, "name": "again", "city": "Oslo", "score": 1.0}})
		}, func(t *testing.T, r *indexer.BuildResult) {
			wantMOR(t, r, 1, 0, 1, 1, 0)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mustFixture(t, iceberg.Properties{"format-version": tt.fv, cowguard.DeleteModeKey: cowguard.MergeOnRead}, 2, morSpec())
			f.mustBuild(t, indexer.BuildOptions{})
			if tt.name == "two deletion vectors of one file" {
				if err := f.tb.Delete(f.ctx, id(3)); err != nil {
					t.Fatal(err)
				}
				f.mustBuild(t, indexer.BuildOptions{})
				indexertest.MatchTable(t, f.ix, f.name, f.tb)
			}
			if err := tt.commit(f); err != nil {
				t.Fatal(err)
			}
			r := f.mustBuild(t, indexer.BuildOptions{})
			if r.Kind != indexer.KindIncremental {
				t.Fatalf("build kind %s (%s), want incremental", r.Kind, r.Reason)
			}
			tt.want(t, r)
			indexertest.MatchTable(t, f.ix, f.name, f.tb)
			// A full build of the merge-on-read snapshot reads it with its
			// deletes applied.
			full := f.mustBuild(t, indexer.BuildOptions{Full: true})
			indexertest.MatchTable(t, f.ix, f.name, f.tb)
			if full.Kind != indexer.KindFull {
				t.Errorf("full build kind %s", full.Kind)
			}
		})
	}
}

// wantMOR checks the upserts, deletes and merge-on-read counts of a build.
func wantMOR(tb testing.TB, r *indexer.BuildResult, upserts, deletes int64, deleteFiles int, positions, keys int64) {
	tb.Helper()
	if r.Upserts != upserts || r.Deletes != deletes || r.DeleteFilesRead != deleteFiles || r.PositionsApplied != positions || r.KeysApplied != keys {
		tb.Errorf("build = upserts %d, deletes %d, deleteFilesRead %d, positionsApplied %d, keysApplied %d; want %d, %d, %d, %d, %d",
			r.Upserts, r.Deletes, r.DeleteFilesRead, r.PositionsApplied, r.KeysApplied, upserts, deletes, deleteFiles, positions, keys)
	}
}

// TestIndexer_Build_mergeOnReadAround: what happens around delete files.
// A compaction that applies them (a replace that removes data and delete
// files together) changes no object; expiry of the snapshots behind the
// checkpoint does not stop incremental builds; a rollback past applied
// deletes brings their rows back with a full build.
func TestIndexer_Build_mergeOnReadAround(t *testing.T) {
	for _, fv := range []string{"2", "3"} {
		t.Run("v"+fv, func(t *testing.T) {
			f := mustFixture(t, iceberg.Properties{"format-version": fv, cowguard.DeleteModeKey: cowguard.MergeOnRead}, 3, morSpec())
			f.mustBuild(t, indexer.BuildOptions{})
			if err := f.tb.Delete(f.ctx, id(4)); err != nil {
				t.Fatal(err)
			}
			if err := f.tb.EqualityDelete(f.ctx, []string{"id"}, []icebergtest.Row{{"id": 15}}); err != nil {
				t.Fatal(err)
			}
			wantMOR(t, f.mustBuild(t, indexer.BuildOptions{}), 0, 2, 2, 1, 1)
			indexertest.MatchTable(t, f.ix, f.name, f.tb)

			if err := f.tb.Compact(f.ctx); err != nil {
				t.Fatal(err)
			}
			r := f.mustBuild(t, indexer.BuildOptions{})
			if r.Kind != indexer.KindIncremental || r.Upserts != 0 || r.Deletes != 0 || r.DeleteFilesRead != 0 {
				t.Errorf("build after compaction = %s (%s), %d upserts, %d deletes, %d delete files; want incremental, no change", r.Kind, r.Reason, r.Upserts, r.Deletes, r.DeleteFilesRead)
			}
			indexertest.MatchTable(t, f.ix, f.name, f.tb)

			if err := f.tb.Delete(f.ctx, id(20)); err != nil {
				t.Fatal(err)
			}
			if err := f.tb.ExpireAllButCurrent(f.ctx); err != nil {
				t.Fatal(err)
			}
			wantMOR(t, f.mustBuild(t, indexer.BuildOptions{}), 0, 1, 1, 1, 0)
			indexertest.MatchTable(t, f.ix, f.name, f.tb)

			// A rollback past applied deletes, in a fixture whose history
			// is still there.
			g := mustFixture(t, iceberg.Properties{"format-version": fv, cowguard.DeleteModeKey: cowguard.MergeOnRead}, 3, morSpec())
			g.mustBuild(t, indexer.BuildOptions{})
			clean := g.tb.Snapshot()
			if err := g.tb.Delete(g.ctx, id(4)); err != nil {
				t.Fatal(err)
			}
			g.mustBuild(t, indexer.BuildOptions{})
			if err := g.tb.Rollback(g.ctx, clean); err != nil {
				t.Fatal(err)
			}
			r = g.mustBuild(t, indexer.BuildOptions{})
			if r.Kind != indexer.KindFull || !strings.Contains(r.Reason, "rollback") {
				t.Errorf("build after a rollback = %s (%q), want full because of the rollback", r.Kind, r.Reason)
			}
			indexertest.MatchTable(t, g.ix, g.name, g.tb)
		})
	}
}

// TestIndexer_Build_mergeOnReadPartitioned: equality deletes on a table
// partitioned by city apply within their partition. One on the key (not a
// partition column) reads the key and id columns of its partition's files
// only.
func TestIndexer_Build_mergeOnReadPartitioned(t *testing.T) {
	ctx := context.Background()
	w := icebergtest.MustWarehouse(t)
	tb, err := w.CreatePartitionedTable(ctx, "ns.customers", customerSchema(), []string{"city"},
		iceberg.Properties{"format-version": "2", cowguard.DeleteModeKey: cowguard.MergeOnRead})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := tb.Append(ctx, customerRows(i*8, 8)); err != nil {
			t.Fatal(err)
		}
	}
	cfg := indexertest.Config(t, w, *morSpec())
	f := &fixture{ctx: ctx, tb: tb, ix: indexertest.Open(t, cfg), cfg: cfg, name: "Customer"}
	f.mustBuild(t, indexer.BuildOptions{})
	// Row 4 is in Lisbon; row 5, in Oslo, is named with Lisbon's city so
	// that the delete, in the Lisbon partition, does not reach it.
	// The delete's rows carry the partition column, as iceberg-go wants
	// of a partitioned table; its equality field is the id alone.
	sub, err := tb.T.Schema().Select(true, "id", "city")
	if err != nil {
		t.Fatal(err)
	}
	asc, err := table.SchemaToArrowSchema(sub, nil, false, false)
	if err != nil {
		t.Fatal(err)
	}
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, asc, strings.NewReader(`[{"id": 4, "city": "Lisbon"}, {"id": 5, "city": "Lisbon"}]`))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	err = tb.Commit(ctx, func(tx *table.Transaction) error {
		return tx.CommitEqualityDeletes(ctx, []int{1}, func(yield func(arrow.RecordBatch, error) bool) { yield(rec, nil) }, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	r := f.mustBuild(t, indexer.BuildOptions{})
	wantMOR(t, r, 0, 1, 1, 0, 1)
	if r.EqualityFilesScanned != 3 { // the Lisbon file of each append
		t.Errorf("equalityFilesScanned = %d, want 3", r.EqualityFilesScanned)
	}
	indexertest.MatchTable(t, f.ix, f.name, f.tb)
}
