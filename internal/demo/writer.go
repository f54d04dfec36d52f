package demo

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/cowguard"
	"github.com/ontoindex/ontoindex/internal/icebergwrite"
)

// Change kinds.
const (
	KindUpdate     = "copy-on-write update"
	KindInsert     = "insert"
	KindDelete     = "copy-on-write delete"
	KindMORDelete  = "merge-on-read delete"
	KindCompaction = "compaction"
)

// Change is one commit the writer made.
type Change struct {
	ObjectType string
	Table      string
	Kind       string
	// Key is the primary key of the changed object as ontoindex renders
	// it (components joined by commas); empty for a compaction.
	Key string
	// Detail says what changed, for people.
	Detail       string
	SnapshotID   int64
	FilesAdded   int
	FilesRemoved int
	DeleteFiles  int // delete files the commit added
}

func (c Change) String() string {
	s := fmt.Sprintf("%s: %s", c.ObjectType, c.Kind)
	if c.Key != "" {
		s += " of " + c.Key
	}
	if c.Detail != "" {
		s += " (" + c.Detail + ")"
	}
	return s
}

// Writer commits small changes to the demo tables, as an application
// would: copy-on-write updates and deletes, inserts, and on the
// merge-on-read aircraft table position deletes and compactions. Its
// choices are seeded by the demo's seed and the number of snapshots of the
// table it changes, so a given history always leads to the same change.
type Writer struct {
	d *Demo
}

// Writer returns a writer of the demo's tables.
func (d *Demo) Writer() *Writer { return &Writer{d: d} }

// rng seeds the choices of one change.
func (w *Writer) rng(tbl *table.Table, what string) *rand.Rand {
	n := int64(len(tbl.Metadata().Snapshots()))
	return rowRand(w.d.opts.Seed+uint64(n)*7919, what, n)
}

// UpdateCustomer moves one customer to another city: a copy-on-write
// overwrite that rewrites the one data file holding the row.
func (w *Writer) UpdateCustomer(ctx context.Context) (Change, error) {
	tbl, err := w.d.LoadTable(ctx, CustomersTable)
	if err != nil {
		return Change{}, err
	}
	r := w.rng(tbl, "update-customer")
	id := 1 + r.Int64N(w.d.opts.Customers)
	filter := iceberg.EqualTo(iceberg.Reference("customer_id"), id)
	cur, err := readStrings(ctx, tbl, filter, "city")
	if err != nil {
		return Change{}, err
	}
	if len(cur) != 1 {
		return Change{}, fmt.Errorf("customer %d: found %d rows", id, len(cur))
	}
	c := genCustomer(w.d.opts.Seed, id)
	for {
		p := pick(r, places)
		if p.city != cur[0][0] {
			c.City, c.Country = p.city, p.country
			break
		}
	}
	c.UpdatedAt = time.Now().UTC()
	tbl, err = icebergwrite.Overwrite(ctx, tbl, filter, icebergwrite.Values(c.values()))
	if err != nil {
		return Change{}, fmt.Errorf("update customer %d: %w", id, err)
	}
	return change(tbl, Customer, CustomersTable, KindUpdate, strconv.FormatInt(id, 10), fmt.Sprintf("city %s -> %s", cur[0][0], c.City)), nil
}

// InsertOrder appends a new order of one to five lines.
func (w *Writer) InsertOrder(ctx context.Context) (Change, error) {
	tbl, err := w.d.LoadTable(ctx, OrderLinesTable)
	if err != nil {
		return Change{}, err
	}
	keys, err := readInts(ctx, tbl, nil, "order_id")
	if err != nil {
		return Change{}, err
	}
	var last int64
	for _, k := range keys {
		last = max(last, k[0])
	}
	id := last + 1
	lines := genOrder(w.d.opts.Seed, id, w.d.opts.Customers)
	now := time.Now().UTC()
	for i := range lines {
		lines[i].OrderedAt, lines[i].Status = now, "processing"
	}
	rows := make([][]any, len(lines))
	for i, l := range lines {
		rows[i] = l.values()
	}
	tbl, err = icebergwrite.Append(ctx, tbl, icebergwrite.Values(rows...))
	if err != nil {
		return Change{}, fmt.Errorf("insert order %d: %w", id, err)
	}
	return change(tbl, OrderLine, OrderLinesTable, KindInsert, fmt.Sprintf("%d,1", id),
		fmt.Sprintf("order %d with %d lines for customer %d", id, len(lines), lines[0].CustomerID)), nil
}

// DeleteOrderLine deletes one order line: a copy-on-write delete that
// rewrites the data file holding it.
func (w *Writer) DeleteOrderLine(ctx context.Context) (Change, error) {
	tbl, err := w.d.LoadTable(ctx, OrderLinesTable)
	if err != nil {
		return Change{}, err
	}
	keys, err := readInts(ctx, tbl, nil, "order_id", "line_no")
	if err != nil {
		return Change{}, err
	}
	if len(keys) == 0 {
		return Change{}, fmt.Errorf("delete order line: %s is empty", OrderLinesTable)
	}
	slices.SortFunc(keys, slices.Compare)
	k := keys[w.rng(tbl, "delete-order-line").IntN(len(keys))]
	filter := iceberg.NewAnd(iceberg.EqualTo(iceberg.Reference("order_id"), k[0]), iceberg.EqualTo(iceberg.Reference("line_no"), int32(k[1])))
	tbl, err = icebergwrite.Delete(ctx, tbl, filter)
	if err != nil {
		return Change{}, fmt.Errorf("delete order line %d,%d: %w", k[0], k[1], err)
	}
	return change(tbl, OrderLine, OrderLinesTable, KindDelete, fmt.Sprintf("%d,%d", k[0], k[1]), ""), nil
}

// AircraftHasDeletes reports whether the aircraft table's current snapshot
// has live delete files (and so cannot be indexed until it is compacted).
func (w *Writer) AircraftHasDeletes(ctx context.Context) (bool, error) {
	tbl, err := w.d.LoadTable(ctx, AircraftTable)
	if err != nil {
		return false, err
	}
	fs, err := tbl.FS(ctx)
	if err != nil {
		return false, err
	}
	c, err := cowguard.LiveDeletes(ctx, fs, tbl.CurrentSnapshot())
	return c.Total() > 0, err
}

// RetireAircraft deletes one aircraft from the merge-on-read table: the
// delete writes a position-delete file, which ontoindex refuses to index.
func (w *Writer) RetireAircraft(ctx context.Context) (Change, error) {
	tbl, err := w.d.LoadTable(ctx, AircraftTable)
	if err != nil {
		return Change{}, err
	}
	tails, err := readStrings(ctx, tbl, nil, "tail_number")
	if err != nil {
		return Change{}, err
	}
	if len(tails) == 0 {
		return Change{}, fmt.Errorf("retire aircraft: %s is empty", AircraftTable)
	}
	slices.SortFunc(tails, slices.Compare)
	tail := tails[w.rng(tbl, "retire-aircraft").IntN(len(tails))][0]
	tbl, err = icebergwrite.Delete(ctx, tbl, iceberg.EqualTo(iceberg.Reference("tail_number"), tail))
	if err != nil {
		return Change{}, fmt.Errorf("retire aircraft %s: %w", tail, err)
	}
	return change(tbl, Aircraft, AircraftTable, KindMORDelete, tail, "writes a position-delete file"), nil
}

// CompactAircraft rewrites the aircraft table's data files with its
// deletes applied and removes the delete files: the table can be indexed
// again.
func (w *Writer) CompactAircraft(ctx context.Context) (Change, error) {
	tbl, err := w.d.LoadTable(ctx, AircraftTable)
	if err != nil {
		return Change{}, err
	}
	tbl, deletes, err := icebergwrite.Compact(ctx, tbl, nil)
	if err != nil {
		return Change{}, err
	}
	return change(tbl, Aircraft, AircraftTable, KindCompaction, "", "removes "+plural(deletes, "delete file")), nil
}

// Step makes one change chosen at random: mostly customer updates, new
// orders and deleted order lines; now and then an aircraft is retired
// (merge-on-read) or, when the aircraft table has delete files, it is
// compacted.
func (w *Writer) Step(ctx context.Context, r *rand.Rand) (Change, error) {
	switch x := r.IntN(100); {
	case x < 40:
		return w.UpdateCustomer(ctx)
	case x < 70:
		return w.InsertOrder(ctx)
	case x < 90:
		return w.DeleteOrderLine(ctx)
	}
	dirty, err := w.AircraftHasDeletes(ctx)
	if err != nil {
		return Change{}, err
	}
	if dirty {
		return w.CompactAircraft(ctx)
	}
	return w.RetireAircraft(ctx)
}

func change(tbl *table.Table, objectType, ident, kind, key, detail string) Change {
	s := tbl.CurrentSnapshot()
	c := Change{ObjectType: objectType, Table: CatalogName + "." + ident, Kind: kind, Key: key, Detail: detail, SnapshotID: s.SnapshotID}
	if s.Summary != nil {
		p := s.Summary.Properties
		c.FilesAdded, _ = strconv.Atoi(p["added-data-files"])
		c.FilesRemoved, _ = strconv.Atoi(p["deleted-data-files"])
		c.DeleteFiles, _ = strconv.Atoi(p["added-delete-files"])
	}
	return c
}

// scanColumns reads columns of the table's current rows (deletes applied).
func scanColumns(ctx context.Context, tbl *table.Table, filter iceberg.BooleanExpression, columns []string, fn func(cols []arrow.Array, i int)) error {
	opts := []table.ScanOption{table.WithSelectedFields(columns...)}
	if filter != nil {
		opts = append(opts, table.WithRowFilter(filter))
	}
	at, err := tbl.Scan(opts...).ToArrowTable(ctx)
	if err != nil {
		return fmt.Errorf("scan %v: %w", columns, err)
	}
	defer at.Release()
	tr := array.NewTableReader(at, 8192)
	defer tr.Release()
	for tr.Next() {
		rec := tr.RecordBatch()
		cols := make([]arrow.Array, len(columns))
		for i, name := range columns {
			idx := rec.Schema().FieldIndices(name)
			if len(idx) == 0 {
				return fmt.Errorf("scan: no column %s", name)
			}
			cols[i] = rec.Column(idx[0])
		}
		for i := range int(rec.NumRows()) {
			fn(cols, i)
		}
	}
	return tr.Err()
}

func readInts(ctx context.Context, tbl *table.Table, filter iceberg.BooleanExpression, columns ...string) ([][]int64, error) {
	var out [][]int64
	err := scanColumns(ctx, tbl, filter, columns, func(cols []arrow.Array, i int) {
		row := make([]int64, len(cols))
		for j, c := range cols {
			switch a := c.(type) {
			case *array.Int64:
				row[j] = a.Value(i)
			case *array.Int32:
				row[j] = int64(a.Value(i))
			}
		}
		out = append(out, row)
	})
	return out, err
}

func readStrings(ctx context.Context, tbl *table.Table, filter iceberg.BooleanExpression, columns ...string) ([][]string, error) {
	var out [][]string
	err := scanColumns(ctx, tbl, filter, columns, func(cols []arrow.Array, i int) {
		row := make([]string, len(cols))
		for j, c := range cols {
			if s, ok := c.(*array.String); ok && s.IsValid(i) {
				row[j] = s.Value(i)
			}
		}
		out = append(out, row)
	})
	return out, err
}

// plural counts things: 1 file, 2 files.
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
