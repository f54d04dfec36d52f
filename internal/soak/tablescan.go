package soak

import (
	"context"
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// readTable reads every row of a table's snapshot with iceberg-go's own
// scan, independently of the indexer, as canonical objects by primary
// key (the column key). The columns are the ones of the snapshot's schema
// as a read of it sees them.
func readTable(ctx context.Context, cat catalog.Catalog, name, key string, snapshotID int64) (map[int64]map[string]string, error) {
	tbl, err := cat.LoadTable(ctx, ident(name))
	if err != nil {
		return nil, fmt.Errorf("load %s.%s: %w", namespace, name, err)
	}
	return scanRows(ctx, tbl, key, snapshotID)
}

func scanRows(ctx context.Context, tbl *table.Table, key string, snapshotID int64) (map[int64]map[string]string, error) {
	out := map[int64]map[string]string{}
	if snapshotID == 0 {
		return out, nil
	}
	at, err := tbl.Scan(table.WithSnapshotID(snapshotID)).ToArrowTable(ctx)
	if err != nil {
		return nil, fmt.Errorf("scan %v at snapshot %d: %w", tbl.Identifier(), snapshotID, err)
	}
	defer at.Release()
	tr := array.NewTableReader(at, 4096)
	defer tr.Release()
	for tr.Next() {
		rec := tr.RecordBatch()
		sc := rec.Schema()
		for i := range int(rec.NumRows()) {
			o := map[string]string{}
			for c := range int(rec.NumCols()) {
				if v, ok := cell(rec.Column(c), i); ok {
					o[sc.Field(c).Name] = v
				}
			}
			id, err := strconv.ParseInt(o[key], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("scan %v at snapshot %d: row without %s: %v", tbl.Identifier(), snapshotID, key, o)
			}
			if _, dup := out[id]; dup {
				return nil, fmt.Errorf("scan %v at snapshot %d: two rows of %s %d", tbl.Identifier(), snapshotID, key, id)
			}
			out[id] = o
		}
	}
	return out, tr.Err()
}

// cell is one value in canonical form; ok is false for a null.
func cell(a arrow.Array, i int) (string, bool) {
	if a.IsNull(i) {
		return "", false
	}
	switch x := a.(type) {
	case *array.Int64:
		return canonInt(x.Value(i)), true
	case *array.Int32:
		return canonInt(int64(x.Value(i))), true
	case *array.Float64:
		return canonFloat(x.Value(i)), true
	case *array.String:
		return x.Value(i), true
	case *array.LargeString:
		return x.Value(i), true
	}
	return fmt.Sprintf("<a value of type %s>", a.DataType()), true
}
