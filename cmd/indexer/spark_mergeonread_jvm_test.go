//go:build integration_jvm

package main

import (
	"fmt"
	"testing"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/internal/testkit/deploytest"
	"github.com/ontoindex/ontoindex/internal/testkit/sparktest"
)

// testSparkMergeOnReadIndex runs a sequence of merge-on-read statements
// Spark writes (position deletes on format 2, deletion vectors on format
// 3) under `mergeOnRead: index`: after each, the build is incremental,
// counts the delete files it read and the positions it applied, and every
// object equals the row Spark reads at the build's snapshot. It shares
// TestSpark's session; config writes a config file of the given object
// types and returns its path.
func testSparkMergeOnReadIndex(t *testing.T, spark *sparktest.Session, config func(name, types string) string) {
	for _, format := range []struct {
		version    int
		deleteFile string // the file format of the delete files Spark writes
	}{
		{2, "PARQUET"}, // position delete files
		{3, "PUFFIN"},  // deletion vectors
	} {
		t.Run(fmt.Sprintf("format %d", format.version), func(t *testing.T) {
			st := sparkTable{ident: fmt.Sprintf("ns.sales_mor_v%d", format.version), objType: fmt.Sprintf("SaleMorV%d", format.version)}
			createSparkTable(t, spark, st, sparktest.MergeOnRead)
			if format.version != 2 {
				spark.MustSQL(t, fmt.Sprintf("ALTER TABLE %s SET TBLPROPERTIES ('format-version'='%d')", st.spark(), format.version))
			}
			cfg := config(st.objType+".yaml", fmt.Sprintf("  - {apiName: %s, table: %s, primaryKey: [id], mergeOnRead: index}\n", st.objType, deploytest.CatalogName+"."+st.ident))
			spark.MustSQL(t, "INSERT INTO "+st.spark()+" VALUES (1, 'a', 10.5, 'Oslo'), (2, 'b', 20, 'Lima'), (3, 'c', 30, 'Oslo'), (4, 'd', 40, 'Quito'), (5, 'e', 50, 'Lima'), (6, 'f', 60, 'Oslo')")
			full := mustDeployBuild(t, cfg, exitOK)[st.objType]
			if full.Kind != indexer.KindFull || full.Upserts != 6 || full.ToSnapshotID != currentSnapshot(t, spark, st) {
				t.Fatalf("full build: %+v", full)
			}
			mustMatchSpark(t, spark, cfg, st, full.ToSnapshotID)

			steps := []struct {
				name             string
				sql              string
				upserts, deletes int64
				// What the statement writes: delete files, or only data
				// files (the build must then read no delete file).
				writesDeletes, appends bool
			}{
				{"insert", "INSERT INTO " + st.spark() + " VALUES (7, 'g', 70, 'Perth'), (8, 'h', 80, 'Oslo'), (9, 'i', 90, 'Lima'), (10, 'j', 100, 'Quito')", 4, 0, false, true},
				// One row of each data file.
				{"delete", "DELETE FROM " + st.spark() + " WHERE id IN (3, 9)", 0, 2, true, false},
				// Rows of files that have deletes already (a deletion
				// vector merges the file's earlier one).
				{"update", "UPDATE " + st.spark() + " SET amount = amount * 2 WHERE city = 'Quito'", 2, 0, true, false},
				{"merge into", "MERGE INTO " + st.spark() + ` t USING (SELECT * FROM VALUES (2L, 'b2', 21.0, 'Lima', 'u'), (5L, 'e', 50.0, 'Lima', 'd'), (11L, 'k', 110.0, 'Oslo', 'u') AS s(id, name, amount, city, op)) s
					ON t.id = s.id
					WHEN MATCHED AND s.op = 'd' THEN DELETE
					WHEN MATCHED THEN UPDATE SET t.name = s.name, t.amount = s.amount, t.city = s.city
					WHEN NOT MATCHED THEN INSERT (id, name, amount, city) VALUES (s.id, s.name, s.amount, s.city)`, 2, 1, true, false},
				{"re-insert a deleted key", "INSERT INTO " + st.spark() + " VALUES (3, 'c2', 33, 'Oslo')", 1, 0, false, true},
				// Iceberg's defaults: the rewritten files keep the
				// starting sequence number, the delete files stay live
				// (dangling on files no longer there).
				{"rewrite_data_files", "CALL " + sparkCatalog + ".system.rewrite_data_files(table => '" + st.ident + "', options => map('rewrite-all', 'true'))", 0, 0, false, false},
			}
			for _, s := range steps {
				t.Run(s.name, func(t *testing.T) {
					spark.MustSQL(t, s.sql)
					snap := currentSnapshot(t, spark, st)
					if s.writesDeletes {
						mustDeleteFilesOf(t, spark, st, snap, format.deleteFile)
					}
					r := mustDeployBuild(t, cfg, exitOK)[st.objType]
					t.Logf("build: %d delete files read, %d positions applied, %d files and %d bytes read, %d upserts, %d deletes, %d ms",
						r.DeleteFilesRead, r.PositionsApplied, r.FilesRead, r.BytesRead, r.Upserts, r.Deletes, r.DurationMs)
					if r.Error != nil || r.Kind != indexer.KindIncremental || r.Upserts != s.upserts || r.Deletes != s.deletes {
						t.Errorf("build: %+v", r)
					}
					if r.ToSnapshotID != snap {
						t.Errorf("build to snapshot %d, Spark's current is %d", r.ToSnapshotID, snap)
					}
					if s.writesDeletes && (r.DeleteFilesRead == 0 || r.PositionsApplied == 0) {
						t.Errorf("the build applied no deletes of the %s: %+v", s.name, r)
					}
					if s.appends && (r.DeleteFilesRead != 0 || r.PositionsApplied != 0) {
						t.Errorf("an append read delete files: %+v", r)
					}
					mustMatchSpark(t, spark, cfg, st, snap)
				})
			}
		})
	}
}

// mustDeleteFilesOf checks that snapshot snap of the table has live delete
// files, all of file format want (PARQUET position deletes, PUFFIN
// deletion vectors), so the step tests the kind of delete it means to.
func mustDeleteFilesOf(tb testing.TB, spark *sparktest.Session, st sparkTable, snap int64, want string) {
	tb.Helper()
	res := spark.MustSQL(tb, fmt.Sprintf("SELECT file_format, count(*) AS files FROM %s.delete_files VERSION AS OF %d GROUP BY file_format", st.spark(), snap))
	rows := res.Maps()
	if len(rows) != 1 || rows[0]["file_format"] != want {
		tb.Fatalf("delete files at snapshot %d: %v, want %s only", snap, rows, want)
	}
}
