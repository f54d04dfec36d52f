package soak

import (
	"fmt"
	"math/rand/v2"
	"strconv"
)

// itemQuery is a query of the load on the items: its where clause for the
// server, the same predicate for the model, and, when the model counts
// its matches per state, how (for totalCount).
type itemQuery struct {
	desc  string
	where any // nil: every item
	match func(item) bool
	count func(*counts) int64
	byVal bool // sorted by val descending (else by id)
}

func (q itemQuery) orderBy() any {
	if q.byVal {
		return orderBy("val", "desc")
	}
	return orderBy("id", "asc")
}

// randomItemQuery draws a search of the load.
func randomItemQuery(rng *rand.Rand, groups int) itemQuery {
	byVal := rng.IntN(2) == 0
	switch rng.IntN(5) {
	case 0:
		c := rng.IntN(categories)
		cat := "c" + strconv.Itoa(c)
		return itemQuery{desc: "cat = " + cat, where: eq("cat", cat), byVal: byVal,
			match: func(it item) bool { return it.Cat == cat }, count: func(n *counts) int64 { return n.byCat[c] }}
	case 1:
		g := 1 + rng.Int64N(int64(groups))
		return itemQuery{desc: fmt.Sprintf("grp = %d", g), where: eq("grp", g), byVal: byVal,
			match: func(it item) bool { return it.Grp == g }, count: func(n *counts) int64 { return n.byGrp[g] }}
	case 2:
		lo := float64(rng.IntN(9000))
		hi := lo + float64(50+rng.IntN(500))
		return itemQuery{desc: fmt.Sprintf("%g <= val < %g", lo, hi), byVal: byVal,
			where: map[string]any{"type": "and", "value": []any{
				map[string]any{"type": "gte", "field": "val", "value": lo},
				map[string]any{"type": "lt", "field": "val", "value": hi}}},
			match: func(it item) bool { return it.Val >= lo && it.Val < hi }}
	case 3:
		w := words[rng.IntN(len(words))]
		return itemQuery{desc: "name has " + w, byVal: byVal,
			where: map[string]any{"type": "containsAnyTerm", "field": "name", "value": w},
			match: func(it item) bool { return it.hasWord(w) }}
	}
	return itemQuery{desc: "all", byVal: byVal, match: func(item) bool { return true }, count: func(n *counts) int64 { return n.total }}
}

// hasWord reports whether w is one of the name's two words.
func (it item) hasWord(w string) bool { return it.Words[0] == w || it.Words[1] == w }

// unionQuery is the union of two categories, as loadObjects sees it.
func unionQuery(rng *rand.Rand) (itemQuery, any) {
	a, b := rng.IntN(categories), rng.IntN(categories)
	ca, cb := "c"+strconv.Itoa(a), "c"+strconv.Itoa(b)
	set := map[string]any{"type": "union", "objectSets": []any{
		map[string]any{"type": "filter", "objectSet": map[string]any{"type": "base", "objectType": itemType}, "where": eq("cat", ca)},
		map[string]any{"type": "filter", "objectSet": map[string]any{"type": "base", "objectType": itemType}, "where": eq("cat", cb)},
	}}
	q := itemQuery{desc: fmt.Sprintf("union of cat = %s, cat = %s", ca, cb), byVal: rng.IntN(2) == 0,
		match: func(it item) bool { return it.Cat == ca || it.Cat == cb },
		count: func(n *counts) int64 {
			if a == b {
				return n.byCat[a]
			}
			return n.byCat[a] + n.byCat[b]
		}}
	return q, set
}

// aroundQuery is the items of one group, reached from the group by the
// link: a searchAround.
func aroundQuery(rng *rand.Rand, groups int) (itemQuery, any) {
	g := 1 + rng.Int64N(int64(groups))
	set := map[string]any{"type": "searchAround", "link": itemsLink,
		"objectSet": map[string]any{"type": "filter", "objectSet": map[string]any{"type": "base", "objectType": groupType}, "where": eq("gid", g)}}
	q := itemQuery{desc: fmt.Sprintf("items of group %d (searchAround)", g), byVal: rng.IntN(2) == 0,
		match: func(it item) bool { return it.Grp == g }, count: func(n *counts) int64 { return n.byGrp[g] }}
	return q, set
}
