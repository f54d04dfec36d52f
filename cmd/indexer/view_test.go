package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/cowguard"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

// The view command is checked against rows read without it: whole
// snapshots through icebergtest.ReadRows, and the other views through the
// library (whose own tests compare it with independent reads), rendered
// as the canonical JSON of each row.

func (fx *changelogFixture) viewArgs(args ...string) []string {
	return append([]string{"view", "--catalog-type", "hadoop", "--warehouse", fx.warehouse, "--table", "ns.people"}, args...)
}

// canonical renders rows as sorted canonical JSON objects.
func canonical(tb testing.TB, rows []map[string]any) []string {
	tb.Helper()
	var out []string
	for _, r := range rows {
		b, err := json.Marshal(r)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, string(b))
	}
	slices.Sort(out)
	return out
}

// jsonlRows decodes JSON lines, numbers kept exact.
func jsonlRows(tb testing.TB, text string) []map[string]any {
	tb.Helper()
	var out []map[string]any
	for line := range strings.SplitSeq(strings.TrimSuffix(text, "\n"), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		dec := json.NewDecoder(strings.NewReader(line))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			tb.Fatalf("line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// libraryRows runs a view with the library and renders its rows as JSON
// objects the way JSON decoding gives them back.
func libraryRows(tb testing.TB, fx *changelogFixture, opts changelog.ViewOptions) []map[string]any {
	tb.Helper()
	ctx := context.Background()
	v, err := changelog.View(ctx, fx.tbl.T, opts)
	if err != nil {
		tb.Fatal(err)
	}
	var b bytes.Buffer
	if err := writeJSONL(ctx, &b, v); err != nil {
		tb.Fatal(err)
	}
	return jsonlRows(tb, b.String())
}

// snapshotRows reads a snapshot with icebergtest (0: no rows).
func snapshotRows(tb testing.TB, fx *changelogFixture, snap int64) []map[string]any {
	tb.Helper()
	if snap == 0 {
		return nil
	}
	rows, err := fx.tbl.ReadRows(context.Background(), snap)
	if err != nil {
		tb.Fatal(err)
	}
	return rows
}

func TestRunView(t *testing.T) {
	fx := mustChangelogFixture(t, true, nil)
	from := fmt.Sprint(fx.s1)
	ids := []string{"id"}
	for _, m := range changelog.ViewModes() {
		t.Run(string(m), func(t *testing.T) {
			code, stdout, stderr := run(fx.viewArgs("--mode", string(m), "--from", from)...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			got := canonical(t, jsonlRows(t, stdout))
			var want []string
			switch m {
			case changelog.ViewCurrent:
				want = canonical(t, snapshotRows(t, fx, fx.s3))
			case changelog.ViewPrevious:
				want = canonical(t, snapshotRows(t, fx, fx.s1))
			default:
				want = canonical(t, libraryRows(t, fx, changelog.ViewOptions{Mode: m, From: fx.s1}))
			}
			if !slices.Equal(got, want) || (m != changelog.ViewChangelog && len(got) == 0) {
				t.Errorf("rows:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			// Key order is column order.
			if m != changelog.ViewChangelog && len(got) > 0 && !strings.HasPrefix(stdout, `{"id":`) {
				t.Errorf("first line %q does not start with the first column", stdout)
			}
		})
	}
	t.Run("changelog with identifiers", func(t *testing.T) {
		code, stdout, stderr := run(fx.viewArgs("--mode", "changelog", "--from", from, "--id", "id")...)
		want := canonical(t, libraryRows(t, fx, changelog.ViewOptions{Mode: changelog.ViewChangelog, From: fx.s1, Identifiers: ids}))
		if got := canonical(t, jsonlRows(t, stdout)); code != exitOK || !slices.Equal(got, want) || !strings.Contains(stdout, "UPDATE_AFTER") {
			t.Errorf("exit %d, rows %v, want %v; stderr %s", code, got, want, stderr)
		}
	})
	t.Run("columns and to", func(t *testing.T) {
		code, stdout, stderr := run(fx.viewArgs("--mode", "current", "--to", fmt.Sprint(fx.s2), "--columns", "name")...)
		var want []map[string]any
		for _, r := range snapshotRows(t, fx, fx.s2) {
			want = append(want, map[string]any{"name": r["name"]})
		}
		if got := canonical(t, jsonlRows(t, stdout)); code != exitOK || !slices.Equal(got, canonical(t, want)) {
			t.Errorf("exit %d, rows %v, want %v; stderr %s", code, got, want, stderr)
		}
	})
}

func TestRunView_formats(t *testing.T) {
	fx := mustChangelogFixture(t, true, nil)
	want := canonical(t, snapshotRows(t, fx, fx.s1))
	args := fx.viewArgs("--mode", "previous", "--from", fmt.Sprint(fx.s1))

	t.Run("table", func(t *testing.T) {
		code, stdout, stderr := run(append(args, "--format", "table")...)
		lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
		if code != exitOK || len(lines) != 1+len(want) || !slices.Equal(strings.Fields(lines[0]), []string{"ID", "NAME"}) {
			t.Fatalf("exit %d, table:\n%s\nstderr %s", code, stdout, stderr)
		}
		var got []map[string]any
		for _, l := range lines[1:] {
			f := strings.Fields(l)
			got = append(got, map[string]any{"id": json.Number(f[0]), "name": f[1]})
		}
		if !slices.Equal(canonical(t, got), want) {
			t.Errorf("rows %v, want %v", canonical(t, got), want)
		}
		if !strings.Contains(stderr, fmt.Sprintf("%d rows: the previous view of table ns.people", len(want))) {
			t.Errorf("summary on stderr = %q", stderr)
		}
	})
	t.Run("jsonl to a file", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "rows.jsonl")
		code, stdout, stderr := run(append(args, "--out", out)...)
		b, err := os.ReadFile(out)
		if code != exitOK || err != nil || stdout != "" {
			t.Fatalf("exit %d, stdout %q, stderr %s, read: %v", code, stdout, stderr, err)
		}
		if got := canonical(t, jsonlRows(t, string(b))); !slices.Equal(got, want) {
			t.Errorf("file rows %v, want %v", got, want)
		}
	})
	t.Run("parquet", func(t *testing.T) {
		dir := t.TempDir()
		out := filepath.Join(dir, "rows.parquet")
		code, stdout, stderr := run(append(args, "--format", "parquet", "--out", out)...)
		if code != exitOK || stdout != "" {
			t.Fatalf("exit %d, stdout %q, stderr %s", code, stdout, stderr)
		}
		pf, err := file.OpenParquetFile(out, false)
		if err != nil {
			t.Fatal(err)
		}
		defer pf.Close()
		fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1}, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := fr.ReadTable(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer tbl.Release()
		var got []map[string]any
		ids, names := tbl.Column(0).Data(), tbl.Column(1).Data()
		if tbl.Schema().Field(0).Name != "id" || tbl.Schema().Field(1).Name != "name" {
			t.Fatalf("parquet schema %s, want id, name", tbl.Schema())
		}
		for i, ch := range ids.Chunks() {
			for j := range ch.Len() {
				got = append(got, map[string]any{"id": json.Number(ch.ValueStr(j)), "name": names.Chunk(i).ValueStr(j)})
			}
		}
		if !slices.Equal(canonical(t, got), want) {
			t.Errorf("parquet rows %v, want %v", canonical(t, got), want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("%d files in the output dir, want the parquet file alone", len(entries))
		}
	})
}

func TestRunView_objectType(t *testing.T) {
	fx := mustChangelogFixture(t, true, nil)
	args := []string{"view", "--config", fx.config, "--type", "Person", "--mode", "changelog"}

	// Never built: from the start, and no data dir is created.
	code, stdout, stderr := run(args...)
	want := canonical(t, libraryRows(t, fx, changelog.ViewOptions{Mode: changelog.ViewChangelog, Identifiers: []string{"id"}}))
	if got := canonical(t, jsonlRows(t, stdout)); code != exitOK || !slices.Equal(got, want) {
		t.Fatalf("exit %d, rows %v, want %v; stderr %s", code, got, want, stderr)
	}
	if _, err := os.Stat(filepath.Join(fx.dir, "data")); !os.IsNotExist(err) {
		t.Errorf("the view created the data dir (%v)", err)
	}

	// Built to s1: from the checkpoint, by the primary key.
	if code, _, stderr := run("build", "--config", fx.config, "--type", "Person", "--snapshot", fmt.Sprint(fx.s1)); code != exitOK {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}
	code, stdout, stderr = run(args...)
	want = canonical(t, libraryRows(t, fx, changelog.ViewOptions{Mode: changelog.ViewChangelog, From: fx.s1, Identifiers: []string{"id"}}))
	if got := canonical(t, jsonlRows(t, stdout)); code != exitOK || !slices.Equal(got, want) || len(got) != 2 {
		t.Fatalf("from the checkpoint: exit %d, rows %v, want %v; stderr %s", code, got, want, stderr)
	}

	// While another process holds the data dir, the checkpoint cannot be
	// read: --from is needed, and works.
	cfg, err := config.Load(fx.config)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := indexer.Open(context.Background(), cfg, indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	code, _, stderr = run(args...)
	if code != exitFailed || !strings.Contains(stderr, "--from") || !strings.Contains(stderr, "Person") {
		t.Errorf("data dir in use: exit %d, stderr %q; want a failure that asks for --from", code, stderr)
	}
	code, stdout, stderr = run(append(args, "--from", fmt.Sprint(fx.s1))...)
	if got := canonical(t, jsonlRows(t, stdout)); code != exitOK || !slices.Equal(got, want) {
		t.Errorf("with --from next to an indexer: exit %d, rows %v, want %v; stderr %s", code, got, want, stderr)
	}
}

func TestRunView_errors(t *testing.T) {
	fx := mustChangelogFixture(t, true, nil)
	noIDs := mustChangelogFixture(t, false, nil)
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
		stderr []string
	}{
		{"no mode", fx.viewArgs(), exitUsage, []string{"--mode is required", "modified"}},
		{"bad mode", fx.viewArgs("--mode", "latest"), exitUsage, []string{`"latest"`}},
		{"bad format", fx.viewArgs("--mode", "current", "--format", "csv"), exitUsage, []string{`"csv"`}},
		{"parquet without out", fx.viewArgs("--mode", "current", "--format", "parquet"), exitUsage, []string{"--out"}},
		{"no table", []string{"view", "--mode", "current"}, exitUsage, []string{"--config F --type T"}},
		{"empty column", fx.viewArgs("--mode", "current", "--columns", "id,"), exitUsage, []string{"empty column"}},
		{"unknown column", fx.viewArgs("--mode", "current", "--columns", "nope"), exitUsage, []string{`"nope"`}},
		{"modified without identifiers", noIDs.viewArgs("--mode", "modified"), exitUsage, []string{"identifier"}},
		{"unknown snapshot", fx.viewArgs("--mode", "added", "--from", "123"), exitUsage, []string{"snapshot 123"}},
		{"merge-on-read", mor.viewArgs("--mode", "changelog"), exitFailed, []string{"merge-on-read", fmt.Sprint(mor.tbl.Snapshot())}},
		{"merge-on-read state", mor.viewArgs("--mode", "current"), exitFailed, []string{"merge-on-read"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(tt.args...)
			if code != tt.code || stdout != "" {
				t.Fatalf("exit %d, want %d; stdout %q; stderr: %s", code, tt.code, stdout, stderr)
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr %q does not contain %q", stderr, s)
				}
			}
		})
	}
	t.Run("a refused view writes no file", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "rows.parquet")
		if code, _, _ := run(mor.viewArgs("--mode", "current", "--format", "parquet", "--out", out)...); code != exitFailed {
			t.Fatalf("exit %d, want %d", code, exitFailed)
		}
		if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
			t.Errorf("files left behind: %v", entries)
		}
	})
}
