package soak

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/internal/icebergwrite"
)

// Kinds of the writer's commits.
const (
	kindLoad      = "load"
	kindUpdate    = "copy-on-write update"
	kindInsert    = "insert"
	kindDelete    = "copy-on-write delete"
	kindCompact   = "compaction"
	kindAddColumn = "schema addition"
	kindGroups    = "group update"
	kindRecreate  = "table recreated"
)

// fileRows is the rows of each data file of the first load.
const fileRows = 1000

// writer commits to the two tables, as an application would, and records
// each commit in the model before it makes it. One goroutine uses it at a
// time.
type writer struct {
	m       *model
	cat     catalog.Catalog
	items   *table.Table
	groups  *table.Table
	rng     *rand.Rand
	maxCols int
	commits map[string]int
	// log, when set, gets one JSON line per commit (commitLine): the
	// evidence to read when a check fails.
	log io.Writer
}

// commitLine is one commit in the writer's log.
type commitLine struct {
	Seq      int64     `json:"seq"`
	Table    string    `json:"table"`
	Kind     string    `json:"kind"`
	Snapshot int64     `json:"snapshotId,string"`
	At       time.Time `json:"at"`
	Write    []int64   `json:"write,omitempty"`
	Delete   []int64   `json:"delete,omitempty"`
}

func ident(name string) table.Identifier { return catalog.ToIdentifier(namespace, name) }

// setup creates the tables and loads rows items in files of fileRows and
// the groups.
func (w *writer) setup(ctx context.Context, rows int) error {
	var err error
	if w.items, err = icebergwrite.CreateTable(ctx, w.cat, namespace+"."+itemsTable, itemsSchema()); err != nil {
		return err
	}
	if w.groups, err = icebergwrite.CreateTable(ctx, w.cat, namespace+"."+groupsTable, groupsSchema()); err != nil {
		return err
	}
	gids := make([]int64, w.m.groups)
	for i := range gids {
		gids[i] = int64(i + 1)
	}
	if err := w.upsertGroups(ctx, kindLoad, gids, false); err != nil {
		return err
	}
	for from := 1; from <= rows; from += fileRows {
		ids := make([]int64, 0, fileRows)
		for id := from; id < from+fileRows && id <= rows; id++ {
			ids = append(ids, int64(id))
		}
		if err := w.append(ctx, kindLoad, ids); err != nil {
			return err
		}
	}
	return nil
}

// step makes one commit chosen at random.
func (w *writer) step(ctx context.Context) error {
	switch x := w.rng.IntN(100); {
	case x < 35:
		return w.update(ctx)
	case x < 60:
		next := w.m.maxItem() + 1
		ids := make([]int64, 1+w.rng.IntN(10))
		for i := range ids {
			ids[i] = next + int64(i)
		}
		return w.append(ctx, kindInsert, ids)
	case x < 80:
		return w.delete(ctx)
	case x < 88:
		return w.compact(ctx)
	case x < 97 || w.m.columns() >= w.maxCols:
		gids := []int64{1 + w.rng.Int64N(int64(w.m.groups))}
		return w.upsertGroups(ctx, kindGroups, gids, true)
	}
	return w.addColumn(ctx)
}

// update rewrites a run of 1 to 5 ids (those that are deleted come back).
func (w *writer) update(ctx context.Context) error {
	alive := w.m.aliveItems()
	if len(alive) == 0 {
		return w.append(ctx, kindInsert, []int64{w.m.maxItem() + 1})
	}
	lo := alive[w.rng.IntN(len(alive))]
	hi := min(lo+1+w.rng.Int64N(5), w.m.maxItem()+1)
	ids := make([]int64, 0, hi-lo)
	for id := lo; id < hi; id++ {
		ids = append(ids, id)
	}
	filter := iceberg.NewAnd(iceberg.GreaterThanEqual(iceberg.Reference("id"), lo), iceberg.LessThan(iceberg.Reference("id"), hi))
	seq := w.m.begin(change{table: itemsTable, kind: kindUpdate, write: ids})
	t, err := icebergwrite.Overwrite(ctx, w.items, filter, w.itemRows(seq, ids))
	if err != nil {
		return fmt.Errorf("commit %d: update items %d..%d: %w", seq, lo, hi-1, err)
	}
	return w.done(seq, itemsTable, t)
}

// append adds rows with the given (new) ids.
func (w *writer) append(ctx context.Context, kind string, ids []int64) error {
	seq := w.m.begin(change{table: itemsTable, kind: kind, write: ids})
	t, err := icebergwrite.Append(ctx, w.items, w.itemRows(seq, ids))
	if err != nil {
		return fmt.Errorf("commit %d: append %d items: %w", seq, len(ids), err)
	}
	return w.done(seq, itemsTable, t)
}

// delete deletes a run of 1 to 3 ids starting at a live one.
func (w *writer) delete(ctx context.Context) error {
	alive := w.m.aliveItems()
	if len(alive) < 100 {
		return w.update(ctx)
	}
	lo := alive[w.rng.IntN(len(alive))]
	hi := min(lo+1+w.rng.Int64N(3), w.m.maxItem()+1)
	var ids []int64
	for id := lo; id < hi; id++ {
		ids = append(ids, id)
	}
	filter := iceberg.NewAnd(iceberg.GreaterThanEqual(iceberg.Reference("id"), lo), iceberg.LessThan(iceberg.Reference("id"), hi))
	seq := w.m.begin(change{table: itemsTable, kind: kindDelete, del: ids})
	t, err := icebergwrite.Delete(ctx, w.items, filter)
	if err != nil {
		return fmt.Errorf("commit %d: delete items %d..%d: %w", seq, lo, hi-1, err)
	}
	return w.done(seq, itemsTable, t)
}

// compact rewrites the small data files (those under fileRows/5 rows) into
// one: a replace snapshot that changes no row.
func (w *writer) compact(ctx context.Context) error {
	tasks, err := w.items.Scan().PlanFiles(ctx)
	if err != nil {
		return fmt.Errorf("plan compaction of %s: %w", itemsTable, err)
	}
	var small []table.FileScanTask
	for _, t := range tasks {
		if t.File.Count() < fileRows/5 {
			small = append(small, t)
		}
	}
	if len(small) < 2 {
		return w.update(ctx)
	}
	seq := w.m.begin(change{table: itemsTable, kind: kindCompact})
	t, _, err := icebergwrite.Compact(ctx, w.items, small)
	if err != nil {
		return fmt.Errorf("commit %d: %w", seq, err)
	}
	return w.done(seq, itemsTable, t)
}

// addColumn adds the next column x<n> (long) to items: a schema change
// without a snapshot; the rows written after it have a value there.
func (w *writer) addColumn(ctx context.Context) error {
	name := addedColumn(w.m.columns())
	seq := w.m.begin(change{table: itemsTable, kind: kindAddColumn, addsCol: true})
	tx := w.items.NewTransaction()
	if err := tx.UpdateSchema(true, false).AddColumn([]string{name}, iceberg.PrimitiveTypes.Int64, "", false, nil).Commit(); err != nil {
		return fmt.Errorf("commit %d: add column %s: %w", seq, name, err)
	}
	t, err := tx.Commit(ctx)
	if err != nil {
		return fmt.Errorf("commit %d: add column %s: %w", seq, name, err)
	}
	return w.done(seq, itemsTable, t)
}

// upsertGroups writes the groups gids, replacing them when replace.
func (w *writer) upsertGroups(ctx context.Context, kind string, gids []int64, replace bool) error {
	seq := w.m.begin(change{table: groupsTable, kind: kind, write: gids})
	rows := make([][]any, len(gids))
	for i, gid := range gids {
		g := groupValues(w.m.seed, gid, seq)
		rows[i] = []any{g.GID, g.Title, g.Stamp} // the columns of groupsSchema
	}
	var t *table.Table
	var err error
	if replace {
		vals := make([]int64, len(gids))
		copy(vals, gids)
		t, err = icebergwrite.Overwrite(ctx, w.groups, iceberg.IsIn(iceberg.Reference("gid"), vals...), icebergwrite.Values(rows...))
	} else {
		t, err = icebergwrite.Append(ctx, w.groups, icebergwrite.Values(rows...))
	}
	if err != nil {
		return fmt.Errorf("commit %d: write groups %v: %w", seq, gids, err)
	}
	return w.done(seq, groupsTable, t)
}

// recreate drops the items table and creates it again under the same name
// (a new table uuid) with the current rows, written anew in files of
// fileRows, one commit each, as the first load was. The server may read the
// table at any moment in between: stop it first.
func (w *writer) recreate(ctx context.Context) error {
	alive := w.m.aliveItems()
	sc := w.items.Schema()
	if err := w.cat.DropTable(ctx, ident(itemsTable)); err != nil {
		return fmt.Errorf("drop %s: %w", itemsTable, err)
	}
	t, err := icebergwrite.CreateTable(ctx, w.cat, namespace+"."+itemsTable, sc)
	if err != nil {
		return fmt.Errorf("create %s again: %w", itemsTable, err)
	}
	w.items = t
	for from := 0; from < len(alive); from += fileRows {
		ids := alive[from:min(from+fileRows, len(alive))]
		// The first commit's state is the new table's: none of the old
		// rows but its own.
		c := change{table: itemsTable, kind: kindRecreate, write: ids, recreat: from == 0}
		if from > 0 {
			c.kind = kindLoad
		}
		seq := w.m.begin(c)
		t, err = icebergwrite.Append(ctx, w.items, w.itemRows(seq, ids))
		if err != nil {
			return fmt.Errorf("commit %d: load the recreated %s: %w", seq, itemsTable, err)
		}
		if err := w.done(seq, itemsTable, t); err != nil {
			return err
		}
	}
	return nil
}

func (w *writer) done(seq int64, tableName string, t *table.Table) error {
	defer w.logCommit(seq)
	if tableName == itemsTable {
		w.items = t
	} else {
		w.groups = t
	}
	var snap int64
	if s := t.CurrentSnapshot(); s != nil {
		snap = s.SnapshotID
	}
	w.m.done(seq, snap, time.Now())
	w.commits[w.m.commit(seq).kind]++
	return nil
}

// logCommit writes commit seq to the writer's log.
func (w *writer) logCommit(seq int64) {
	if w.log == nil {
		return
	}
	c := w.m.commit(seq)
	b, _ := json.Marshal(commitLine{Seq: seq, Table: c.table, Kind: c.kind, Snapshot: c.snapshotID, At: c.at, Write: c.write, Delete: c.del})
	_, _ = w.log.Write(append(b, '\n'))
}

// itemRows is the rows of ids as commit seq writes them, in the columns
// of itemsSchema and then the added ones, in the order they were added.
func (w *writer) itemRows(seq int64, ids []int64) icebergwrite.Rows {
	w.m.mu.RLock()
	rows := make([][]any, len(ids))
	for i, id := range ids {
		it := w.m.itemLocked(id, seq)
		row := []any{it.ID, it.Grp, it.Stamp, it.name(), it.Cat, it.Val}
		for _, x := range it.X {
			if x == nil {
				row = append(row, nil)
			} else {
				row = append(row, *x)
			}
		}
		rows[i] = row
	}
	w.m.mu.RUnlock()
	return icebergwrite.Values(rows...)
}
