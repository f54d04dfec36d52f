package soak

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Violations: what a served answer may never show.
const (
	vPartial = "partial object"   // a property that the row's version does not have
	vGhost   = "ghost object"     // a version no commit wrote, or an object no state has
	vMixed   = "mixed snapshots"  // objects of one answer that no single state holds together
	vStale   = "stale read"       // older than a state the server had already served
	vCount   = "wrong count"      // a totalCount or aggregate no state of the answer has
	vPage    = "wrong page"       // a page that is not the first objects of its state
	vLost    = "lost object"      // a row of the table the server does not serve
	vExtra   = "extra object"     // served, but not a row of the table
	vDiffers = "different object" // served differently from the table's row
	vError   = "bad error"        // a fault's error that does not name what failed
)

// violation is one thing a served answer must never show.
type violation struct {
	Kind   string `json:"kind"`
	Detail string `json:"detail"`
}

func violationf(kind, format string, args ...any) violation {
	return violation{Kind: kind, Detail: fmt.Sprintf(format, args...)}
}

// span is a range [lo, hi] of states.
type span struct{ lo, hi int64 }

func (s span) empty() bool { return s.lo > s.hi }

func (s span) meet(o span) span { return span{max(s.lo, o.lo), min(s.hi, o.hi)} }

func (s span) String() string {
	if s.hi >= maxSeq {
		return fmt.Sprintf("[%d, now]", s.lo)
	}
	return fmt.Sprintf("[%d, %d]", s.lo, s.hi)
}

// checkObjects checks one answer's objects of a type (itemType or
// groupType) served while the server could serve the states of window:
// each object whole and a version some commit wrote, all of them of one
// state, and that state not older than window.lo. It returns the states
// the answer may be of.
func (m *model) checkObjects(typ string, objs []map[string]string, window span) (span, []violation) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	all := span{0, maxSeq}
	var vs []violation
	for i, o := range objs {
		sp, v := m.checkObjectLocked(typ, o)
		if v != nil {
			vs = append(vs, *v)
			continue
		}
		if next := all.meet(sp); next.empty() {
			vs = append(vs, violationf(vMixed, "%s %s (object %d of %d) is of states %v, the objects before it of states %v: no state holds them all",
				typ, keyOf(typ, o), i+1, len(objs), sp, all))
		} else {
			all = next
		}
	}
	if len(vs) > 0 {
		return all.meet(window), vs
	}
	got := all.meet(window)
	switch {
	case got.empty() && all.hi < window.lo:
		vs = append(vs, violationf(vStale, "%d %s objects of states %v, after the server had served state %d", len(objs), typ, all, window.lo))
	case got.empty():
		vs = append(vs, violationf(vGhost, "%d %s objects of states %v, after the last commit begun (%d)", len(objs), typ, all, window.hi))
	}
	return got, vs
}

func keyOf(typ string, o map[string]string) string {
	if typ == groupType {
		return o["gid"]
	}
	return o["id"]
}

// checkObjectLocked checks one object; it returns the states whose row of
// the key it is.
func (m *model) checkObjectLocked(typ string, o map[string]string) (span, *violation) {
	key, kerr := strconv.ParseInt(keyOf(typ, o), 10, 64)
	stamp, serr := strconv.ParseInt(o["stamp"], 10, 64)
	if kerr != nil || serr != nil {
		v := violationf(vPartial, "%s object without a key or stamp: %v", typ, o)
		return span{}, &v
	}
	hist, want := m.items, func() map[string]string { return m.itemLocked(key, stamp).canonical() }
	if typ == groupType {
		hist, want = m.grps, func() map[string]string { return groupValues(m.seed, key, stamp).canonical() }
	}
	if key <= 0 || key >= int64(len(hist)) {
		v := violationf(vGhost, "%s %d: no commit wrote this key", typ, key)
		return span{}, &v
	}
	lo, hi, ok := hist[key].interval(stamp)
	if !ok {
		v := violationf(vGhost, "%s %d at stamp %d: no commit wrote this version", typ, key, stamp)
		return span{}, &v
	}
	if d := diffObject(o, want()); d != "" {
		v := violationf(vPartial, "%s %d at stamp %d: %s", typ, key, stamp, d)
		return span{}, &v
	}
	return span{lo, hi}, nil
}

// diffObject says how got differs from want ("" when equal).
func diffObject(got, want map[string]string) string {
	var d []string
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if g, ok := got[k]; !ok {
			d = append(d, fmt.Sprintf("%s missing (want %q)", k, want[k]))
		} else if g != want[k] {
			d = append(d, fmt.Sprintf("%s = %q, want %q", k, g, want[k]))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok {
			d = append(d, fmt.Sprintf("%s = %q, not a property of the row", k, got[k]))
		}
	}
	return strings.Join(d, "; ")
}

// countIn reports whether some state of sp (clamped to the commits begun)
// has count n by f.
func (m *model) countIn(sp span, n int64, f func(*counts) int64) bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	for k := max(sp.lo, 1); k <= min(sp.hi, int64(len(m.commits)-1)); k++ {
		if f(m.commits[k].items) == n {
			return true
		}
	}
	return false
}

// itemStates are the distinct states of the items table within sp: the
// first commit of each run of commits that left the items as they were.
func (m *model) itemStates(sp span) []int64 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var out []int64
	var prev *counts
	for k := max(sp.lo, 1); k <= min(sp.hi, int64(len(m.commits)-1)); k++ {
		ci := m.commits[k]
		if len(out) == 0 || ci.items != prev {
			out = append(out, k)
		}
		prev = ci.items
	}
	return out
}

// firstPage is the page a query's first page should be in S_k: the ids of
// the first n matching items in the order, and how many match.
func (m *model) firstPage(k int64, match func(item) bool, byVal bool, n int) ([]int64, int64) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var hits []item
	for id, h := range m.items {
		if s := h.at(k); s != 0 {
			if it := m.itemLocked(int64(id), s); match(it) {
				hits = append(hits, it)
			}
		}
	}
	if byVal {
		slices.SortFunc(hits, func(a, b item) int {
			if a.Val != b.Val {
				if a.Val > b.Val {
					return -1
				}
				return 1
			}
			return int(a.ID - b.ID)
		})
	}
	ids := make([]int64, 0, n)
	for _, it := range hits[:min(n, len(hits))] {
		ids = append(ids, it.ID)
	}
	return ids, int64(len(hits))
}
