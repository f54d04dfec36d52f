package api_test

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/internal/icebergwrite"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/objects"
)

// The random Iceberg table of the differential test and its copy-on-write
// edits between rounds. The table keeps a model of its rows only as a
// cross-check of the store: the oracle's ground truth is what the store
// holds.

const dfTypeName = "Thing"

// dfTable is the Iceberg table and the model of its rows.
type dfTable struct {
	t         *icebergtest.Table
	cols      []dfCol
	pk        []string
	composite bool
	rows      map[string][]any // encoded primary key -> values in column order
	ids       map[int64]int    // rows per id
}

func (tb *dfTable) col(name string) int {
	return slices.IndexFunc(tb.cols, func(c dfCol) bool { return c.name == name })
}

func (tb *dfTable) schema() *iceberg.Schema {
	fields := make([]iceberg.NestedField, len(tb.cols))
	for i, c := range tb.cols {
		fields[i] = iceberg.NestedField{ID: i + 1, Name: c.name, Type: c.typ, Required: c.req}
	}
	return iceberg.NewSchema(1, fields...)
}

// spec maps every column to a property of the same name.
func (tb *dfTable) spec(title string) objects.TypeSpec {
	props := map[string]objects.PropertySpec{}
	for _, c := range tb.cols {
		props[c.name] = objects.PropertySpec{Column: c.name, Search: c.role}
	}
	return objects.TypeSpec{APIName: dfTypeName, Table: "warehouse.diff.things", PrimaryKey: tb.pk,
		TitleProperty: title, Properties: props}
}

func (tb *dfTable) key(row []any) string {
	var b []byte
	for _, k := range tb.pk {
		var err error
		if b, err = objects.AppendKey(b, row[tb.col(k)]); err != nil {
			panic(err)
		}
	}
	return string(b)
}

// newRow draws a row with a primary key the table does not hold.
func (tb *dfTable) newRow(g *dfGen) []any {
	for {
		row := make([]any, len(tb.cols))
		for i, c := range tb.cols {
			if c.gen != nil {
				row[i] = c.gen(g)
			}
		}
		var id int64
		switch {
		case tb.composite && len(tb.ids) > 0 && g.pct(40): // share an id: ties on the first key part
			id = tb.someID(g)
		case g.pct(5):
			id = g.bigLong()
		default:
			id = g.r.Int64N(200_000) - 50_000
		}
		row[0] = id
		if _, dup := tb.rows[tb.key(row)]; !dup {
			return row
		}
	}
}

func (tb *dfTable) someID(g *dfGen) int64 {
	ids := slices.Sorted(maps.Keys(tb.ids))
	return ids[g.r.IntN(len(ids))]
}

func (tb *dfTable) put(row []any) {
	tb.rows[tb.key(row)] = row
	tb.ids[row[0].(int64)]++
}

func (tb *dfTable) drop(k string) {
	id := tb.rows[k][0].(int64)
	delete(tb.rows, k)
	if tb.ids[id]--; tb.ids[id] == 0 {
		delete(tb.ids, id)
	}
}

// commit appends rows, or overwrites the rows filter matches with them,
// written as Go values (not through JSON, which has no NaN and no -0).
func (tb *dfTable) commit(ctx context.Context, rows [][]any, filter iceberg.BooleanExpression) error {
	values := make([][]any, len(rows))
	for i, row := range rows {
		values[i] = make([]any, len(row))
		for j, v := range row {
			values[i][j] = dfWritten(v)
		}
	}
	var nt *table.Table
	var err error
	if filter == nil {
		nt, err = icebergwrite.Append(ctx, tb.t.T, icebergwrite.Values(values...))
	} else {
		nt, err = icebergwrite.Overwrite(ctx, tb.t.T, filter, icebergwrite.Values(values...))
	}
	if err != nil {
		return err
	}
	tb.t.T = nt
	return nil
}

// dfWritten is a model value as icebergwrite takes it: decimals unscaled,
// dates as days.
func dfWritten(v any) any {
	switch v := v.(type) {
	case objects.Decimal:
		return v.Unscaled
	case objects.Date:
		return arrow.Date32(v)
	}
	return v
}

// fill appends n new rows in files data files.
func (tb *dfTable) fill(ctx context.Context, g *dfGen, n, files int) error {
	for f := range files {
		var batch [][]any
		for range n/files + min(1, max(0, n%files-f)) {
			row := tb.newRow(g)
			tb.put(row)
			batch = append(batch, row)
		}
		if err := tb.commit(ctx, batch, nil); err != nil {
			return fmt.Errorf("append file %d: %w", f, err)
		}
	}
	return nil
}

func (tb *dfTable) sortedKeys() []string { return slices.Sorted(maps.Keys(tb.rows)) }

// edit commits one random copy-on-write change and says what it did:
// an overwrite of the rows of some ids (edited, unchanged, dropped and
// added rows), a delete by id, or an append of new rows.
func (tb *dfTable) edit(ctx context.Context, g *dfGen) (string, error) {
	keys := tb.sortedKeys()
	switch k := g.r.IntN(3); {
	case k == 0 && len(keys) > 0:
		idSet := map[int64]bool{}
		for range 1 + g.r.IntN(25) {
			idSet[tb.rows[keys[g.r.IntN(len(keys))]][0].(int64)] = true
		}
		ids := slices.Sorted(maps.Keys(idSet))
		var out [][]any
		edited, dropped := 0, 0
		for _, key := range keys {
			row := tb.rows[key]
			if !idSet[row[0].(int64)] {
				continue
			}
			tb.drop(key)
			switch {
			case g.pct(10):
				dropped++
				continue
			case g.pct(75):
				row = slices.Clone(row)
				for range 1 + g.r.IntN(3) {
					// Any column but the key (a key change is a delete and an insert).
					if c := 1 + g.r.IntN(len(tb.cols)-1); tb.cols[c].gen != nil && !tb.cols[c].req {
						row[c] = tb.cols[c].gen(g)
					}
				}
				edited++
			}
			out = append(out, row)
		}
		for _, row := range out {
			tb.put(row)
		}
		added := 0
		if tb.composite && g.pct(50) {
			row := tb.newRow(g)
			row[0] = ids[0]
			if _, dup := tb.rows[tb.key(row)]; !dup {
				tb.put(row)
				out = append(out, row)
				added++
			}
		}
		if err := tb.commit(ctx, out, iceberg.IsIn(iceberg.Reference("id"), ids...)); err != nil {
			return "", fmt.Errorf("overwrite: %w", err)
		}
		return fmt.Sprintf("overwrite %d ids: %d rows edited, %d dropped, %d added", len(ids), edited, dropped, added), nil
	case k == 1 && len(keys) > 0:
		lo := tb.rows[keys[g.r.IntN(len(keys))]][0].(int64)
		hi := lo // inclusive
		var filter iceberg.BooleanExpression = iceberg.EqualTo(iceberg.Reference("id"), lo)
		if lo < math.MaxInt64-4000 && g.pct(50) {
			hi = lo + int64(g.r.IntN(3000))
			filter = iceberg.NewAnd(iceberg.GreaterThanEqual(iceberg.Reference("id"), lo),
				iceberg.LessThanEqual(iceberg.Reference("id"), hi))
		}
		n := 0
		for _, key := range keys {
			if id := tb.rows[key][0].(int64); lo <= id && id <= hi {
				tb.drop(key)
				n++
			}
		}
		if err := tb.t.Delete(ctx, filter); err != nil {
			return "", err
		}
		return fmt.Sprintf("delete %d <= id <= %d: %d rows", lo, hi, n), nil
	}
	var rows [][]any
	for range 5 + g.r.IntN(40) {
		row := tb.newRow(g)
		tb.put(row)
		rows = append(rows, row)
	}
	if err := tb.commit(ctx, rows, nil); err != nil {
		return "", fmt.Errorf("append: %w", err)
	}
	return fmt.Sprintf("append %d rows", len(rows)), nil
}
