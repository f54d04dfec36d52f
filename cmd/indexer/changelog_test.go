package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/cowguard"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

// changelogFixture is a table ns.people in dir/warehouse with three
// snapshots: Ada and Bob are added (s1), Bob becomes Bea (s2, a
// copy-on-write rewrite that carries Ada over), Ada is deleted (s3).
type changelogFixture struct {
	dir        string
	warehouse  string
	config     string
	tbl        *icebergtest.Table
	s1, s2, s3 int64
}

func mustChangelogFixture(tb testing.TB, identifier bool, props iceberg.Properties) *changelogFixture {
	tb.Helper()
	ctx := context.Background()
	fx := &changelogFixture{dir: tb.TempDir()}
	fx.warehouse = filepath.Join(fx.dir, "warehouse")
	w, err := icebergtest.NewWarehouse(fx.warehouse)
	if err != nil {
		tb.Fatal(err)
	}
	fields := []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
	}
	sc := iceberg.NewSchema(0, fields...)
	if identifier {
		sc = iceberg.NewSchemaWithIdentifiers(0, []int{1}, fields...)
	}
	if fx.tbl, err = w.CreateTable(ctx, "ns.people", sc, props); err != nil {
		tb.Fatal(err)
	}
	byID := func(id int64) iceberg.BooleanExpression { return iceberg.EqualTo(iceberg.Reference("id"), id) }
	steps := []func() error{
		func() error {
			return fx.tbl.Append(ctx, []icebergtest.Row{{"id": 1, "name": "Ada"}, {"id": 2, "name": "Bob"}})
		},
		func() error { return fx.tbl.Overwrite(ctx, byID(2), []icebergtest.Row{{"id": 2, "name": "Bea"}}) },
		func() error { return fx.tbl.Delete(ctx, byID(1)) },
	}
	snaps := []*int64{&fx.s1, &fx.s2, &fx.s3}
	for i, step := range steps {
		if err := step(); err != nil {
			tb.Fatal(err)
		}
		*snaps[i] = fx.tbl.Snapshot()
	}
	fx.config = mustFile(tb, filepath.Join(fx.dir, "ontology.yaml"), `
dataDir: ./data
catalogs:
  lake: {type: hadoop, warehouse: ./warehouse}
objectTypes:
  - apiName: Person
    table: lake.ns.people
    primaryKey: [personId]
    properties:
      personId: {column: id}
      name: {column: name}
`)
	return fx
}

func (fx *changelogFixture) catalogArgs(args ...string) []string {
	return append([]string{"changelog", "--catalog-type", "hadoop", "--warehouse", fx.warehouse, "--table", "ns.people"}, args...)
}

// jsonRow renders an expected JSON line in column order.
func jsonRow(id int64, name, typ string, ordinal int, snap int64) string {
	return fmt.Sprintf(`{"id":%d,"name":%q,"_change_type":%q,"_change_ordinal":%d,"_commit_snapshot_id":%d}`, id, name, typ, ordinal, snap)
}

func TestRunChangelog(t *testing.T) {
	fx := mustChangelogFixture(t, true, nil)
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"whole history", fx.catalogArgs(), []string{
			jsonRow(1, "Ada", "INSERT", 0, fx.s1),
			jsonRow(2, "Bob", "INSERT", 0, fx.s1),
			jsonRow(2, "Bob", "DELETE", 1, fx.s2),
			jsonRow(2, "Bea", "INSERT", 1, fx.s2),
			jsonRow(1, "Ada", "DELETE", 2, fx.s3),
		}},
		{"identifier columns", fx.catalogArgs("--id", "id"), []string{
			jsonRow(1, "Ada", "INSERT", 0, fx.s1),
			jsonRow(2, "Bob", "INSERT", 0, fx.s1),
			jsonRow(2, "Bob", "UPDATE_BEFORE", 1, fx.s2),
			jsonRow(2, "Bea", "UPDATE_AFTER", 1, fx.s2),
			jsonRow(1, "Ada", "DELETE", 2, fx.s3),
		}},
		{"compute updates by identifier fields", fx.catalogArgs("--compute-updates", "--from", fmt.Sprint(fx.s1), "--to", fmt.Sprint(fx.s2)), []string{
			jsonRow(2, "Bob", "UPDATE_BEFORE", 0, fx.s2),
			jsonRow(2, "Bea", "UPDATE_AFTER", 0, fx.s2),
		}},
		{"only start", fx.catalogArgs("--from", fmt.Sprint(fx.s2)), []string{
			jsonRow(1, "Ada", "DELETE", 0, fx.s3),
		}},
		{"only end", fx.catalogArgs("--to", fmt.Sprint(fx.s1)), []string{
			jsonRow(1, "Ada", "INSERT", 0, fx.s1),
			jsonRow(2, "Bob", "INSERT", 0, fx.s1),
		}},
		{"net", fx.catalogArgs("--net"), []string{
			jsonRow(2, "Bea", "INSERT", 1, fx.s2),
		}},
		{"latest", fx.catalogArgs("--latest", "--from", fmt.Sprint(fx.s1)), []string{
			jsonRow(2, "Bea", "UPDATE_AFTER", 0, fx.s2),
			jsonRow(1, "Ada", "DELETE", 1, fx.s3),
		}},
		{"config and object type", []string{"changelog", "--config", fx.config, "--type", "Person", "--from", fmt.Sprint(fx.s1), "--format", "jsonl"}, []string{
			jsonRow(2, "Bob", "DELETE", 0, fx.s2),
			jsonRow(2, "Bea", "INSERT", 0, fx.s2),
			jsonRow(1, "Ada", "DELETE", 1, fx.s3),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(tt.args...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			got := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			if stdout == "" {
				got = nil
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("stdout:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			for _, line := range got {
				// Valid JSON, with snapshot ids as exact integers.
				var m map[string]any
				dec := json.NewDecoder(strings.NewReader(line))
				dec.UseNumber()
				if err := dec.Decode(&m); err != nil {
					t.Fatalf("line %s is not a JSON object: %v", line, err)
				}
				if n, ok := m["_commit_snapshot_id"].(json.Number); !ok || !slices.Contains([]string{fmt.Sprint(fx.s1), fmt.Sprint(fx.s2), fmt.Sprint(fx.s3)}, n.String()) {
					t.Errorf("line %s: _commit_snapshot_id is not one of the snapshots", line)
				}
			}
		})
	}
}

func TestRunChangelog_objectTypeKey(t *testing.T) {
	// A table without identifier fields: --compute-updates and --latest use
	// the object type's primary key (a property apiName mapped to column
	// id); the catalog flags have no key to use.
	fx := mustChangelogFixture(t, false, nil)
	from := fmt.Sprint(fx.s1)
	code, stdout, stderr := run("changelog", "--config", fx.config, "--type", "Person", "--from", from, "--compute-updates")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := strings.Join([]string{
		jsonRow(2, "Bob", "UPDATE_BEFORE", 0, fx.s2),
		jsonRow(2, "Bea", "UPDATE_AFTER", 0, fx.s2),
		jsonRow(1, "Ada", "DELETE", 1, fx.s3),
	}, "\n") + "\n"
	if stdout != want {
		t.Errorf("stdout:\n%s\nwant\n%s", stdout, want)
	}
	code, stdout, stderr = run("changelog", "--config", fx.config, "--type", "Person", "--from", from, "--latest")
	if want := jsonRow(2, "Bea", "UPDATE_AFTER", 0, fx.s2) + "\n" + jsonRow(1, "Ada", "DELETE", 1, fx.s3) + "\n"; code != exitOK || stdout != want {
		t.Errorf("--latest: exit %d, stdout:\n%s\nwant\n%s\nstderr: %s", code, stdout, want, stderr)
	}
	code, _, stderr = run(fx.catalogArgs("--compute-updates")...)
	if code != exitUsage || !strings.Contains(stderr, "no identifier fields") {
		t.Errorf("--compute-updates without any key: exit %d, stderr %q; want a usage error about identifier fields", code, stderr)
	}
}

func TestRunChangelog_table(t *testing.T) {
	fx := mustChangelogFixture(t, true, nil)
	code, stdout, stderr := run(fx.catalogArgs("--format", "table", "--id", "id")...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != 6 {
		t.Fatalf("table:\n%s\nwant a header and 5 rows", stdout)
	}
	if got := strings.Fields(lines[0]); !slices.Equal(got, []string{"ID", "NAME", "CHANGE_TYPE", "CHANGE_ORDINAL", "COMMIT_SNAPSHOT_ID"}) {
		t.Errorf("header = %v", got)
	}
	if got, want := strings.Fields(lines[4]), []string{"2", "Bea", "UPDATE_AFTER", "1", fmt.Sprint(fx.s2)}; !slices.Equal(got, want) {
		t.Errorf("row 4 = %v, want %v", got, want)
	}
	// Columns are aligned: every line has its change type at one offset.
	at := strings.Index(lines[0], "CHANGE_TYPE")
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l[at:], "INSERT") && !strings.HasPrefix(l[at:], "DELETE") && !strings.HasPrefix(l[at:], "UPDATE_") {
			t.Errorf("line %q is not aligned with the header", l)
		}
	}
	if !strings.Contains(stderr, "5 changes (2 inserts, 1 deletes, 1 updates) in 3 snapshots") {
		t.Errorf("summary on stderr = %q", stderr)
	}
}

func TestRunChangelog_errors(t *testing.T) {
	fx := mustChangelogFixture(t, true, nil)
	mor := mustChangelogFixture(t, true, iceberg.Properties{"format-version": "2", cowguard.DeleteModeKey: cowguard.MergeOnRead})
	if err := mor.tbl.Append(context.Background(), []icebergtest.Row{{"id": 3, "name": "Cy"}, {"id": 4, "name": "Di"}}); err != nil {
		t.Fatal(err)
	}
	if err := mor.tbl.Delete(context.Background(), iceberg.EqualTo(iceberg.Reference("id"), int64(3))); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr []string // substrings
	}{
		{"no table", []string{"changelog"}, exitUsage, []string{"--config F --type T"}},
		{"config and catalog", []string{"changelog", "--config", fx.config, "--type", "Person", "--table", "ns.people"}, exitUsage, []string{"either"}},
		{"config without type", []string{"changelog", "--config", fx.config}, exitUsage, []string{"--config and --type go together"}},
		{"catalog without table", []string{"changelog", "--catalog-type", "hadoop", "--warehouse", fx.warehouse}, exitUsage, []string{"--table"}},
		{"unknown object type", []string{"changelog", "--config", fx.config, "--type", "Nobody"}, exitUsage, []string{`"Nobody"`, "Person"}},
		{"bad format", fx.catalogArgs("--format", "xml"), exitUsage, []string{`"xml"`}},
		{"empty identifier", fx.catalogArgs("--id", "id,"), exitUsage, []string{"empty column"}},
		{"unknown identifier", fx.catalogArgs("--id", "nope"), exitUsage, []string{`"nope"`}},
		{"net with identifiers", fx.catalogArgs("--net", "--id", "id"), exitUsage, []string{"net changes cannot be combined with update images"}},
		{"net and latest", fx.catalogArgs("--net", "--latest"), exitUsage, []string{"cannot be combined"}},
		{"unknown snapshot", fx.catalogArgs("--from", "123"), exitUsage, []string{"snapshot 123", "not in the table's metadata"}},
		{"equal bounds", fx.catalogArgs("--from", fmt.Sprint(fx.s2), "--to", fmt.Sprint(fx.s2)), exitUsage, []string{fmt.Sprint(fx.s2), "empty"}},
		{"reversed bounds", fx.catalogArgs("--from", fmt.Sprint(fx.s3), "--to", fmt.Sprint(fx.s1)), exitUsage, []string{"not an ancestor"}},
		{"unknown table", []string{"changelog", "--catalog-type", "hadoop", "--warehouse", fx.warehouse, "--table", "ns.nobody"}, exitFailed, []string{"ns.nobody"}},
		{"merge-on-read", mor.catalogArgs(), exitFailed, []string{"merge-on-read", "copy-on-write", fmt.Sprint(mor.tbl.Snapshot())}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tt.code, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr %q does not contain %q", stderr, s)
				}
			}
		})
	}
	t.Run("help", func(t *testing.T) {
		code, _, stderr := run("changelog", "-h")
		if code != exitOK || !strings.Contains(stderr, "--compute-updates") || !strings.Contains(stderr, "jsonl|table") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
		_, _, stderr = run("help")
		if !strings.Contains(stderr, "changelog") {
			t.Errorf("usage does not list changelog: %q", stderr)
		}
	})
}

func TestRunChangelog_nextToIndexer(t *testing.T) {
	// The changelog does not open the data dir, so it runs while an
	// indexer (a daemon, say) holds it.
	fx := mustChangelogFixture(t, true, nil)
	cfg, err := config.Load(fx.config)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := indexer.Open(context.Background(), cfg, indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	code, stdout, stderr := run("changelog", "--config", fx.config, "--type", "Person", "--to", fmt.Sprint(fx.s1))
	if code != exitOK || strings.Count(stdout, "\n") != 2 {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
