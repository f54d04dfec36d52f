package soak

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/objects"
)

// checkServed compares what the server serves with the tables read at
// its checkpoints, with iceberg-go's scan: every object (lists and gets),
// a search of each category, the counts by category, and the links both
// ways. The writer must be paused and the server caught up: the
// checkpoints are the tables' current snapshots. It also checks that the
// model (what the writer believes it wrote) is the table.
func (r *run) checkServed(ctx context.Context, when string) error {
	t := &r.rep.Served
	seen := len(t.Violations)
	bad := r.problems()
	defer func() {
		if r.problems() != bad {
			r.logf("%s: served results differ from the tables: %v", when, t.Violations[seen:])
			r.keepEvidence(when)
		}
	}()
	items, err := r.servedEqualsTable(ctx, t, when, itemType, itemsTable, "id")
	if err != nil {
		return err
	}
	groups, err := r.servedEqualsTable(ctx, t, when, groupType, groupsTable, "gid")
	if err != nil {
		return err
	}
	// Gets of live, deleted and never written keys.
	maxID := r.m.maxItem()
	for range 20 {
		id := 1 + r.rng.Int64N(maxID+5)
		o, found, err := r.c.get(ctx, apiPath("/objects/%s/%d", itemType, id))
		if err != nil {
			return err
		}
		want, ok := items[id]
		expect(t, fmt.Sprintf("%s: get %s %d found", when, itemType, id), found, ok)
		if found && ok {
			compareObjects(t, when+": get", itemType, map[int64]map[string]string{id: want}, []map[string]string{o})
		}
	}
	// A search per category, sorted by val descending.
	for c := range categories {
		cat := "c" + strconv.Itoa(c)
		body := map[string]any{"where": eq("cat", cat), "orderBy": orderBy("val", "desc"), "pageSize": 50}
		p, err := r.c.post(ctx, apiPath("/objects/%s/search", itemType), body)
		if err != nil {
			return err
		}
		var hits []map[string]string
		for _, o := range items {
			if o["cat"] == cat {
				hits = append(hits, o)
			}
		}
		slices.SortFunc(hits, byValDesc)
		want := idsOf(itemType, hits[:min(50, len(hits))])
		expect(t, fmt.Sprintf("%s: search cat = %s: ids", when, cat), fmt.Sprint(idsOf(itemType, p.Objects)), fmt.Sprint(want))
		expect(t, fmt.Sprintf("%s: search cat = %s: totalCount", when, cat), p.Total, int64(len(hits)))
	}
	// Counts by category.
	agg, err := r.c.aggregate(ctx, apiPath("/objects/%s/aggregate", itemType), countByCat(nil))
	if err != nil {
		return err
	}
	want := map[string]int{}
	for _, o := range items {
		want[o["cat"]]++
	}
	got := map[string]int{}
	for g, ms := range agg {
		n, _ := strconv.Atoi(ms["count"])
		got[g] = n
	}
	expect(t, when+": count by cat", fmt.Sprint(got), fmt.Sprint(want))
	// Links: the items of some groups, the group of some items.
	gids := slices.Sorted(maps.Keys(groups))
	for range 3 {
		gid := gids[r.rng.IntN(len(gids))]
		linked, err := r.c.links(ctx, groupType, strconv.FormatInt(gid, 10), itemsLink)
		if err != nil {
			return err
		}
		sub := map[int64]map[string]string{}
		for id, o := range items {
			if o["grp"] == strconv.FormatInt(gid, 10) {
				sub[id] = o
			}
		}
		compareObjects(t, fmt.Sprintf("%s: links of group %d", when, gid), itemType, sub, linked)
	}
	ids := slices.Sorted(maps.Keys(items))
	for range 3 {
		id := ids[r.rng.IntN(len(ids))]
		gid, _ := strconv.ParseInt(items[id]["grp"], 10, 64)
		o, found, err := r.c.get(ctx, apiPath("/objects/%s/%d/links/%s/%d", itemType, id, groupLink, gid))
		if err != nil {
			return err
		}
		expect(t, fmt.Sprintf("%s: group of item %d found", when, id), found, true)
		if found {
			compareObjects(t, fmt.Sprintf("%s: group of item %d", when, id), groupType, map[int64]map[string]string{gid: groups[gid]}, []map[string]string{o})
		}
	}
	return nil
}

// servedEqualsTable compares every served object of a type with the rows
// of its table at the server's checkpoint, and the model with the table.
// It returns the rows.
func (r *run) servedEqualsTable(ctx context.Context, t *tally, when, typ, tableName, key string) (map[int64]map[string]string, error) {
	st, err := r.c.status(ctx, typ)
	if err != nil {
		return nil, err
	}
	rows, err := readTable(ctx, r.cat, tableName, key, st.CheckpointSnapshotID)
	if err != nil {
		return nil, err
	}
	if err := r.modelIsTable(typ, tableName, st.CheckpointSnapshotID, rows); err != nil {
		return nil, err
	}
	served, err := r.c.listAll(ctx, typ)
	if err != nil {
		return nil, err
	}
	compareObjects(t, fmt.Sprintf("%s: %s at snapshot %d", when, typ, st.CheckpointSnapshotID), typ, rows, served)
	return rows, nil
}

// modelIsTable checks the campaign itself: the writer's model of a
// snapshot must be its rows, or the load's checks mean nothing.
func (r *run) modelIsTable(typ, tableName string, snapshotID int64, rows map[int64]map[string]string) error {
	seq, ok := r.m.seqOf(tableName, snapshotID)
	if !ok {
		return fmt.Errorf("soak: snapshot %d of %s is no commit of the writer", snapshotID, tableName)
	}
	want := r.m.itemsAt(seq)
	if tableName == groupsTable {
		want = r.m.groupsAt(seq)
	}
	var t tally
	compareObjects(&t, "model", typ, want, slices.Collect(maps.Values(rows)))
	if !t.ok() {
		return fmt.Errorf("soak: the writer's model of %s at commit %d is not the table at snapshot %d: %v", tableName, seq, snapshotID, t.Violations)
	}
	return nil
}

// checkStore opens the data dir the killed server left, as a restart
// does, and checks invariant 1 for each type: its objects are exactly the
// rows of its checkpoint snapshot, and its index is the one the store
// makes.
func (r *run) checkStore(ctx context.Context, when string) error {
	cfg, err := config.Load(r.cfgPath)
	if err != nil {
		return err
	}
	ix, err := indexer.Open(ctx, cfg, indexer.Options{})
	if err != nil {
		return fmt.Errorf("%s: open the data dir: %w", when, err)
	}
	defer ix.Close()
	t := &r.rep.Store
	seen, bad := len(t.Violations), r.problems()
	defer func() {
		if r.problems() != bad {
			r.logf("%s: the data dir is not the tables: %v", when, t.Violations[seen:])
			r.keepEvidence(when)
		}
	}()
	for _, tt := range []struct{ typ, table, key string }{{itemType, itemsTable, "id"}, {groupType, groupsTable, "gid"}} {
		v, err := ix.View(tt.typ)
		if err != nil {
			return fmt.Errorf("%s: view %s: %w", when, tt.typ, err)
		}
		cp := v.Checkpoint()
		rows, err := readTable(ctx, r.cat, tt.table, tt.key, cp.SnapshotID)
		if err != nil {
			v.Release()
			return err
		}
		var stored []map[string]string
		err = v.Scan(nil, func(_ []byte, o *objects.Object) bool {
			stored = append(stored, canonObject(v.Type().JSON(o)))
			return true
		})
		if err == nil {
			if n := v.Count(); n != int64(len(stored)) {
				t.add(violationf(vCount, "%s: %s: the index counts %d objects, the store holds %d", when, tt.typ, n, len(stored)))
			}
			if cerr := v.CheckIndex(ctx); cerr != nil {
				t.add(violationf(vPage, "%s: %s: the index is not the one the store makes: %v", when, tt.typ, cerr))
			}
		}
		v.Release()
		if err != nil {
			return fmt.Errorf("%s: scan %s: %w", when, tt.typ, err)
		}
		compareObjects(t, fmt.Sprintf("%s: stored %s at snapshot %d", when, tt.typ, cp.SnapshotID), tt.typ, rows, stored)
	}
	return nil
}

// keepEvidence copies the data dir and the items table's metadata next
// to the writer's log, for a failed check (at most 3 times).
func (r *run) keepEvidence(when string) {
	if r.evidence >= 3 {
		return
	}
	r.evidence++
	dst := filepath.Join(r.dir, fmt.Sprintf("evidence-%d", r.evidence))
	for _, d := range []struct{ from, to string }{
		{r.dataDir, "data"},
		{filepath.Join(r.dir, "warehouse", namespace, itemsTable, "metadata"), "items-metadata"},
	} {
		if err := os.CopyFS(filepath.Join(dst, d.to), os.DirFS(d.from)); err != nil {
			r.logf("keep evidence of %s: %v", when, err)
			return
		}
	}
	_ = os.WriteFile(filepath.Join(dst, "when.txt"), []byte(when+"\n"), 0o644)
	r.rep.Evidence = append(r.rep.Evidence, dst)
	r.logf("%s: the data dir and the table's metadata are kept in %s", when, dst)
}

// Request bodies.

func eq(field string, value any) map[string]any {
	return map[string]any{"type": "eq", "field": field, "value": value}
}

func orderBy(field, dir string) map[string]any {
	return map[string]any{"fields": []any{map[string]any{"field": field, "direction": dir}}}
}

func countByCat(where any) map[string]any {
	b := map[string]any{"aggregation": []any{map[string]any{"type": "count", "name": "count"}},
		"groupBy": []any{map[string]any{"type": "exact", "field": "cat"}}}
	if where != nil {
		b["where"] = where
	}
	return b
}

func byValDesc(a, b map[string]string) int {
	va, _ := strconv.ParseFloat(a["val"], 64)
	vb, _ := strconv.ParseFloat(b["val"], 64)
	switch {
	case va > vb:
		return -1
	case va < vb:
		return 1
	}
	ia, _ := strconv.ParseInt(a["id"], 10, 64)
	ib, _ := strconv.ParseInt(b["id"], 10, 64)
	return int(ia - ib)
}
