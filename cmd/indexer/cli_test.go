package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

// run runs the command line in-process.
func run(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Main(context.Background(), args, &Env{Stdout: &out, Stderr: &errb})
	return code, out.String(), errb.String()
}

func mustFile(tb testing.TB, path, text string) string {
	tb.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// mustWarehouse writes table ns.people (id, name) with 3 files of 4 rows
// into dir/warehouse and a config for it; it returns the config path.
func mustWarehouse(tb testing.TB, dir string, props iceberg.Properties) (string, *icebergtest.Table) {
	tb.Helper()
	ctx := context.Background()
	w, err := icebergtest.NewWarehouse(filepath.Join(dir, "warehouse"))
	if err != nil {
		tb.Fatal(err)
	}
	sc := iceberg.NewSchemaWithIdentifiers(1, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String})
	tbl, err := w.CreateTable(ctx, "ns.people", sc, props)
	if err != nil {
		tb.Fatal(err)
	}
	for f := range 3 {
		var rows []icebergtest.Row
		for i := range 4 {
			rows = append(rows, icebergtest.Row{"id": f*4 + i, "name": fmt.Sprint("person ", f*4+i)})
		}
		if err := tbl.Append(ctx, rows); err != nil {
			tb.Fatal(err)
		}
	}
	cfg := mustFile(tb, filepath.Join(dir, "ontology.yaml"), `
dataDir: ./data
catalogs:
  lake: {type: hadoop, warehouse: ./warehouse}
objectTypes:
  - apiName: Person
    table: lake.ns.people
    titleProperty: name
`)
	return cfg, tbl
}

func TestMain_build(t *testing.T) {
	dir := t.TempDir()
	cfg, tbl := mustWarehouse(t, dir, nil)

	code, out, errOut := run("build", "--config", cfg, "--json")
	if code != exitOK {
		t.Fatalf("build exit %d: %s", code, errOut)
	}
	var res []indexer.BuildResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Kind != indexer.KindFull || res[0].Upserts != 12 || res[0].FilesRead != 3 || res[0].ToSnapshotID != tbl.T.CurrentSnapshot().SnapshotID {
		t.Errorf("results = %+v", res)
	}
	// Snapshot ids are strings, which jq and JavaScript keep exact.
	var doubles []map[string]any
	if err := json.Unmarshal([]byte(out), &doubles); err != nil {
		t.Fatal(err)
	}
	if got := doubles[0]; got["toSnapshotId"] != strconv.FormatInt(res[0].ToSnapshotID, 10) || got["fromSnapshotId"] != "0" {
		t.Errorf("snapshot ids of build --json are not strings: %s", out)
	}
	ctx := context.Background()
	if err := tbl.Delete(ctx, iceberg.EqualTo(iceberg.Reference("id"), int64(5))); err != nil {
		t.Fatal(err)
	}
	code, out, _ = run("build", "--config", cfg, "--type", "Person")
	if code != exitOK || !strings.Contains(out, "incremental") || !strings.Contains(out, "Person") {
		t.Errorf("human output (exit %d):\n%s", code, out)
	}
	// The human output says why a build was full.
	code, out, _ = run("build", "--config", cfg, "--type", "Person", "--full")
	if code != exitOK || !strings.Contains(out, "Person: full build (readMode changelog): --full") {
		t.Errorf("human output of a forced full build (exit %d):\n%s", code, out)
	}

	code, out, errOut = run("export", "--config", cfg, "--type", "Person")
	if code != exitOK {
		t.Fatalf("export exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 11 {
		t.Fatalf("export printed %d lines", len(lines))
	}
	var first map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	if first["__primaryKey"] != float64(0) || first["__apiName"] != "Person" || first["__title"] != "person 0" || first["name"] != "person 0" {
		t.Errorf("first object = %v", first)
	}
	if !strings.Contains(lines[5], `"id":6`) { // 0..4, then 6: sorted by key, 5 deleted
		t.Errorf("line 6 = %s", lines[5])
	}
}

func TestMain_exitCodes(t *testing.T) {
	dir := t.TempDir()
	cfg, tbl := mustWarehouse(t, dir, iceberg.Properties{"write.delete.mode": "merge-on-read"})
	tests := []struct {
		name string
		args []string
		code int
		want string // in stderr or stdout
	}{
		{"no command", nil, exitUsage, "usage: indexer"},
		{"unknown command", []string{"frobnicate"}, exitUsage, `unknown command "frobnicate"`},
		{"missing config", []string{"build"}, exitUsage, "--config is required"},
		{"bad flag", []string{"build", "--nope"}, exitUsage, "flag provided but not defined"},
		{"config error", []string{"build", "--config", mustFile(t, filepath.Join(dir, "bad.yaml"), "objectTypes: [{apiName: X, table: t}]\n")}, exitUsage, "objectTypes[0].table"},
		{"unknown type", []string{"build", "--config", cfg, "--type", "Nope"}, exitUsage, `--type "Nope" is not an object type`},
		{"snapshot without type", []string{"build", "--config", cfg, "--snapshot", "5"}, exitUsage, "--snapshot needs --type"},
		{"check ok before any delete", []string{"check", "--config", cfg}, exitOK, "warn"},
		{"version", []string{"version"}, exitOK, "indexer "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := run(tt.args...)
			if code != tt.code || !strings.Contains(out+errOut, tt.want) {
				t.Errorf("exit %d (want %d), output:\n%s%s", code, tt.code, out, errOut)
			}
		})
	}
	// A merge-on-read delete: check fails, build is refused with exit 1.
	if err := tbl.Delete(context.Background(), iceberg.EqualTo(iceberg.Reference("id"), int64(1))); err != nil {
		t.Fatal(err)
	}
	code, out, _ := run("check", "--config", cfg, "--json")
	var rep struct {
		Verdict     string           `json:"verdict"`
		ObjectTypes []map[string]any `json:"objectTypes"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitFailed || len(rep.ObjectTypes) != 1 {
		t.Fatalf("check exit %d: %s", code, out)
	}
	if r := rep.ObjectTypes[0]; rep.Verdict != "fail" || r["verdict"] != "fail" || r["liveDeleteFiles"].(map[string]any)["position"] != float64(1) {
		t.Errorf("report = %v", rep)
	}
	code, out, errOut := run("build", "--config", cfg)
	if code != exitFailed || !strings.Contains(out, "MERGE_ON_READ") || !strings.Contains(errOut, "indexer build: object type Person: ") || !strings.Contains(errOut, "copy-on-write") {
		t.Errorf("build exit %d:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestCommandTable checks every command of the table: a unique name, a
// summary, and `-h` answering with exit 0 and a usage line of its own.
func TestCommandTable(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range commandTable() {
		t.Run(c.Name, func(t *testing.T) {
			if c.Name == "" || strings.ContainsAny(c.Name, " \t") || seen[c.Name] {
				t.Fatalf("name %q is empty, not one word, or not unique", c.Name)
			}
			seen[c.Name] = true
			if c.Summary == "" || c.Run == nil {
				t.Errorf("%s: summary %q, Run set %v", c.Name, c.Summary, c.Run != nil)
			}
			code, out, errOut := run(c.Name, "-h")
			first, _, _ := strings.Cut(errOut, "\n")
			if code != exitOK || out != "" || !strings.HasPrefix(first+" ", "usage: indexer "+c.Name+" ") {
				t.Errorf("%s -h: exit %d, stdout %q, stderr:\n%s", c.Name, code, out, errOut)
			}
		})
	}
}

// TestMain_usage checks that the usage lists every command with its
// summary, sorted by name.
func TestMain_usage(t *testing.T) {
	code, out, errOut := run("help")
	if code != exitOK || out != "" {
		t.Fatalf("help: exit %d, stdout %q", code, out)
	}
	_, list, ok := strings.Cut(errOut, "commands:\n")
	if !ok {
		t.Fatalf("no command list in:\n%s", errOut)
	}
	list, _, _ = strings.Cut(list, "\n\n")
	var want []string
	for _, c := range commandTable() {
		want = append(want, fmt.Sprintf("  %-10s %s", c.Name, c.Summary))
	}
	slices.Sort(want)
	if got := strings.Split(list, "\n"); !slices.Equal(got, want) {
		t.Errorf("command list:\n%s\nwant:\n%s", list, strings.Join(want, "\n"))
	}
}

// TestMain_sqlCatalog builds from a table in iceberg-go's SQL catalog on
// SQLite, loaded through the catalog registry like any configured catalog.
func TestMain_sqlCatalog(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	props := iceberg.Properties{
		"type": "sql", "uri": "file:" + filepath.Join(dir, "catalog.db"),
		"sql.driver": "sqliteshim", "sql.dialect": "sqlite", "warehouse": "file://" + filepath.Join(dir, "wh"),
	}
	cat, err := catalog.Load(ctx, "lake", props)
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.CreateNamespace(ctx, catalog.ToIdentifier("ns"), nil); err != nil {
		t.Fatal(err)
	}
	sc := iceberg.NewSchemaWithIdentifiers(1, []int{1}, iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true})
	created, err := cat.CreateTable(ctx, catalog.ToIdentifier("ns", "ids"), sc)
	if err != nil {
		t.Fatal(err)
	}
	tbl := &icebergtest.Table{T: created}
	rdr, err := tbl.Records([]icebergtest.Row{{"id": 1}, {"id": 2}, {"id": 3}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := created.Append(ctx, rdr, nil); err != nil {
		t.Fatal(err)
	}
	if c, ok := cat.(interface{ Close() error }); ok {
		c.Close()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "dataDir: ./data\ncatalogs:\n  lake:\n")
	for k, v := range props {
		fmt.Fprintf(&b, "    %s: %q\n", k, v)
	}
	b.WriteString("objectTypes: [{apiName: Id, table: lake.ns.ids}]\n")
	cfg := mustFile(t, filepath.Join(dir, "sql.yaml"), b.String())
	code, out, errOut := run("build", "--config", cfg, "--json")
	if code != exitOK || !strings.Contains(out, `"upserts": 3`) {
		t.Errorf("build exit %d: %s%s", code, out, errOut)
	}
}
