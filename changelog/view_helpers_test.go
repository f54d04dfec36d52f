package changelog

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go/table"
)

// The view tests compare each view with rows read without it: whole
// snapshots through iceberg-go's own scan (scanRows), and single data
// files straight from their Parquet bytes (fileRows), with the files each
// snapshot added and removed taken from iceberg-go's scan planning of the
// snapshot and its parent. Rows render as rowString does.

// cells are the rendered values of one row, in column order.
type cells []string

func (c cells) String() string { return strings.Join(c, ", ") }

// viewRows runs a view and returns its rows, the data columns rendered;
// types holds the change type of each row of the changelog view.
func viewRows(tb testing.TB, tbl *table.Table, opts ViewOptions) (rows []cells, types []ChangeType, v *TableView) {
	tb.Helper()
	ctx := context.Background()
	v, err := View(ctx, tbl, opts)
	if err != nil {
		tb.Fatalf("View(%+v): %v", opts, err)
	}
	data := len(v.Schema().Fields())
	if opts.Mode == ViewChangelog {
		data -= 3
	}
	for rec, err := range v.Records(ctx) {
		if err != nil {
			tb.Fatalf("view %s (%d, %d]: %v", opts.Mode, opts.From, opts.To, err)
		}
		if !rec.Schema().Equal(v.Schema()) {
			tb.Fatalf("view %s: batch schema %s differs from %s", opts.Mode, rec.Schema(), v.Schema())
		}
		// Net changes repeat a repeated row (Options.BatchRows).
		if opts.BatchRows > 0 && opts.Mode != ViewChangelog && rec.NumRows() > int64(opts.BatchRows) {
			tb.Fatalf("view %s: a batch of %d rows, more than BatchRows %d", opts.Mode, rec.NumRows(), opts.BatchRows)
		}
		for i := range int(rec.NumRows()) {
			rows = append(rows, rowCells(rec, data, i))
			if opts.Mode == ViewChangelog {
				types = append(types, ChangeType(rec.Column(data).(*array.String).Value(i)))
			}
		}
	}
	return rows, types, v
}

func rowCells(rec arrow.RecordBatch, n, i int) cells {
	out := make(cells, n)
	for j := range n {
		if col := rec.Column(j); col.IsNull(i) {
			out[j] = "null"
		} else {
			out[j] = col.ValueStr(i)
		}
	}
	return out
}

// multiset counts rows by their rendering.
func multiset(rows []cells) map[string]int {
	out := map[string]int{}
	for _, r := range rows {
		out[r.String()]++
	}
	return out
}

// stateRows reads the named columns of a snapshot with iceberg-go's scan
// of that snapshot; a column it does not have yet reads as null, as
// Iceberg reads older rows through a newer schema. Snapshot 0 is the
// empty table.
func stateRows(tb testing.TB, tbl *table.Table, snap int64, names []string) map[string]int {
	tb.Helper()
	out := map[string]int{}
	if snap == 0 {
		return out
	}
	_, it, err := tbl.Scan(table.WithSnapshotID(snap)).ToArrowRecords(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	for rec, err := range it {
		if err != nil {
			tb.Fatal(err)
		}
		addAll(out, namedRows(rec, names))
		rec.Release()
	}
	return out
}

// namedRows renders the named columns of every row of rec; a column rec
// does not have is null.
func namedRows(rec arrow.RecordBatch, names []string) map[string]int {
	idx := make([]int, len(names))
	for j, n := range names {
		idx[j] = -1
		if is := rec.Schema().FieldIndices(n); len(is) == 1 {
			idx[j] = is[0]
		}
	}
	out := map[string]int{}
	for i := range int(rec.NumRows()) {
		row := make(cells, len(names))
		for j, c := range idx {
			if c < 0 || rec.Column(c).IsNull(i) {
				row[j] = "null"
			} else {
				row[j] = rec.Column(c).ValueStr(i)
			}
		}
		out[row.String()]++
	}
	return out
}

// assertRows compares multisets of rows, naming what is compared and at
// most a few of the differences.
func assertRows(tb testing.TB, what string, got, want map[string]int) {
	tb.Helper()
	var diffs []string
	for k := range maps.Keys(mergeKeys(got, want)) {
		if got[k] != want[k] {
			diffs = append(diffs, fmt.Sprintf("  (%s): %d, want %d", k, got[k], want[k]))
		}
	}
	if len(diffs) > 0 {
		slices.Sort(diffs)
		tb.Fatalf("%s: %d rows differ, the first ones:\n%s", what, len(diffs), strings.Join(diffs[:min(len(diffs), 5)], "\n"))
	}
}

func mergeKeys(a, b map[string]int) map[string]int {
	out := maps.Clone(a)
	for k := range b {
		out[k] += 0
	}
	return out
}

// liveFiles lists the data files live at a snapshot (none at 0), as
// iceberg-go's scan plans them.
func liveFiles(tb testing.TB, tbl *table.Table, snap int64) map[string]bool {
	tb.Helper()
	out := map[string]bool{}
	if snap == 0 {
		return out
	}
	tasks, err := tbl.Scan(table.WithSnapshotID(snap)).PlanFiles(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	for _, t := range tasks {
		out[t.File.FilePath()] = true
	}
	return out
}

// fileRows reads the named columns of one data file from its Parquet bytes.
func fileRows(tb testing.TB, tbl *table.Table, path string, names []string) map[string]int {
	tb.Helper()
	ctx := context.Background()
	fs, err := tbl.FS(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	f, err := fs.Open(path)
	if err != nil {
		tb.Fatalf("open %s: %v", path, err)
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		tb.Fatalf("read %s: %v", path, err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1024}, memory.DefaultAllocator)
	if err != nil {
		tb.Fatal(err)
	}
	rr, err := fr.GetRecordReader(ctx, nil, nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer rr.Release()
	out := map[string]int{}
	for rr.Next() {
		addAll(out, namedRows(rr.RecordBatch(), names))
	}
	if err := rr.Err(); err != nil && !errors.Is(err, context.Canceled) {
		tb.Fatal(err)
	}
	return out
}

// fileChanges reads the rows of the data files that the snapshots of the
// chain (from, to] added and removed, replace snapshots excepted.
func fileChanges(tb testing.TB, tbl *table.Table, from, to int64, names []string) (added, removed map[string]int) {
	tb.Helper()
	added, removed = map[string]int{}, map[string]int{}
	for _, s := range chainOf(tb, tbl, from, to) {
		if s.Summary.Operation == table.OpReplace {
			continue
		}
		var parent int64
		if s.ParentSnapshotID != nil {
			parent = *s.ParentSnapshotID
		}
		before, after := liveFiles(tb, tbl, parent), liveFiles(tb, tbl, s.SnapshotID)
		for p := range after {
			if !before[p] {
				addAll(added, fileRows(tb, tbl, p, names))
			}
		}
		for p := range before {
			if !after[p] {
				addAll(removed, fileRows(tb, tbl, p, names))
			}
		}
	}
	return added, removed
}

// chainOf walks the parents of to back to from, oldest first.
func chainOf(tb testing.TB, tbl *table.Table, from, to int64) []table.Snapshot {
	tb.Helper()
	var out []table.Snapshot
	for _, s := range table.AncestorsOf(to, tbl.Metadata().SnapshotByID) {
		if s.SnapshotID == from {
			break
		}
		out = append(out, s)
	}
	slices.Reverse(out)
	return out
}

func addAll(dst, src map[string]int) {
	for k, n := range src {
		dst[k] += n
	}
}

// byID indexes rows by their identifier cells, failing on a duplicate.
func byID(tb testing.TB, rows map[string]int, idIdx []int) map[string]string {
	tb.Helper()
	out := map[string]string{}
	for row, n := range rows {
		parts := strings.Split(row, ", ")
		var key []string
		for _, i := range idIdx {
			key = append(key, parts[i])
		}
		k := strings.Join(key, ", ")
		if _, dup := out[k]; dup || n > 1 {
			tb.Fatalf("identifier (%s) is not unique", k)
		}
		out[k] = row
	}
	return out
}

// checkViews runs every view of (from, to] and checks it against rows read
// independently. ids are identifier columns (indexes idIdx), unique at
// both ends; without them modified and identifier-latest are not checked.
func checkViews(tb testing.TB, tbl *table.Table, from, to int64, ids []string) {
	tb.Helper()
	// Small batches, so that views span batches, on small tables only.
	batch := 3
	if s := tbl.Metadata().SnapshotByID(to); s.Summary != nil {
		if n, err := strconv.Atoi(s.Summary.Properties["total-records"]); err == nil && n > 1000 {
			batch = 0
		}
	}
	get := func(mode ViewMode, ids ...string) ([]cells, []ChangeType, *TableView) {
		tb.Helper()
		return viewRows(tb, tbl, ViewOptions{Mode: mode, From: from, To: to, Identifiers: ids, BatchRows: batch})
	}
	cur, _, v := get(ViewCurrent)
	if f, t := v.Range(); f != from || t != to {
		tb.Fatalf("Range() = (%d, %d], want (%d, %d]", f, t, from, to)
	}
	var names []string
	for _, f := range v.Schema().Fields() {
		names = append(names, f.Name)
	}
	before, after := stateRows(tb, tbl, from, names), stateRows(tb, tbl, to, names)
	assertRows(tb, "current", multiset(cur), after)
	prev, _, _ := get(ViewPrevious)
	assertRows(tb, "previous", multiset(prev), before)

	wantAdded, wantRemoved := fileChanges(tb, tbl, from, to, names)
	added, _, _ := get(ViewAdded)
	assertRows(tb, "added", multiset(added), wantAdded)
	removed, _, _ := get(ViewRemoved)
	assertRows(tb, "removed", multiset(removed), wantRemoved)
	// What the range added minus what it removed is what changed.
	signed := maps.Clone(multiset(added))
	for k, n := range multiset(removed) {
		signed[k] -= n
	}
	for k, n := range after {
		if signed[k] != n-before[k] {
			tb.Fatalf("row (%s): added minus removed %d, the snapshots hold it %d times then %d", k, signed[k], before[k], n)
		}
	}

	net, types, _ := get(ViewChangelog)
	ins, del := map[string]int{}, map[string]int{}
	for i, r := range net {
		switch types[i] {
		case Insert:
			ins[r.String()]++
		case Delete:
			del[r.String()]++
		default:
			tb.Fatalf("net change %s (%s)", types[i], r)
		}
	}
	assertRows(tb, "changelog INSERTs", ins, difference(after, before))
	assertRows(tb, "changelog DELETEs", del, difference(before, after))

	if len(ids) == 0 {
		return
	}
	var idIdx []int
	for _, id := range ids {
		idIdx = append(idIdx, slices.Index(names, id))
	}
	old, cur2 := byID(tb, before, idIdx), byID(tb, after, idIdx)
	want := map[string]int{}
	for k, row := range cur2 {
		if o, ok := old[k]; ok && o != row {
			want[row]++
		}
	}
	mod, _, _ := get(ViewModified, ids...)
	assertRows(tb, "modified", multiset(mod), want)

	// previous + changelog(ids), applied as upserts and deletes, is current.
	latest, types, _ := get(ViewChangelog, ids...)
	state := maps.Clone(old)
	seen := map[string]bool{}
	for i, r := range latest {
		var key []string
		for _, j := range idIdx {
			key = append(key, r[j])
		}
		k := strings.Join(key, ", ")
		if seen[k] {
			tb.Fatalf("identifier (%s) changes twice", k)
		}
		seen[k] = true
		switch types[i] {
		case Insert, UpdateAfter:
			state[k] = r.String()
		case Delete:
			delete(state, k)
		default:
			tb.Fatalf("identifier-latest change %s (%s)", types[i], r)
		}
	}
	applied := map[string]int{}
	for _, row := range state {
		applied[row]++
	}
	assertRows(tb, "previous + changelog(ids)", applied, after)
}

// snapshotChain is 0 and the ancestors of the current snapshot, oldest first.
func snapshotChain(tbl *table.Table) []int64 {
	out := []int64{0}
	for _, s := range table.AncestorsOf(tbl.CurrentSnapshot().SnapshotID, tbl.Metadata().SnapshotByID) {
		out = append(out, s.SnapshotID)
	}
	slices.Reverse(out[1:])
	return out
}

func rangeName(from, to int64) string { return fmt.Sprintf("(%d, %d]", from, to) }
