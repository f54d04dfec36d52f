package soak

import (
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"
)

// The model is what the writer knows of the tables: for every key the
// commits that wrote or deleted it, and for every commit its snapshot and
// the counts of the items table after it. Commits are numbered 1, 2, ...
// across both tables (seq); the state of a table after commit k (S_k) is,
// for each key, its last event at or before k.
//
// A served object (key, stamp s) is the row commit s wrote, and it is the
// current row of S_k exactly for k in [s, next) where next is the key's
// next event after s: its interval. A page shows one state of the table
// when the intervals of its objects meet. Each of its objects is whole
// when every property equals what commit s wrote (itemValues).

// event is one commit's effect on a key: written (alive) or deleted.
type event struct {
	seq   int64
	alive bool
}

// history is the events of one key, oldest first.
type history []event

// at is the stamp of the key in S_k (0: absent).
func (h history) at(k int64) int64 {
	i := sort.Search(len(h), func(i int) bool { return h[i].seq > k }) - 1
	if i < 0 || !h[i].alive {
		return 0
	}
	return h[i].seq
}

// interval is [lo, hi] of the states in which stamp s is the key's current
// row; ok is false when no commit wrote the key at s.
func (h history) interval(s int64) (lo, hi int64, ok bool) {
	i := sort.Search(len(h), func(i int) bool { return h[i].seq >= s })
	if i == len(h) || h[i].seq != s || !h[i].alive {
		return 0, 0, false
	}
	if i+1 < len(h) {
		return s, h[i+1].seq - 1, true
	}
	return s, maxSeq, true
}

const maxSeq = int64(1) << 62

// counts are the items of one state: in all, by category, by group.
type counts struct {
	total int64
	byCat [categories]int64
	byGrp []int64 // index gid; 0 unused
}

// commitInfo is one commit of the writer.
type commitInfo struct {
	seq   int64
	table string // itemsTable or groupsTable
	kind  string
	// snapshotID is the table's snapshot after the commit (a schema
	// addition keeps the snapshot it had).
	snapshotID int64
	at         time.Time // when the commit returned
	items      *counts   // the items after the commit (shared while unchanged)
	write, del []int64   // the keys it wrote and deleted (for the writer's log)
}

// model is safe for one writer and many readers.
type model struct {
	seed   uint64
	groups int

	mu      sync.RWMutex
	items   []history // by id; 0 unused
	grps    []history // by gid; 0 unused
	added   []int64   // the seq of each added column of items, in order
	commits []commitInfo
	// snaps maps each snapshot of a table to the last commit whose
	// state it holds.
	snaps map[string]map[int64]int64
	cur   *counts
}

func newModel(seed uint64, groups int) *model {
	m := &model{seed: seed, groups: groups, items: []history{nil}, grps: make([]history, groups+1),
		commits: []commitInfo{{}}, snaps: map[string]map[int64]int64{itemsTable: {}, groupsTable: {}},
		cur: &counts{byGrp: make([]int64, groups+1)}}
	return m
}

// change is what one commit does to the keys of a table, before the
// commit is made.
type change struct {
	table   string
	kind    string
	write   []int64 // keys written with the commit's stamp
	del     []int64 // keys deleted
	addsCol bool    // a schema addition (items)
	recreat bool    // the table was dropped and created again: every key not written is gone
}

// begin records the change as commit seq (the next number) before it is
// committed: a reader that sees the commit's snapshot must find it in the
// model. It returns seq.
func (m *model) begin(c change) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	seq := int64(len(m.commits))
	hist := &m.items
	if c.table == groupsTable {
		hist = &m.grps
	}
	before := *m.cur
	before.byGrp = slices.Clone(m.cur.byGrp)
	next := &before
	changed := false
	apply := func(id int64, alive bool) {
		for int64(len(*hist)) <= id {
			*hist = append(*hist, nil)
		}
		h := &(*hist)[id]
		if c.table == itemsTable {
			if old := h.at(seq - 1); old != 0 {
				o := itemValues(m.seed, m.groups, id, old, nil)
				next.total--
				next.byCat[catIndex(o.Cat)]--
				next.byGrp[o.Grp]--
			}
			if alive {
				n := itemValues(m.seed, m.groups, id, seq, nil)
				next.total++
				next.byCat[catIndex(n.Cat)]++
				next.byGrp[n.Grp]++
			}
			changed = true
		}
		*h = append(*h, event{seq: seq, alive: alive})
	}
	if c.recreat {
		keep := map[int64]bool{}
		for _, id := range c.write {
			keep[id] = true
		}
		for id := range *hist {
			if !keep[int64(id)] && (*hist)[id].at(seq-1) != 0 {
				apply(int64(id), false)
			}
		}
	}
	for _, id := range c.write {
		apply(id, true)
	}
	for _, id := range c.del {
		if (*hist)[id].at(seq-1) != 0 {
			apply(id, false)
		}
	}
	if c.addsCol {
		m.added = append(m.added, seq)
	}
	if changed {
		m.cur = next
	}
	m.commits = append(m.commits, commitInfo{seq: seq, table: c.table, kind: c.kind, items: m.cur, write: c.write, del: c.del})
	return seq
}

// done records the snapshot commit seq made and when it returned.
func (m *model) done(seq, snapshotID int64, at time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ci := &m.commits[seq]
	ci.snapshotID, ci.at = snapshotID, at
	m.snaps[ci.table][snapshotID] = seq
}

// last is the number of the last commit begun (0: none).
func (m *model) last() int64 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return int64(len(m.commits) - 1)
}

// seqOf is the last commit whose state of table snapshot holds.
func (m *model) seqOf(table string, snapshotID int64) (int64, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	seq, ok := m.snaps[table][snapshotID]
	return seq, ok
}

func (m *model) commit(seq int64) commitInfo {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.commits[seq]
}

// catIndex is the number of category "c<n>" (-1 for anything else).
func catIndex(cat string) int {
	if len(cat) < 2 || cat[0] != 'c' {
		return -1
	}
	n, err := strconv.Atoi(cat[1:])
	if err != nil {
		return -1
	}
	return n
}

// itemsAt is S_k of the items table: the canonical objects by id.
func (m *model) itemsAt(k int64) map[int64]map[string]string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := map[int64]map[string]string{}
	for id, h := range m.items {
		if s := h.at(k); s != 0 {
			out[int64(id)] = m.itemLocked(int64(id), s).canonical()
		}
	}
	return out
}

// itemLocked is the row of id that commit s wrote.
func (m *model) itemLocked(id, s int64) item { return itemValues(m.seed, m.groups, id, s, m.added) }

// groupsAt is S_k of the groups table.
func (m *model) groupsAt(k int64) map[int64]map[string]string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := map[int64]map[string]string{}
	for gid, h := range m.grps {
		if s := h.at(k); s != 0 {
			out[int64(gid)] = groupValues(m.seed, int64(gid), s).canonical()
		}
	}
	return out
}

// aliveItems returns the ids of the items in the current state.
func (m *model) aliveItems() []int64 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	k := int64(len(m.commits) - 1)
	var out []int64
	for id, h := range m.items {
		if h.at(k) != 0 {
			out = append(out, int64(id))
		}
	}
	return out
}

// maxItem is the largest id ever written.
func (m *model) maxItem() int64 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return int64(len(m.items) - 1)
}

// columns is the number of columns added to items so far.
func (m *model) columns() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.added)
}
