package changelog

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/cowguard"
)

// ViewMode names one view of a table over a snapshot range, as Foundry's
// incremental Iceberg inputs name them.
type ViewMode string

// The views of a range (from, to].
const (
	// ViewCurrent is the rows at to.
	ViewCurrent ViewMode = "current"
	// ViewPrevious is the rows at from (none when the range starts before
	// the table's first snapshot).
	ViewPrevious ViewMode = "previous"
	// ViewAdded is the rows of the data files that the snapshots of the
	// range added, replace snapshots (compactions) excepted. A
	// copy-on-write rewrite adds the rows it carries over too.
	ViewAdded ViewMode = "added"
	// ViewModified is, by identifier, the row at to of each identifier
	// that exists at both ends with different values.
	ViewModified ViewMode = "modified"
	// ViewRemoved is the rows of the data files that the snapshots of the
	// range removed, replace snapshots excepted.
	ViewRemoved ViewMode = "removed"
	// ViewChangelog is the replayed changelog: identifier-latest changes
	// when identifiers are given (no UPDATE_BEFORE rows), else net changes.
	ViewChangelog ViewMode = "changelog"
)

// ViewModes lists the views in the order the documentation gives them.
func ViewModes() []ViewMode {
	return []ViewMode{ViewCurrent, ViewPrevious, ViewAdded, ViewModified, ViewRemoved, ViewChangelog}
}

// ViewOptions select a view and its range.
type ViewOptions struct {
	Mode ViewMode
	// From is the exclusive start of the range, as in Options; 0 starts
	// before the oldest ancestor of To. From may equal To: the range is
	// then empty, and only current and previous have rows.
	From int64
	// To is the inclusive end of the range; 0 is the current snapshot.
	To int64
	// Identifiers identify a row across snapshots. ViewModified needs
	// them (default: the table's identifier fields at To); ViewChangelog
	// emits identifier-latest changes with them and net changes without.
	Identifiers []string
	// Columns selects and orders the table columns of the output (default:
	// every column at To). Modified rows are still compared on every
	// column; the changelog's metadata columns always follow.
	Columns []string

	// BatchRows and BufferBytes are as in Options.
	BatchRows   int
	BufferBytes int64
	// Table names the table in errors (default: its identifier).
	Table string
}

// TableView is a planned view. Records reads it; like Changelog, it is not
// safe for concurrent use.
type TableView struct {
	mode     ViewMode
	name     string
	from, to int64
	empty    bool       // from == to
	base     *Changelog // the scan at to; the planned replay for range views
	replayed bool       // base was planned by Replay
	idIdx    []int      // identifier columns, for modified
	files    []table.FileScanTask
	fileSnap int64 // the snapshot files belong to
	cols     []int // output columns, indexes into the data columns
	out      *arrow.Schema
}

// View plans a view of tbl. Every view has the columns of To (projected
// to Columns), read through To's schema as Replay reads them, so that
// rows at both ends compare. current and previous refuse a state with
// live delete files; added, removed, modified and changelog refuse the
// ranges Replay refuses (*cowguard.MergeOnReadError, *RangeError).
func View(ctx context.Context, tbl *table.Table, opts ViewOptions) (*TableView, error) {
	name := opts.Table
	if name == "" {
		name = strings.Join(tbl.Identifier(), ".")
	}
	if !slices.Contains(ViewModes(), opts.Mode) {
		return nil, fmt.Errorf("%w: table %s: unknown view %q (views: %s)", ErrInvalidOptions, name, opts.Mode, joinModes())
	}
	if opts.BatchRows <= 0 {
		opts.BatchRows = DefaultBatchRows
	}
	v := &TableView{mode: opts.Mode, name: name}
	chain, err := snapshotRange(tbl.Metadata(), name, opts.From, opts.To)
	switch {
	case errors.Is(err, ErrEmptyRange):
		// from == to: nothing changed, which is what a consumer that is up
		// to date asks about; the views are empty, not an error.
		v.empty, v.from, v.to = true, opts.From, opts.From
	case err != nil:
		return nil, err
	default:
		v.to = chain[len(chain)-1].SnapshotID
		if p := chain[0].ParentSnapshotID; p != nil {
			v.from = *p
		}
	}

	rangeView := opts.Mode != ViewCurrent && opts.Mode != ViewPrevious
	if rangeView && !v.empty {
		ro := Options{From: opts.From, To: v.to, BatchRows: opts.BatchRows, BufferBytes: opts.BufferBytes, Table: name}
		switch {
		case opts.Mode == ViewModified:
			ro.Net = true
		case opts.Mode == ViewChangelog && len(opts.Identifiers) > 0:
			ro.Latest, ro.Identifiers = true, opts.Identifiers
		case opts.Mode == ViewChangelog:
			ro.Net = true
		}
		if v.base, err = Replay(ctx, tbl, ro); err != nil {
			return nil, err
		}
		v.replayed = true
	} else {
		v.base = &Changelog{tbl: tbl, name: name, from: v.from, to: v.to}
		v.base.scan = endScan(tbl, v.to, opts.BatchRows)
		if v.base.data, err = v.base.readSchema(ctx); err != nil {
			return nil, err
		}
	}
	if err := v.resolveColumns(opts); err != nil {
		return nil, err
	}
	switch opts.Mode {
	case ViewCurrent:
		err = v.planState(ctx, tbl, v.to, "to")
	case ViewPrevious:
		if v.from != 0 {
			err = v.planState(ctx, tbl, v.from, "from")
		}
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

func joinModes() string {
	var s []string
	for _, m := range ViewModes() {
		s = append(s, string(m))
	}
	return strings.Join(s, ", ")
}

// endScan is the scan a range ending at to reads files with: through the
// current schema when to is the current snapshot, as Iceberg's live reads
// do, else through to's own (as Replay does).
func endScan(tbl *table.Table, to int64, batchRows int) *table.Scan {
	opts := []table.ScanOption{table.WithArrowBatchSize(batchRows), table.WithMaxConcurrency(1)}
	if cur := tbl.CurrentSnapshot(); cur == nil || cur.SnapshotID != to {
		opts = append(opts, table.WithSnapshotID(to))
	}
	return tbl.Scan(opts...)
}

// resolveColumns checks Columns and the identifiers of a modified view
// against the columns at To, and builds the output schema.
func (v *TableView) resolveColumns(opts ViewOptions) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: table %s: %s", ErrInvalidOptions, v.name, fmt.Sprintf(format, args...))
	}
	data := v.base.data
	index := func(col string) int {
		return slices.IndexFunc(data.Fields(), func(f arrow.Field) bool { return f.Name == col })
	}
	if len(opts.Columns) == 0 {
		for i := range data.Fields() {
			v.cols = append(v.cols, i)
		}
	}
	for _, col := range opts.Columns {
		i := index(col)
		if i < 0 {
			return bad("column %q is not a column of snapshot %d", col, v.to)
		}
		if slices.Contains(v.cols, i) {
			return bad("column %q is listed twice", col)
		}
		v.cols = append(v.cols, i)
	}
	ids := opts.Identifiers
	if opts.Mode == ViewModified && len(ids) == 0 {
		sc, err := v.base.scan.Projection()
		if err != nil {
			return fmt.Errorf("table %s: schema of snapshot %d: %w", v.name, v.to, err)
		}
		if ids = IdentifierColumns(sc); len(ids) == 0 {
			return bad("the modified view needs identifier columns: none were given and snapshot %d has no identifier fields", v.to)
		}
	}
	if opts.Mode == ViewModified || opts.Mode == ViewChangelog {
		// Replay checks them too, but not for an empty range.
		for _, id := range ids {
			i := index(id)
			if i < 0 {
				return bad("identifier column %q is not a column of snapshot %d", id, v.to)
			}
			if slices.Contains(v.idIdx, i) {
				return bad("identifier column %q is listed twice", id)
			}
			v.idIdx = append(v.idIdx, i)
		}
	}
	var fields []arrow.Field
	for _, i := range v.cols {
		fields = append(fields, data.Field(i))
	}
	if v.mode == ViewChangelog {
		fields = append(fields, metadataFields()...)
	}
	md := data.Metadata()
	v.out = arrow.NewSchema(fields, &md)
	return nil
}

// metadataFields are the changelog's metadata columns, as Replay adds them.
func metadataFields() []arrow.Field {
	return []arrow.Field{
		{Name: ChangeTypeColumn, Type: arrow.BinaryTypes.String},
		{Name: ChangeOrdinalColumn, Type: arrow.PrimitiveTypes.Int32},
		{Name: CommitSnapshotColumn, Type: arrow.PrimitiveTypes.Int64},
	}
}

// planState plans the data files live at snapshot id (the range's end
// named which), refusing live delete files: their rows would not be the
// table's.
func (v *TableView) planState(ctx context.Context, tbl *table.Table, id int64, which string) error {
	snap := tbl.Metadata().SnapshotByID(id)
	if snap == nil {
		return &RangeError{Table: v.name, From: v.from, To: v.to, Err: ErrSnapshotNotFound,
			Detail: fmt.Sprintf("snapshot %d (%s) is expired: its rows cannot be read", id, which)}
	}
	if err := cowguard.Check(ctx, tbl, v.name, snap); err != nil {
		return err
	}
	tasks, err := tbl.Scan(table.WithSnapshotID(id)).PlanFiles(ctx)
	if err != nil {
		return fmt.Errorf("table %s: plan data files of snapshot %d: %w", v.name, id, err)
	}
	for i := range tasks {
		t := &tasks[i]
		if len(t.DeleteFiles)+len(t.EqualityDeleteFiles)+len(t.DeletionVectorFiles) > 0 {
			return fmt.Errorf("table %s: data file %s of snapshot %d has delete files", v.name, t.File.FilePath(), id)
		}
		t.Start, t.Length = 0, t.File.FileSizeBytes()
	}
	slices.SortFunc(tasks, func(a, b table.FileScanTask) int { return strings.Compare(a.File.FilePath(), b.File.FilePath()) })
	v.files, v.fileSnap = tasks, id
	return nil
}

// Mode is the view's mode.
func (v *TableView) Mode() ViewMode { return v.mode }

// Schema is the schema of the record batches: the (selected) columns at
// To, followed, in the changelog view, by Replay's metadata columns.
func (v *TableView) Schema() *arrow.Schema { return v.out }

// Range returns the resolved range (from, to], as Changelog.Range does;
// from equals to when the range is empty.
func (v *TableView) Range() (from, to int64) { return v.from, v.to }

// Changelog is the replay the range views (added, removed, modified,
// changelog) read, for its snapshots and stats; nil for current and
// previous, and for an empty range.
func (v *TableView) Changelog() *Changelog {
	if !v.replayed {
		return nil
	}
	return v.base
}

// Records streams the view as record batches with Schema; memory is
// bounded by one record batch for current, previous, added and removed,
// and by the changed rows for modified and changelog (see Replay). Each
// batch is released after the loop body returns; Retain it to keep it.
// An error ends the sequence.
func (v *TableView) Records(ctx context.Context) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		emit := func(rec arrow.RecordBatch) error {
			out := v.project(rec)
			defer out.Release()
			if !yield(out, nil) {
				return errStopped
			}
			return nil
		}
		err := v.run(ctx, emit)
		if err != nil && !errors.Is(err, errStopped) {
			yield(nil, err)
		}
	}
}

func (v *TableView) run(ctx context.Context, emit func(arrow.RecordBatch) error) error {
	switch {
	case v.mode == ViewCurrent || v.mode == ViewPrevious:
		for _, t := range v.files {
			if err := v.readTask(ctx, t, emit); err != nil {
				return err
			}
		}
		return nil
	case v.empty:
		return nil
	case v.mode == ViewModified:
		return v.base.runModified(ctx, v.idIdx, emit)
	case v.mode == ViewChangelog:
		return v.base.run(ctx, emit)
	}
	c := v.base
	c.stats = ReplayStats{}
	for _, f := range c.allFiles() {
		if f.deleted != (v.mode == ViewRemoved) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := c.readFile(ctx, f, emit); err != nil {
			return err
		}
	}
	return nil
}

// readTask streams one live data file of the planned state.
func (v *TableView) readTask(ctx context.Context, t table.FileScanTask, emit func(arrow.RecordBatch) error) error {
	_, it, err := v.base.scan.ReadTasks(ctx, []table.FileScanTask{t})
	if err != nil {
		return fmt.Errorf("table %s: read data file %s of snapshot %d: %w", v.name, t.File.FilePath(), v.fileSnap, err)
	}
	for rec, err := range it {
		if err != nil {
			return fmt.Errorf("table %s: read data file %s of snapshot %d: %w", v.name, t.File.FilePath(), v.fileSnap, err)
		}
		err = emit(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// project selects the output columns of a batch of the data columns (and,
// from a replay, its metadata columns, which the changelog view keeps).
// The result is a new reference the caller releases.
func (v *TableView) project(rec arrow.RecordBatch) arrow.RecordBatch {
	cols := make([]arrow.Array, 0, len(v.out.Fields()))
	for _, i := range v.cols {
		cols = append(cols, rec.Column(i))
	}
	if v.mode == ViewChangelog {
		n := int(rec.NumCols())
		cols = append(cols, rec.Column(n-3), rec.Column(n-2), rec.Column(n-1))
	}
	return array.NewRecordBatch(v.out, cols, rec.NumRows())
}
