//go:build integration_jvm

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/internal/testkit/sparktest"
)

// changelogMode is one way to ask for a changelog, said for both sides.
type changelogMode struct {
	name  string
	flags []string // of indexer changelog
	spark string   // create_changelog_view arguments
}

var changelogModes = []changelogMode{
	{"raw", nil, ""},
	{"identifier columns", []string{"--id", "id"}, ", identifier_columns => array('id')"},
	{"net changes", []string{"--net"}, ", net_changes => true"},
}

// canonicalRow is a changelog row as one comparable string: its columns
// in name order, numbers as JSON writes them.
func canonicalRow(tb testing.TB, row map[string]any) string {
	tb.Helper()
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(row)) {
		v, err := json.Marshal(row[k])
		if err != nil {
			tb.Fatal(err)
		}
		fmt.Fprintf(&b, "%s=%s ", k, v)
	}
	return strings.TrimSpace(b.String())
}

// indexerChangelog is `indexer changelog` of the range, canonical rows.
func indexerChangelog(tb testing.TB, cfg, typ string, from, to int64, flags []string) []string {
	tb.Helper()
	args := append([]string{"changelog", "--config", cfg, "--type", typ, "--to", fmt.Sprint(to)}, flags...)
	if from != 0 {
		args = append(args, "--from", fmt.Sprint(from))
	}
	code, out, errOut := run(args...)
	if code != exitOK {
		tb.Fatalf("indexer %s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	var rows []string
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	for dec.More() {
		var row map[string]any
		if err := dec.Decode(&row); err != nil {
			tb.Fatalf("changelog line: %v\n%s", err, out)
		}
		rows = append(rows, canonicalRow(tb, row))
	}
	slices.Sort(rows)
	return rows
}

// sparkChangelog is create_changelog_view's rows for the range, canonical.
func sparkChangelog(tb testing.TB, spark *sparktest.Session, st sparkTable, view string, from, to int64, args string) []string {
	tb.Helper()
	opts := fmt.Sprintf("'end-snapshot-id', '%d'", to)
	if from != 0 {
		opts = fmt.Sprintf("'start-snapshot-id', '%d', ", from) + opts
	}
	res := spark.MustSQL(tb,
		fmt.Sprintf("CALL %s.system.create_changelog_view(table => '%s', options => map(%s), changelog_view => '%s'%s)", sparkCatalog, st.ident, opts, view, args),
		"SELECT * FROM "+view)
	var rows []string
	for _, m := range res.Maps() {
		// JSON numbers as both sides print them.
		b, err := json.Marshal(m)
		if err != nil {
			tb.Fatal(err)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var row map[string]any
		if err := dec.Decode(&row); err != nil {
			tb.Fatal(err)
		}
		rows = append(rows, canonicalRow(tb, row))
	}
	slices.Sort(rows)
	return rows
}

// diffRows says which rows one side has and the other lacks.
func diffRows(ours, theirs []string) (onlyOurs, onlyTheirs []string) {
	count := map[string]int{}
	for _, r := range theirs {
		count[r]++
	}
	for _, r := range ours {
		if count[r] > 0 {
			count[r]--
		} else {
			onlyOurs = append(onlyOurs, r)
		}
	}
	for _, r := range slices.Sorted(maps.Keys(count)) {
		for range count[r] {
			onlyTheirs = append(onlyTheirs, r)
		}
	}
	return onlyOurs, onlyTheirs
}

// testSparkChangelog writes a history with Spark and compares indexer
// changelog with create_changelog_view over ranges of it, in each mode.
func testSparkChangelog(t *testing.T, spark *sparktest.Session, cfgOf func(sparkTable) string) {
	st := sparkTable{ident: "ns.events", objType: "Event"}
	createSparkTable(t, spark, st, sparktest.CopyOnWrite)
	cfg := cfgOf(st)
	var snaps []int64 // after each statement
	for _, stmt := range []string{
		"INSERT INTO " + st.spark() + " VALUES (1, 'a', 1, 'Oslo'), (2, 'b', 2, 'Lima'), (3, 'c', 3, 'Oslo'), (4, 'd', 4, 'Quito')",
		"INSERT INTO " + st.spark() + " VALUES (5, 'e', 5, 'Oslo'), (6, 'f', 6, 'Lima')",
		"MERGE INTO " + st.spark() + ` t USING (SELECT * FROM VALUES (2L, 'b2', 20.0, 'Lima'), (7L, 'g', 7.0, 'Perth') AS s(id, name, amount, city)) s
			ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *`,
		"UPDATE " + st.spark() + " SET amount = amount + 100 WHERE city = 'Oslo'",
		"DELETE FROM " + st.spark() + " WHERE id = 4",
		"CALL " + sparkCatalog + ".system.rewrite_data_files(table => '" + st.ident + "', options => map('rewrite-all', 'true'))",
		"INSERT INTO " + st.spark() + " VALUES (4, 'd', 4, 'Quito')", // the row deleted above, again
		"DELETE FROM " + st.spark() + " WHERE id = 6",
		"INSERT INTO " + st.spark() + " VALUES (8, NULL, NULL, 'Lima')",
		"UPDATE " + st.spark() + " SET city = 'Oslo' WHERE id = 8",
		"UPDATE " + st.spark() + " SET amount = amount WHERE city = 'Lima'", // rewrites rows unchanged: carry-overs only
	} {
		spark.MustSQL(t, stmt)
		snaps = append(snaps, currentSnapshot(t, spark, st))
	}
	ranges := []struct {
		name     string
		from, to int64
	}{
		{"all", 0, snaps[10]},
		{"merge to delete", snaps[1], snaps[4]},
		{"update to the end, over the compaction", snaps[2], snaps[7]},
		{"the compaction and the reinsert", snaps[4], snaps[6]},
		{"nulls and an update that changes nothing", snaps[7], snaps[10]},
	}
	view := 0
	for _, r := range ranges {
		for _, m := range changelogModes {
			t.Run(r.name+"/"+m.name, func(t *testing.T) {
				view++
				ours := indexerChangelog(t, cfg, st.objType, r.from, r.to, m.flags)
				theirs := sparkChangelog(t, spark, st, fmt.Sprintf("changes_%d", view), r.from, r.to, m.spark)
				onlyOurs, onlyTheirs := diffRows(ours, theirs)
				if len(onlyOurs)+len(onlyTheirs) > 0 {
					t.Errorf("indexer changelog (%d rows) and Spark's create_changelog_view (%d rows) differ:\nonly indexer:\n  %s\nonly Spark:\n  %s",
						len(ours), len(theirs), strings.Join(onlyOurs, "\n  "), strings.Join(onlyTheirs, "\n  "))
				}
				if len(ours) == 0 || !strings.Contains(ours[0], "_change_ordinal=") || !strings.Contains(ours[0], "_commit_snapshot_id=") {
					t.Errorf("changes in the range: %q", ours)
				}
				t.Logf("%d rows alike; the first: %s", len(ours), ours[0])
			})
		}
	}
}
