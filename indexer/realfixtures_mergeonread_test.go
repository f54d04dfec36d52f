package indexer_test

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"testing"

	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/cowguard"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/internal/testkit/fixtures"
	"github.com/ontoindex/ontoindex/objects"
)

// fxExpectedRows is the row count a fixture's PROVENANCE expects of its
// current snapshot.
func fxExpectedRows(tb testing.TB, name string) int {
	tb.Helper()
	m := regexp.MustCompile(`(\d+) rows`).FindStringSubmatch(fixtures.MustProvenance(tb, name).Get("expected"))
	if m == nil {
		tb.Fatalf("%s: PROVENANCE has no expected row count", name)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestRealFixture_MergeOnReadIndex builds the merge-on-read tables that
// Spark, Trino and PyIceberg wrote with mergeOnRead: index: snapshot by
// snapshot along the main branch (each build incremental from the one
// before), then in full; every build's objects are the rows iceberg-go's
// scan reads, and the current snapshot has the rows PROVENANCE expects.
// (The one real table with equality deletes, Flink's, has manifests
// iceberg-go cannot read: TestRealFixture_StrippedAvroHeaders.)
func TestRealFixture_MergeOnReadIndex(t *testing.T) {
	ctx := context.Background()
	type fxCase struct {
		name, key string
		walk      bool // build every snapshot of the main branch (the others lack old files or repeat keys)
	}
	// pg_lake_spark_v2_posdeletes holds its one column's values more than
	// once (110 rows of ids 1 to 100): no key is unique, and the build
	// must say so as for a copy-on-write table.
	const duplicates = "pg_lake_spark_v2_posdeletes"
	cases := []fxCase{
		{"iceberg_cxx_trino476_dangling_deletes", "c1", true},
		{"pyiceberg_upsert_cow_target", "order_id", true},
	}
	for _, tc := range fxMorFixtures() {
		// duckdb_spark_generated_spec2_0_001 has no unique key (iceberg-go's
		// scan reads 6592 rows of 5456 uuids), and its copy here has no
		// data files: only its refusal is tested.
		if tc.name != "duckdb_spark_generated_spec2_0_001" {
			cases = append(cases, fxCase{tc.name, tc.key, tc.walk})
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tbl := fixtures.MustLoad(t, tc.name)
			spec := fxSpec(t, "Mor", tc.name, tc.key)
			spec.MergeOnRead = objects.MergeOnReadIndex
			ix := fxMustIndexer(t, spec)
			if tc.name == duplicates {
				_, err := ix.Build(ctx, "Mor", indexer.BuildOptions{})
				var dup *changelog.DuplicateKeyError
				if !errors.As(err, &dup) {
					t.Fatalf("build err = %v, want duplicate keys", err)
				}
				return
			}
			r, err := ix.Check(ctx, "Mor")
			if err != nil || r.Verdict != cowguard.VerdictOK {
				t.Errorf("check = %s %q (%v), want ok", r.Verdict, r.Message, err)
			}
			var applied int
			var incremental int
			history := fxMainHistory(t, tbl)
			if !tc.walk {
				history = history[len(history)-1:]
			}
			for _, s := range history {
				res := fxBuild(t, ix, "Mor", s.SnapshotID)
				if res.Kind == indexer.KindIncremental {
					incremental++
				}
				applied += res.DeleteFilesRead
				fxAssertIndexEqualsTable(t, ix, "Mor", tbl, s.SnapshotID)
			}
			cur := tbl.CurrentSnapshot().SnapshotID
			res, err := ix.Build(ctx, "Mor", indexer.BuildOptions{Full: true})
			if err != nil {
				t.Fatal(err)
			}
			rows := fxAssertIndexEqualsTable(t, ix, "Mor", tbl, cur)
			if want := fxExpectedRows(t, tc.name); len(rows) != want {
				t.Errorf("%d objects at the current snapshot, PROVENANCE expects %d", len(rows), want)
			}
			t.Logf("%d incremental builds read %d delete files; the full build read %d", incremental, applied, res.DeleteFilesRead)
		})
	}
}
