package icebergtest

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/hadoop"
	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/internal/icebergwrite"
)

// Warehouse is the catalog tables are written through: by default a
// hadoop-catalog warehouse on local disk, or any catalog iceberg-go loads
// (OpenWarehouse).
type Warehouse struct {
	// Dir is the directory of a hadoop warehouse on local disk ("" for
	// other catalogs).
	Dir string
	// Name and Props are the catalog's name and the properties it was
	// opened with (Reopen opens it again from them).
	Name    string
	Props   iceberg.Properties
	Catalog catalog.Catalog
}

// NewWarehouse opens (or creates) a hadoop-catalog warehouse "warehouse"
// in dir.
func NewWarehouse(dir string) (*Warehouse, error) {
	cat, err := hadoop.NewCatalog("warehouse", dir, iceberg.Properties{})
	if err != nil {
		return nil, fmt.Errorf("open hadoop catalog %s: %w", dir, err)
	}
	return &Warehouse{Dir: dir, Name: "warehouse", Props: iceberg.Properties{"type": "hadoop", "warehouse": dir}, Catalog: cat}, nil
}

// OpenWarehouse opens catalog name through iceberg-go's catalog registry,
// with props (their "type" picks the catalog; it must be registered, and
// so must the FileIO of the warehouse's scheme).
func OpenWarehouse(ctx context.Context, name string, props iceberg.Properties) (*Warehouse, error) {
	cat, err := catalog.Load(ctx, name, props)
	if err != nil {
		return nil, fmt.Errorf("open catalog %s (type %s): %w", name, props["type"], err)
	}
	w := &Warehouse{Name: name, Props: maps.Clone(props), Catalog: cat}
	if props["type"] == "hadoop" {
		w.Dir = props["warehouse"]
	}
	return w, nil
}

// Reopen opens the warehouse's catalog again, as another process writing
// to it would.
func (w *Warehouse) Reopen(ctx context.Context) (*Warehouse, error) {
	if w.Dir != "" && w.Props["type"] == "hadoop" {
		return NewWarehouse(w.Dir)
	}
	return OpenWarehouse(ctx, w.Name, w.Props)
}

// Close closes the catalog (the sql catalog holds a connection pool).
func (w *Warehouse) Close() error {
	if c, ok := w.Catalog.(catalog.Closer); ok {
		return c.Close()
	}
	return nil
}

// MustWarehouse returns a warehouse in a fresh temporary directory.
func MustWarehouse(tb testing.TB) *Warehouse {
	tb.Helper()
	w, err := NewWarehouse(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	return w
}

// Table is a table of a warehouse together with the context tests use.
type Table struct {
	W     *Warehouse
	Ident table.Identifier
	T     *table.Table
}

// CreateTable creates ns.name with the given schema and properties.
func (w *Warehouse) CreateTable(ctx context.Context, ident string, sc *iceberg.Schema, props iceberg.Properties) (*Table, error) {
	t, err := icebergwrite.CreateTable(ctx, w.Catalog, ident, sc, catalog.WithProperties(props))
	if err != nil {
		return nil, err
	}
	return &Table{W: w, Ident: catalog.ToIdentifier(strings.Split(ident, ".")...), T: t}, nil
}

// WriteTable creates ns.name with the given schema and properties and
// commits each of appends as one append.
func (w *Warehouse) WriteTable(ctx context.Context, ident string, sc *iceberg.Schema, props iceberg.Properties, appends ...[]Row) (*Table, error) {
	t, err := w.CreateTable(ctx, ident, sc, props)
	if err != nil {
		return nil, err
	}
	for _, rows := range appends {
		if err := t.Append(ctx, rows); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// LoadTable loads an existing table.
func (w *Warehouse) LoadTable(ctx context.Context, ident string) (*Table, error) {
	id := catalog.ToIdentifier(strings.Split(ident, ".")...)
	t, err := w.Catalog.LoadTable(ctx, id)
	if err != nil {
		return nil, err
	}
	return &Table{W: w, Ident: id, T: t}, nil
}

// Refresh reloads the table metadata from the catalog.
func (t *Table) Refresh(ctx context.Context) error {
	nt, err := t.W.Catalog.LoadTable(ctx, t.Ident)
	if err != nil {
		return err
	}
	t.T = nt
	return nil
}

// Row is one row as JSON-compatible values keyed by column name.
type Row = map[string]any

// Records converts rows to an arrow record reader with the table's current
// schema. Values follow arrow's JSON conventions (dates as "2024-01-31",
// timestamps as RFC 3339, decimals as strings).
func (t *Table) Records(rows []Row) (array.RecordReader, error) {
	return jsonRows(rows)(t.T.Schema())
}

// jsonRows makes rows into record batches through their JSON (arrow's
// JSON reader knows its conventions); icebergwrite takes Go values.
func jsonRows(rows []Row) icebergwrite.Rows {
	return func(sc *iceberg.Schema) (array.RecordReader, error) {
		asc, err := table.SchemaToArrowSchema(sc, nil, false, false)
		if err != nil {
			return nil, err
		}
		if rows == nil {
			rows = []Row{} // a JSON array, not null
		}
		js, err := json.Marshal(rows)
		if err != nil {
			return nil, err
		}
		rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, asc, strings.NewReader(string(js)))
		if err != nil {
			return nil, fmt.Errorf("build records: %w", err)
		}
		defer rec.Release()
		return array.NewRecordReader(asc, []arrow.RecordBatch{rec})
	}
}

// Append commits rows as a fast append (one new data file, or more when the
// target file size is small).
func (t *Table) Append(ctx context.Context, rows []Row) error {
	return t.commit(icebergwrite.Append(ctx, t.T, jsonRows(rows)))
}

// Overwrite is a copy-on-write commit: rows matching filter are removed by
// rewriting their files, then rows are added.
func (t *Table) Overwrite(ctx context.Context, filter iceberg.BooleanExpression, rows []Row) error {
	return t.commit(icebergwrite.Overwrite(ctx, t.T, filter, jsonRows(rows)))
}

// Delete removes rows matching filter, honouring write.delete.mode.
func (t *Table) Delete(ctx context.Context, filter iceberg.BooleanExpression) error {
	return t.commit(icebergwrite.Delete(ctx, t.T, filter))
}

// commit keeps the table a commit made, unless it failed.
func (t *Table) commit(nt *table.Table, err error) error {
	if err != nil {
		return err
	}
	t.T = nt
	return nil
}

// EqualityDelete commits an equality-delete file for the given key rows.
func (t *Table) EqualityDelete(ctx context.Context, columns []string, rows []Row) error {
	var ids []int
	for _, c := range columns {
		f, ok := t.T.Schema().FindFieldByName(c)
		if !ok {
			return fmt.Errorf("no column %q", c)
		}
		ids = append(ids, f.ID)
	}
	sub, err := t.T.Schema().Select(true, columns...)
	if err != nil {
		return err
	}
	asc, err := table.SchemaToArrowSchema(sub, nil, false, false)
	if err != nil {
		return err
	}
	js, _ := json.Marshal(rows)
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, asc, strings.NewReader(string(js)))
	if err != nil {
		return err
	}
	defer rec.Release()
	seq := func(yield func(arrow.RecordBatch, error) bool) { yield(rec, nil) }
	return t.Commit(ctx, func(tx *table.Transaction) error {
		if err := tx.CommitEqualityDeletes(ctx, ids, iter.Seq2[arrow.RecordBatch, error](seq), nil); err != nil {
			return fmt.Errorf("equality delete: %w", err)
		}
		return nil
	})
}

// Commit runs fn in a transaction and commits it.
func (t *Table) Commit(ctx context.Context, fn func(tx *table.Transaction) error) error {
	tx := t.T.NewTransaction()
	if err := fn(tx); err != nil {
		return err
	}
	nt, err := tx.Commit(ctx)
	if err != nil {
		return err
	}
	t.T = nt
	return nil
}

// SetProperties commits table properties.
func (t *Table) SetProperties(ctx context.Context, props iceberg.Properties) error {
	return t.Commit(ctx, func(tx *table.Transaction) error { return tx.SetProperties(props) })
}

// Compact rewrites every live data file into new files with all deletes
// applied and removes every live delete file: a replace snapshot after which
// the table has no live delete files.
func (t *Table) Compact(ctx context.Context) error {
	nt, _, err := icebergwrite.Compact(ctx, t.T, nil)
	return t.commit(nt, err)
}

// ExpireAllButCurrent expires every snapshot but the current one and deletes
// the files only they referenced.
func (t *Table) ExpireAllButCurrent(ctx context.Context) error {
	return t.Commit(ctx, func(tx *table.Transaction) error {
		return tx.ExpireSnapshots(table.WithRetainLast(1), table.WithOlderThan(0))
	})
}

// Rollback sets the main branch back to an ancestor snapshot.
func (t *Table) Rollback(ctx context.Context, snapshotID int64) error {
	return t.Commit(ctx, func(tx *table.Transaction) error { return tx.RollbackToSnapshot(snapshotID) })
}

// Ancestors lists the ids of the current snapshot's ancestors, its
// parent first: the snapshots Rollback may go back to.
func (t *Table) Ancestors() []int64 {
	var ids []int64
	md := t.T.Metadata()
	for s := md.CurrentSnapshot(); s != nil && s.ParentSnapshotID != nil; {
		if s = md.SnapshotByID(*s.ParentSnapshotID); s != nil {
			ids = append(ids, s.SnapshotID)
		}
	}
	return ids
}

// ReadRows reads every row of a snapshot (0 = current) with all deletes
// applied, as JSON-like maps, independently of the indexer.
func (t *Table) ReadRows(ctx context.Context, snapshotID int64) ([]Row, error) {
	opts := []table.ScanOption{}
	if snapshotID != 0 {
		opts = append(opts, table.WithSnapshotID(snapshotID))
	}
	tbl, err := t.T.Scan(opts...).ToArrowTable(ctx)
	if err != nil {
		return nil, err
	}
	defer tbl.Release()
	var out []Row
	tr := array.NewTableReader(tbl, 1024)
	defer tr.Release()
	for tr.Next() {
		rec := tr.RecordBatch()
		js, err := rec.MarshalJSON()
		if err != nil {
			return nil, err
		}
		var rows []Row
		dec := json.NewDecoder(strings.NewReader(string(js)))
		dec.UseNumber()
		if err := dec.Decode(&rows); err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	return out, tr.Err()
}
