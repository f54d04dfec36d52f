package icebergwrite_test

import (
	"context"
	"encoding/json"
	"math"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/hadoop"
	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/internal/icebergwrite"
)

// thingsSchema has a column of every type the package writes.
func thingsSchema() *iceberg.Schema {
	return iceberg.NewSchemaWithIdentifiers(1, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "count", Type: iceberg.PrimitiveTypes.Int32},
		iceberg.NestedField{ID: 4, Name: "price", Type: iceberg.PrimitiveTypes.Float64},
		iceberg.NestedField{ID: 5, Name: "ratio", Type: iceberg.PrimitiveTypes.Float32},
		iceberg.NestedField{ID: 6, Name: "active", Type: iceberg.PrimitiveTypes.Bool},
		iceberg.NestedField{ID: 7, Name: "born", Type: iceberg.PrimitiveTypes.Date},
		iceberg.NestedField{ID: 8, Name: "seen", Type: iceberg.PrimitiveTypes.TimestampTz},
		iceberg.NestedField{ID: 9, Name: "amount", Type: iceberg.DecimalTypeOf(10, 2)},
		iceberg.NestedField{ID: 10, Name: "tags", Type: &iceberg.ListType{ElementID: 11, Element: iceberg.PrimitiveTypes.String, ElementRequired: false}},
	)
}

func mustCatalog(tb testing.TB) catalog.Catalog {
	tb.Helper()
	cat, err := hadoop.NewCatalog("warehouse", tb.TempDir(), iceberg.Properties{})
	if err != nil {
		tb.Fatal(err)
	}
	return cat
}

func mustTable(tb testing.TB, cat catalog.Catalog, ident string, opts ...catalog.CreateTableOpt) *table.Table {
	tb.Helper()
	tbl, err := icebergwrite.CreateTable(context.Background(), cat, ident, thingsSchema(), opts...)
	if err != nil {
		tb.Fatal(err)
	}
	return tbl
}

// mustRows reads the table's current rows (deletes applied) as JSON
// objects, sorted by id.
func mustRows(tb testing.TB, tbl *table.Table) []map[string]any {
	tb.Helper()
	at, err := tbl.Scan().ToArrowTable(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	defer at.Release()
	tr := array.NewTableReader(at, 1024)
	defer tr.Release()
	var out []map[string]any
	for tr.Next() {
		js, err := tr.RecordBatch().MarshalJSON()
		if err != nil {
			tb.Fatal(err)
		}
		var rows []map[string]any
		if err := json.Unmarshal(js, &rows); err != nil {
			tb.Fatal(err)
		}
		out = append(out, rows...)
	}
	slices.SortFunc(out, func(a, b map[string]any) int { return int(a["id"].(float64) - b["id"].(float64)) })
	return out
}

// thing is a row of thingsSchema with a name and every other column set.
func thing(id int64, name string) []any {
	return []any{id, name, int32(id * 2), float64(id) + 0.5, float32(0.25), id%2 == 0,
		time.Date(2024, 1, 31, 15, 0, 0, 0, time.UTC), time.Date(2024, 2, 1, 10, 30, 0, 123456000, time.UTC),
		decimal128.FromI64(id*100 + 7), []string{"a", name}}
}

func ids(rows []map[string]any) []int64 {
	out := make([]int64, len(rows))
	for i, r := range rows {
		out[i] = int64(r["id"].(float64))
	}
	return out
}

func TestCreateTable(t *testing.T) {
	ctx := context.Background()
	cat := mustCatalog(t)
	first := mustTable(t, cat, "shop.things")
	if got := first.Identifier(); !slices.Equal(got, []string{"shop", "things"}) {
		t.Errorf("identifier %v", got)
	}
	// The namespace exists now: a second table goes into it.
	if _, err := icebergwrite.CreateTable(ctx, cat, "shop.others", thingsSchema(), catalog.WithProperties(iceberg.Properties{"format-version": "2"})); err != nil {
		t.Fatalf("second table in an existing namespace: %v", err)
	}
	for _, tc := range []struct{ ident, want string }{
		{"shop.things", "create table shop.things"},
		{"things", "create table things: want namespace.table"},
	} {
		t.Run(tc.ident, func(t *testing.T) {
			_, err := icebergwrite.CreateTable(ctx, cat, tc.ident, thingsSchema())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// TestAppend writes a row of every type and reads back what was written.
func TestAppend(t *testing.T) {
	ctx := context.Background()
	tbl := mustTable(t, mustCatalog(t), "shop.things")
	tbl, err := icebergwrite.Append(ctx, tbl, icebergwrite.Values(thing(1, "one"),
		[]any{int64(2), nil, int32(-3), math.Inf(1), float32(1.5), true, nil, nil, big.NewInt(-12345), []any{}}))
	if err != nil {
		t.Fatal(err)
	}
	got := mustRows(t, tbl)
	want := []map[string]any{
		{"id": 1.0, "name": "one", "count": 2.0, "price": 1.5, "ratio": 0.25, "active": false, "born": "2024-01-31",
			"seen": "2024-02-01T10:30:00.123456Z", "amount": "1.07", "tags": []any{"a", "one"}},
		{"id": 2.0, "name": nil, "count": -3.0, "price": "+Inf", "ratio": 1.5, "active": true, "born": nil, "seen": nil,
			"amount": "-123.45", "tags": []any{}},
	}
	gotJS, _ := json.Marshal(got)
	wantJS, _ := json.Marshal(want)
	if string(gotJS) != string(wantJS) {
		t.Errorf("read back\n%s\nwant\n%s", gotJS, wantJS)
	}
	if op := tbl.CurrentSnapshot().Summary.Operation; op != table.OpAppend {
		t.Errorf("operation %s, want append", op)
	}
}

// TestAppend_badValue: a value that does not fit its column fails the
// commit with an error naming the table, the row and the column, and
// commits nothing.
func TestAppend_badValue(t *testing.T) {
	ctx := context.Background()
	tbl := mustTable(t, mustCatalog(t), "shop.things")
	tbl, err := icebergwrite.Append(ctx, tbl, icebergwrite.Values(thing(1, "one")))
	if err != nil {
		t.Fatal(err)
	}
	before := tbl.CurrentSnapshot().SnapshotID
	for _, tc := range []struct {
		name string
		row  []any
		want string
	}{
		{"wrong type", slices.Replace(thing(2, "two"), 3, 4, any("1.5")), `append to shop.things: row 1, column price (float64): cannot take string 1.5`},
		{"null key", slices.Replace(thing(2, "two"), 0, 1, nil), `append to shop.things: row 1, column id: null in a required column`},
		{"int out of range", slices.Replace(thing(2, "two"), 2, 3, any(int64(math.MaxInt32)+1)), `row 1, column count (int32): cannot take int64 2147483648`},
		{"list element", slices.Replace(thing(2, "two"), 9, 10, any([]any{"a", 3})), `row 1, column tags (list<element: utf8, nullable>): element 1: cannot take int 3`},
		{"too few values", thing(2, "two")[:9], `row 1: 9 values for 10 columns`},
		{"unscaled decimal as float", slices.Replace(thing(2, "two"), 8, 9, any(1.5)), `column amount (decimal(10, 2)): cannot take float64 1.5`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := icebergwrite.Append(ctx, tbl, icebergwrite.Values(thing(3, "three"), tc.row))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
	if err := tbl.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if now := tbl.CurrentSnapshot().SnapshotID; now != before {
		t.Errorf("a failed append moved the table from snapshot %d to %d", before, now)
	}
	if got := ids(mustRows(t, tbl)); !slices.Equal(got, []int64{1}) {
		t.Errorf("ids %v after failed appends, want [1]", got)
	}
}

// TestOverwrite replaces the rows that match the filter and keeps the rest.
func TestOverwrite(t *testing.T) {
	ctx := context.Background()
	tbl := mustTable(t, mustCatalog(t), "shop.things")
	tbl, err := icebergwrite.Append(ctx, tbl, icebergwrite.Values(thing(1, "one"), thing(2, "two"), thing(3, "three")))
	if err != nil {
		t.Fatal(err)
	}
	filter := iceberg.IsIn(iceberg.Reference("id"), int64(2), int64(3))
	if tbl, err = icebergwrite.Overwrite(ctx, tbl, filter, icebergwrite.Values(thing(2, "two again"), thing(4, "four"))); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range mustRows(t, tbl) {
		names = append(names, r["name"].(string))
	}
	if want := []string{"one", "two again", "four"}; !slices.Equal(names, want) {
		t.Errorf("names %q, want %q", names, want)
	}
	if op := tbl.CurrentSnapshot().Summary.Operation; op != table.OpOverwrite {
		t.Errorf("operation %s, want overwrite", op)
	}
	_, err = icebergwrite.Overwrite(ctx, tbl, filter, icebergwrite.Values([]any{int64(5)}))
	if err == nil || !strings.Contains(err.Error(), "overwrite shop.things: row 0: 1 values for 10 columns") {
		t.Errorf("error %v, want one naming the table and the row", err)
	}
}

// TestDelete deletes copy-on-write by default and merge-on-read when the
// table says so; Compact then removes the delete file.
func TestDelete(t *testing.T) {
	ctx := context.Background()
	cat := mustCatalog(t)
	for _, tc := range []struct {
		name        string
		props       iceberg.Properties
		deleteFiles int
	}{
		{"copy-on-write", nil, 0},
		{"merge-on-read", iceberg.Properties{"format-version": "2", "write.delete.mode": "merge-on-read"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tbl := mustTable(t, cat, "shop."+strings.ReplaceAll(tc.name, "-", "_"), catalog.WithProperties(tc.props))
			tbl, err := icebergwrite.Append(ctx, tbl, icebergwrite.Values(thing(1, "one"), thing(2, "two"), thing(3, "three")))
			if err != nil {
				t.Fatal(err)
			}
			if tbl, err = icebergwrite.Delete(ctx, tbl, iceberg.EqualTo(iceberg.Reference("id"), int64(2))); err != nil {
				t.Fatal(err)
			}
			if got := ids(mustRows(t, tbl)); !slices.Equal(got, []int64{1, 3}) {
				t.Errorf("ids %v after the delete, want [1 3]", got)
			}
			if got := mustLiveDeletes(t, tbl); got != tc.deleteFiles {
				t.Errorf("%d live delete files after the delete, want %d", got, tc.deleteFiles)
			}
			tbl, removed, err := icebergwrite.Compact(ctx, tbl, nil)
			if err != nil {
				t.Fatal(err)
			}
			if removed != tc.deleteFiles || mustLiveDeletes(t, tbl) != 0 {
				t.Errorf("compaction removed %d delete files, want %d; %d left", removed, tc.deleteFiles, mustLiveDeletes(t, tbl))
			}
			if got := ids(mustRows(t, tbl)); !slices.Equal(got, []int64{1, 3}) {
				t.Errorf("ids %v after the compaction, want [1 3]", got)
			}
			if op := tbl.CurrentSnapshot().Summary.Operation; op != table.OpReplace {
				t.Errorf("compaction's operation %s, want replace", op)
			}
		})
	}
}

func mustLiveDeletes(tb testing.TB, tbl *table.Table) int {
	tb.Helper()
	tasks, err := tbl.Scan().PlanFiles(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	n := 0
	for _, t := range tasks {
		n += len(t.DeleteFiles) + len(t.EqualityDeleteFiles) + len(t.DeletionVectorFiles)
	}
	return n
}

// TestCompact_someFiles rewrites the files of some tasks into one.
func TestCompact_someFiles(t *testing.T) {
	ctx := context.Background()
	tbl := mustTable(t, mustCatalog(t), "shop.things")
	var err error
	for id := range int64(3) {
		if tbl, err = icebergwrite.Append(ctx, tbl, icebergwrite.Values(thing(id, "x"))); err != nil {
			t.Fatal(err)
		}
	}
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil || len(tasks) != 3 {
		t.Fatalf("%d files, %v; want 3", len(tasks), err)
	}
	if tbl, _, err = icebergwrite.Compact(ctx, tbl, tasks[:2]); err != nil {
		t.Fatal(err)
	}
	if tasks, err = tbl.Scan().PlanFiles(ctx); err != nil || len(tasks) != 2 {
		t.Errorf("%d files after compacting two of three, %v; want 2", len(tasks), err)
	}
	if got := ids(mustRows(t, tbl)); !slices.Equal(got, []int64{0, 1, 2}) {
		t.Errorf("ids %v, want [0 1 2]", got)
	}
}

// TestBuilder_Flush: each Flush ends a record batch, and Reader adds the
// rest; a builder without rows gives one empty batch.
func TestBuilder_Flush(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fill    func(b *icebergwrite.Builder)
		batches []int64
	}{
		{"no rows", func(*icebergwrite.Builder) {}, []int64{0}},
		{"one batch", func(b *icebergwrite.Builder) { b.Add(thing(1, "a")...); b.Add(thing(2, "b")...) }, []int64{2}},
		{"flushed", func(b *icebergwrite.Builder) {
			b.Add(thing(1, "a")...)
			b.Flush()
			b.Flush() // an empty batch is not one
			b.Add(thing(2, "b")...)
			b.Add(thing(3, "c")...)
			b.Flush()
		}, []int64{1, 2}},
		{"rest after a flush", func(b *icebergwrite.Builder) { b.Add(thing(1, "a")...); b.Flush(); b.Add(thing(2, "b")...) }, []int64{1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rdr, err := icebergwrite.Build(tc.fill)(thingsSchema())
			if err != nil {
				t.Fatal(err)
			}
			defer rdr.Release()
			var got []int64
			for rdr.Next() {
				got = append(got, rdr.RecordBatch().NumRows())
			}
			if !slices.Equal(got, tc.batches) {
				t.Errorf("batches of %v rows, want %v", got, tc.batches)
			}
		})
	}
}
