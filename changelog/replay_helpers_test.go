package changelog

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

// rowChange is one output row of a replay, rendered for comparison.
type rowChange struct {
	Type     ChangeType
	Ordinal  int
	Snapshot int64
	Row      string // the table columns, "1, a"
}

func (c rowChange) String() string {
	return fmt.Sprintf("%s %d %d (%s)", c.Type, c.Ordinal, c.Snapshot, c.Row)
}

// chg builds an expected rowChange; nil values render as null.
func chg(t ChangeType, ordinal int, snap int64, values ...any) rowChange {
	parts := make([]string, len(values))
	for i, v := range values {
		if v == nil {
			parts[i] = "null"
		} else {
			parts[i] = fmt.Sprint(v)
		}
	}
	return rowChange{Type: t, Ordinal: ordinal, Snapshot: snap, Row: strings.Join(parts, ", ")}
}

// sortChanges orders changes like Spark's tests: by ordinal, then row, then
// rowChange type.
func sortChanges(cs []rowChange) []rowChange {
	out := slices.Clone(cs)
	slices.SortFunc(out, func(a, b rowChange) int {
		return cmp.Or(cmp.Compare(a.Ordinal, b.Ordinal), cmp.Compare(a.Row, b.Row), cmp.Compare(a.Type, b.Type))
	})
	return out
}

// collectChanges renders every output row of cl, in output order.
func collectChanges(ctx context.Context, cl *Changelog) ([]rowChange, error) {
	var out []rowChange
	data := len(cl.Schema().Fields()) - 3
	for rec, err := range cl.Records(ctx) {
		if err != nil {
			return out, err
		}
		if !rec.Schema().Equal(cl.Schema()) {
			return out, fmt.Errorf("batch schema %s differs from %s", rec.Schema(), cl.Schema())
		}
		types := rec.Column(data).(*array.String)
		ords := rec.Column(data + 1).(*array.Int32)
		snaps := rec.Column(data + 2).(*array.Int64)
		for i := range int(rec.NumRows()) {
			out = append(out, rowChange{Type: ChangeType(types.Value(i)), Ordinal: int(ords.Value(i)), Snapshot: snaps.Value(i), Row: rowString(rec, data, i)})
		}
	}
	return out, nil
}

// rowString renders the first n columns of row i.
func rowString(rec arrow.RecordBatch, n, i int) string {
	parts := make([]string, n)
	for j := range n {
		col := rec.Column(j)
		if col.IsNull(i) {
			parts[j] = "null"
		} else {
			parts[j] = col.ValueStr(i)
		}
	}
	return strings.Join(parts, ", ")
}

// replayVariants are the ways to run one replay that must agree row for row:
// batches kept in memory or files read twice, and files planned by
// iceberg-go (when it accepts the range) or from the manifests.
func replayVariants() []replayVariant {
	return []replayVariant{
		{"default", func(*Options) {}},
		{"reread", func(o *Options) { o.BufferBytes = -1 }},
		{"manifests", func(o *Options) { o.planner = plannerManifest; o.BatchRows = 2 }},
	}
}

type replayVariant struct {
	name string
	set  func(*Options)
}

// replayRows replays tbl with opts in every variant, checks that they agree
// in order, and returns the changes.
func replayRows(tb testing.TB, tbl *table.Table, opts Options) ([]rowChange, *Changelog, error) {
	tb.Helper()
	ctx := context.Background()
	var first []rowChange
	var firstCL *Changelog
	for i, v := range replayVariants() {
		o := opts
		v.set(&o)
		cl, err := Replay(ctx, tbl, o)
		if err != nil {
			if i == 0 {
				return nil, nil, err
			}
			tb.Fatalf("variant %s: %v (the default variant planned)", v.name, err)
		}
		got, err := collectChanges(ctx, cl)
		if i == 0 {
			if err != nil {
				return got, cl, err
			}
			first, firstCL = got, cl
			continue
		}
		if err != nil {
			tb.Fatalf("variant %s: %v (the default variant succeeded)", v.name, err)
		}
		if !slices.Equal(got, first) {
			tb.Fatalf("variant %s differs from default:\n%s\nwant\n%s", v.name, changeLines(got), changeLines(first))
		}
	}
	return first, firstCL, nil
}

// mustReplay is replayRows that fails the test on error.
func mustReplay(tb testing.TB, tbl *icebergtest.Table, opts Options) ([]rowChange, *Changelog) {
	tb.Helper()
	return mustReplayTable(tb, tbl.T, opts)
}

func mustReplayTable(tb testing.TB, tbl *table.Table, opts Options) ([]rowChange, *Changelog) {
	tb.Helper()
	got, cl, err := replayRows(tb, tbl, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return got, cl
}

// assertChanges compares changes as sorted multisets.
func assertChanges(tb testing.TB, got, want []rowChange) {
	tb.Helper()
	g, w := sortChanges(got), sortChanges(want)
	if !slices.Equal(g, w) {
		tb.Fatalf("changes:\n%s\nwant\n%s", changeLines(g), changeLines(w))
	}
}

func changeLines(cs []rowChange) string {
	if len(cs) == 0 {
		return "  (none)"
	}
	var b strings.Builder
	for _, c := range cs {
		b.WriteString("  " + c.String() + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Schemas of the scenario tables.
func schemaIDData() *iceberg.Schema {
	return iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int32},
		iceberg.NestedField{ID: 2, Name: "data", Type: iceberg.PrimitiveTypes.String})
}

func schemaIDDataAge() *iceberg.Schema {
	return iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int32},
		iceberg.NestedField{ID: 2, Name: "data", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "age", Type: iceberg.PrimitiveTypes.Int32})
}

func schemaWithIdentifier() *iceberg.Schema {
	return iceberg.NewSchemaWithIdentifiers(0, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int32, Required: true},
		iceberg.NestedField{ID: 2, Name: "data", Type: iceberg.PrimitiveTypes.String})
}

// replayTable creates db.t in a fresh warehouse, partitioned by the identity
// of partition (none: unpartitioned).
func replayTable(tb testing.TB, sc *iceberg.Schema, props iceberg.Properties, partition ...string) *icebergtest.Table {
	tb.Helper()
	w := icebergtest.MustWarehouse(tb)
	if props == nil {
		props = iceberg.Properties{}
	}
	if _, ok := props["format-version"]; !ok {
		props["format-version"] = "2"
	}
	var (
		t   *icebergtest.Table
		err error
	)
	if len(partition) > 0 {
		t, err = w.CreatePartitionedTable(context.Background(), "db.t", sc, partition, props)
	} else {
		t, err = w.CreateTable(context.Background(), "db.t", sc, props)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// tuples builds rows of t from positional values, in column order.
func tuples(t *icebergtest.Table, ts ...[]any) []icebergtest.Row {
	fields := t.T.Schema().Fields()
	out := make([]icebergtest.Row, len(ts))
	for i, tu := range ts {
		r := icebergtest.Row{}
		for j, v := range tu {
			r[fields[j].Name] = v
		}
		out[i] = r
	}
	return out
}

func vals(v ...any) []any { return v }

// commitSnap runs one table rowChange and returns the new snapshot id.
func commitSnap(tb testing.TB, t *icebergtest.Table, fn func(ctx context.Context) error) int64 {
	tb.Helper()
	if err := fn(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return t.Snapshot()
}

func snapAppend(tb testing.TB, t *icebergtest.Table, ts ...[]any) int64 {
	tb.Helper()
	return commitSnap(tb, t, func(ctx context.Context) error { return t.Append(ctx, tuples(t, ts...)) })
}

func snapOverwrite(tb testing.TB, t *icebergtest.Table, filter iceberg.BooleanExpression, ts ...[]any) int64 {
	tb.Helper()
	return commitSnap(tb, t, func(ctx context.Context) error { return t.Overwrite(ctx, filter, tuples(t, ts...)) })
}

func snapDelete(tb testing.TB, t *icebergtest.Table, filter iceberg.BooleanExpression) int64 {
	tb.Helper()
	return commitSnap(tb, t, func(ctx context.Context) error { return t.Delete(ctx, filter) })
}

func whereID(ids ...int32) iceberg.BooleanExpression {
	if len(ids) == 1 {
		return iceberg.EqualTo(iceberg.Reference("id"), ids[0])
	}
	return iceberg.IsIn(iceberg.Reference("id"), ids...)
}

func whereData(s string) iceberg.BooleanExpression {
	return iceberg.EqualTo(iceberg.Reference("data"), s)
}
