//go:build integration_jvm

package main

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/internal/testkit/deploytest"
	"github.com/ontoindex/ontoindex/internal/testkit/restcatalog"
	"github.com/ontoindex/ontoindex/internal/testkit/sparktest"
)

// sparkCatalog is the REST catalog's name in Spark; the config names it
// deploytest.CatalogName.
const sparkCatalog = "rest"

// sparkTable is a table Spark writes through the REST catalog and an
// object type over it.
type sparkTable struct {
	ident   string // ns.table
	objType string
}

func (st sparkTable) spark() string { return sparkCatalog + "." + st.ident }

func (st sparkTable) yaml() string {
	return fmt.Sprintf("  - {apiName: %s, table: %s.%s, primaryKey: [id]}\n", st.objType, deploytest.CatalogName, st.ident)
}

// createSparkTable creates the table in Spark: id (the identifier field),
// name, amount and city, every row-level write mode set to mode.
func createSparkTable(tb testing.TB, spark *sparktest.Session, st sparkTable, mode sparktest.WriteMode) {
	tb.Helper()
	spark.MustCreateTable(tb, st.spark(), "id BIGINT NOT NULL, name STRING, amount DOUBLE, city STRING", mode, "id")
}

// currentSnapshot is the table's current snapshot as Spark sees it.
func currentSnapshot(tb testing.TB, spark *sparktest.Session, st sparkTable) int64 {
	tb.Helper()
	return spark.MustCurrentSnapshot(tb, st.spark())
}

// mustMatchSpark checks that the objects of the type are the rows Spark
// reads from snapshot snap of the table: the same keys, each property the
// column's value.
func mustMatchSpark(tb testing.TB, spark *sparktest.Session, cfg string, st sparkTable, snap int64) {
	tb.Helper()
	res := spark.MustSQL(tb, fmt.Sprintf("SELECT * FROM %s VERSION AS OF %d", st.spark(), snap))
	objs := mustExport(tb, cfg, st.objType)
	if len(objs) != len(res.Rows) {
		tb.Errorf("%d objects, Spark reads %d rows at snapshot %d", len(objs), len(res.Rows), snap)
	}
	for _, row := range res.Maps() {
		key := fmt.Sprint(row["id"])
		obj, ok := objs[key]
		if !ok {
			tb.Errorf("no object %s; Spark reads %v", key, row)
			continue
		}
		for col, want := range row {
			if got, want := jsonValue(tb, obj[col]), jsonValue(tb, want); !reflect.DeepEqual(got, want) {
				tb.Errorf("object %s: %s = %#v, Spark reads %#v", key, col, got, want)
			}
		}
	}
}

// jsonValue is v as it decodes from JSON (numbers float64).
func jsonValue(tb testing.TB, v any) any {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		tb.Fatal(err)
	}
	return out
}

// TestSpark runs ontoindex over tables Spark writes through the same REST
// catalog (one Spark session for every case): the copy-on-write
// statements build incrementally to the objects Spark reads from the same
// snapshot, merge-on-read statements are refused until compaction (and
// with mergeOnRead: index build incrementally to what Spark reads), and
// indexer changelog prints what Spark's create_changelog_view returns.
func TestSpark(t *testing.T) {
	d := deploytest.MustREST(t, deploytest.RESTOptions{})
	spark := sparktest.Must(t, sparktest.Options{Catalogs: map[string]sparktest.Catalog{sparkCatalog: sparktest.RESTCatalog(d.Server.URI())}})
	t.Logf("Spark %s, Iceberg Spark runtime %s, REST catalog server: Iceberg %s", spark.Version, sparktest.IcebergVersion, restcatalog.IcebergVersion)
	spark.MustSQL(t, "CREATE NAMESPACE IF NOT EXISTS "+sparkCatalog+".ns")

	t.Run("copy-on-write", func(t *testing.T) {
		st := sparkTable{ident: "ns.sales", objType: "Sale"}
		createSparkTable(t, spark, st, sparktest.CopyOnWrite)
		cfg := d.MustConfig(t, "sales.yaml", deploySections+st.yaml())
		spark.MustSQL(t, "INSERT INTO "+st.spark()+" VALUES (1, 'a', 10.5, 'Oslo'), (2, 'b', 20, 'Lima'), (3, 'c', 30, 'Oslo'), (4, 'd', 40, 'Quito'), (5, 'e', 50, 'Lima'), (6, 'f', 60, 'Oslo')")
		spark.MustSQL(t, "INSERT INTO "+st.spark()+" VALUES (7, 'g', 70, 'Perth'), (8, 'h', 80, 'Oslo'), (9, 'i', 90, 'Lima'), (10, 'j', 100, 'Quito')")
		full := mustDeployBuild(t, cfg, exitOK)[st.objType]
		if full.Kind != indexer.KindFull || full.Upserts != 10 || full.ToSnapshotID != currentSnapshot(t, spark, st) {
			t.Fatalf("full build: %+v", full)
		}
		mustMatchSpark(t, spark, cfg, st, full.ToSnapshotID)

		steps := []struct {
			name             string
			sql              string
			upserts, deletes int64
		}{
			{"merge into", "MERGE INTO " + st.spark() + ` t USING (SELECT * FROM VALUES (2L, 'b2', 21.0, 'Lima'), (11L, 'k', 110.0, 'Oslo') AS s(id, name, amount, city)) s
				ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *`, 2, 0},
			{"update", "UPDATE " + st.spark() + " SET amount = amount * 2 WHERE city = 'Quito'", 2, 0},
			{"delete", "DELETE FROM " + st.spark() + " WHERE id IN (3, 9)", 0, 2},
			{"rewrite_data_files", "CALL " + sparkCatalog + ".system.rewrite_data_files(table => '" + st.ident + "', options => map('rewrite-all', 'true'))", 0, 0},
			{"expire_snapshots", "CALL " + sparkCatalog + ".system.expire_snapshots(table => '" + st.ident + "', older_than => TIMESTAMP '2100-01-01 00:00:00', retain_last => 1)", 0, 0},
			{"insert after expiry", "INSERT INTO " + st.spark() + " VALUES (12, 'l', 120, 'Perth')", 1, 0},
		}
		for _, s := range steps {
			t.Run(s.name, func(t *testing.T) {
				spark.MustSQL(t, s.sql)
				snap := currentSnapshot(t, spark, st)
				r := mustDeployBuild(t, cfg, exitOK)[st.objType]
				if r.Error != nil || r.Kind == indexer.KindFull || r.Upserts != s.upserts || r.Deletes != s.deletes {
					t.Errorf("build: %+v", r)
				}
				if r.Kind != indexer.KindNone && r.ToSnapshotID != snap {
					t.Errorf("build to snapshot %d, Spark's current is %d", r.ToSnapshotID, snap)
				}
				mustMatchSpark(t, spark, cfg, st, snap)
			})
		}
	})

	t.Run("merge-on-read", func(t *testing.T) {
		st := sparkTable{ident: "ns.sales_mor", objType: "SaleMor"}
		createSparkTable(t, spark, st, sparktest.MergeOnRead)
		cfg := d.MustConfig(t, "sales_mor.yaml", deploySections+st.yaml())
		spark.MustSQL(t, "INSERT INTO "+st.spark()+" VALUES (1, 'a', 1, 'Oslo'), (2, 'b', 2, 'Lima'), (3, 'c', 3, 'Oslo'), (4, 'd', 4, 'Quito'), (5, 'e', 5, 'Lima'), (6, 'f', 6, 'Oslo')")
		mustDeployBuild(t, cfg, exitOK)
		for _, s := range []struct{ name, sql string }{
			{"delete", "DELETE FROM " + st.spark() + " WHERE id = 1"},
			{"update", "UPDATE " + st.spark() + " SET amount = 20 WHERE id = 2"},
			{"merge into", "MERGE INTO " + st.spark() + ` t USING (SELECT * FROM VALUES (3L, 'c3', 30.0, 'Oslo'), (7L, 'g', 7.0, 'Perth') AS s(id, name, amount, city)) s
				ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *`},
		} {
			t.Run(s.name, func(t *testing.T) {
				spark.MustSQL(t, s.sql)
				refused := mustDeployBuild(t, cfg, exitFailed)[st.objType]
				if e := refused.Error; e == nil || e.Code != indexer.CodeMergeOnRead || !strings.Contains(e.Message, st.ident) {
					t.Fatalf("build after the merge-on-read %s: %+v", s.name, refused)
				}
				// Compaction applies the deletes; its files sequenced after
				// them, the delete files dangle and go: the next build
				// recovers to what Spark reads.
				spark.MustSQL(t, "CALL "+sparkCatalog+".system.rewrite_data_files(table => '"+st.ident+"', options => map('rewrite-all', 'true', 'use-starting-sequence-number', 'false', 'remove-dangling-deletes', 'true'))")
				r := mustDeployBuild(t, cfg, exitOK)[st.objType]
				if r.Error != nil {
					t.Fatalf("build after compaction: %+v", r)
				}
				mustMatchSpark(t, spark, cfg, st, currentSnapshot(t, spark, st))
			})
		}
	})

	t.Run("merge-on-read index", func(t *testing.T) {
		testSparkMergeOnReadIndex(t, spark, func(name, types string) string { return d.MustConfig(t, name, deploySections+types) })
	})

	t.Run("changelog", func(t *testing.T) {
		testSparkChangelog(t, spark, func(st sparkTable) string {
			return d.MustConfig(t, st.objType+".yaml", deploySections+st.yaml())
		})
	})
}
