package soak

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// mustModel is a model of a small history of the items (ids 1 to 3
// loaded by commit 1; a group update 2; item 2 updated by 3; item 3
// deleted by 4; item 4 inserted by 5; a column added by 6; item 1 updated
// by 7), each commit done with snapshot 100+seq.
func mustModel(tb testing.TB) *model {
	tb.Helper()
	m := newModel(1, 3)
	for i, c := range []change{
		{table: itemsTable, kind: kindLoad, write: []int64{1, 2, 3}},
		{table: groupsTable, kind: kindLoad, write: []int64{1, 2, 3}},
		{table: itemsTable, kind: kindUpdate, write: []int64{2}},
		{table: itemsTable, kind: kindDelete, del: []int64{3}},
		{table: itemsTable, kind: kindInsert, write: []int64{4}},
		{table: itemsTable, kind: kindAddColumn, addsCol: true},
		{table: itemsTable, kind: kindUpdate, write: []int64{1}},
	} {
		seq := m.begin(c)
		if seq != int64(i+1) {
			tb.Fatalf("commit %d numbered %d", i+1, seq)
		}
		snap := 100 + seq
		if c.addsCol {
			snap = 100 + seq - 1 // a schema change keeps the snapshot
		}
		m.done(seq, snap, time.Now())
	}
	return m
}

func obj(m *model, id, stamp int64) map[string]string {
	return itemValues(m.seed, m.groups, id, stamp, m.added).canonical()
}

func TestHistory(t *testing.T) {
	m := mustModel(t)
	for _, tc := range []struct {
		id, k, stamp int64
	}{{1, 0, 0}, {1, 1, 1}, {1, 6, 1}, {1, 7, 7}, {2, 2, 1}, {2, 3, 3}, {3, 3, 1}, {3, 4, 0}, {4, 4, 0}, {4, 9, 5}} {
		if got := m.items[tc.id].at(tc.k); got != tc.stamp {
			t.Errorf("item %d in S_%d: stamp %d, want %d", tc.id, tc.k, got, tc.stamp)
		}
	}
	for _, tc := range []struct {
		id, stamp, lo, hi int64
		ok                bool
	}{{1, 1, 1, 6, true}, {1, 7, 7, maxSeq, true}, {2, 1, 1, 2, true}, {3, 1, 1, 3, true}, {3, 4, 0, 0, false}, {2, 2, 0, 0, false}} {
		lo, hi, ok := m.items[tc.id].interval(tc.stamp)
		if lo != tc.lo || hi != tc.hi || ok != tc.ok {
			t.Errorf("item %d at stamp %d: [%d, %d] %v, want [%d, %d] %v", tc.id, tc.stamp, lo, hi, ok, tc.lo, tc.hi, tc.ok)
		}
	}
	if seq, ok := m.seqOf(itemsTable, 105); !ok || seq != 6 {
		t.Errorf("snapshot 105 holds commit %d (%v), want 6: the schema addition kept it", seq, ok)
	}
	if n := m.commits[4].items.total; n != 2 {
		t.Errorf("items after commit 4: %d, want 2", n)
	}
	if n := m.commits[7].items.total; n != 3 {
		t.Errorf("items after commit 7: %d, want 3", n)
	}
}

func TestModel_checkObjects(t *testing.T) {
	m := mustModel(t)
	partial := obj(m, 2, 3)
	partial["name"] = "item 2 of another version"
	late := obj(m, 1, 7)
	if _, ok := late["x1"]; !ok {
		t.Fatalf("item 1 written after column x1 was added has no x1: %v", late)
	}
	early := obj(m, 1, 7)
	delete(early, "x1")
	all := span{0, maxSeq}
	for _, tc := range []struct {
		name   string
		objs   []map[string]string
		window span
		want   string // violation kind, "" for none
		states span
	}{
		{"one state", []map[string]string{obj(m, 1, 1), obj(m, 2, 3)}, all, "", span{3, 6}},
		{"deleted later", []map[string]string{obj(m, 1, 1), obj(m, 3, 1)}, all, "", span{1, 3}},
		{"two states", []map[string]string{obj(m, 2, 1), obj(m, 4, 5)}, all, vMixed, span{}},
		{"old and new of two keys", []map[string]string{obj(m, 3, 1), obj(m, 1, 7)}, all, vMixed, span{}},
		{"partial", []map[string]string{partial}, all, vPartial, span{}},
		{"added column missing", []map[string]string{early}, all, vPartial, span{}},
		{"a version no commit wrote", []map[string]string{obj(m, 2, 2)}, all, vGhost, span{}},
		{"stale", []map[string]string{obj(m, 2, 1)}, span{4, maxSeq}, vStale, span{}},
		{"empty page", nil, span{3, 5}, "", span{3, 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, vs := m.checkObjects(itemType, tc.objs, tc.window)
			switch {
			case tc.want == "" && len(vs) > 0:
				t.Fatalf("violations %v", vs)
			case tc.want != "" && (len(vs) == 0 || vs[0].Kind != tc.want):
				t.Fatalf("violations %v, want %s", vs, tc.want)
			case tc.want == "" && got != tc.states:
				t.Fatalf("states %v, want %v", got, tc.states)
			}
		})
	}
}

func TestModel_counts(t *testing.T) {
	m := mustModel(t)
	total := func(c *counts) int64 { return c.total }
	for _, tc := range []struct {
		sp   span
		n    int64
		want bool
	}{{span{1, 3}, 3, true}, {span{4, 4}, 2, true}, {span{4, 4}, 3, false}, {span{5, maxSeq}, 3, true}, {span{5, maxSeq}, 2, false}} {
		if got := m.countIn(tc.sp, tc.n, total); got != tc.want {
			t.Errorf("count %d in %v: %v, want %v", tc.n, tc.sp, got, tc.want)
		}
	}
	if got, want := m.itemStates(span{1, maxSeq}), []int64{1, 3, 4, 5, 7}; !slices.Equal(got, want) {
		t.Errorf("distinct states %v, want %v (commits 2 and 6 change no item)", got, want)
	}
	ids, n := m.firstPage(4, func(item) bool { return true }, false, 1)
	if !slices.Equal(ids, []int64{1}) || n != 2 {
		t.Errorf("first page of S_4: %v of %d, want [1] of 2", ids, n)
	}
	if !m.absentIn(itemType, 3, span{2, 4}) || m.absentIn(itemType, 3, span{1, 3}) {
		t.Error("item 3 is absent from S_4 only")
	}
}

func TestCompareObjects(t *testing.T) {
	m := mustModel(t)
	want := m.itemsAt(7)
	changed := obj(m, 4, 5)
	changed["val"] = "-1"
	var tl tally
	compareObjects(&tl, "test", itemType, want, []map[string]string{obj(m, 1, 7), changed, obj(m, 3, 1), obj(m, 1, 7)})
	if tl.Lost != 1 || tl.Ghost != 2 || tl.Differs != 1 || tl.ok() {
		t.Fatalf("lost %d, ghost %d, differs %d; want 1 (item 2), 2 (item 3 and item 1 twice), 1 (item 4): %v", tl.Lost, tl.Ghost, tl.Differs, tl.Violations)
	}
	if !strings.Contains(tl.Violations[0].Detail, "val") {
		t.Errorf("the difference does not name the property: %v", tl.Violations[0])
	}
}

func TestModel_recreate(t *testing.T) {
	m := mustModel(t) // after commit 7: items 1, 2, 4
	seq := m.begin(change{table: itemsTable, kind: kindRecreate, write: []int64{4}, recreat: true})
	m.done(seq, 200, time.Now())
	if got := m.itemsAt(seq); len(got) != 1 || got[4] == nil || got[4]["stamp"] != "8" {
		t.Fatalf("after the recreate: %v, want item 4 at stamp 8 alone", got)
	}
	seq = m.begin(change{table: itemsTable, kind: kindLoad, write: []int64{1, 2}})
	if n := m.commits[seq].items.total; n != 3 {
		t.Errorf("items after the second load of the new table: %d, want 3", n)
	}
	if lo, hi, ok := m.items[2].interval(3); !ok || lo != 3 || hi != 7 {
		t.Errorf("item 2 at stamp 3: [%d, %d] %v, want [3, 7]: the recreate removed it", lo, hi, ok)
	}
}
