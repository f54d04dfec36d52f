package index

// A union of sets and one range (city = X or visits > Y) is counted as
// |S| + |R \ S| without a bitset of its matches: S, the union of the sets,
// is a dense bitset (the dict's own when there is one set and the dict keeps
// one), and R's documents are read along the range's order and tested
// against it. Building the matches' bitset instead costs a copy of S, a
// write per document of R into it (after a clear), and a popcount; at a
// million documents that was most of the query. When S is one value of a
// dict and R a range of another property with a dict, |R ∩ S| comes from
// their pair counts (pairs.go) without reading R at all.

// unionSplit is such a union: the sets as one dense bitset, and the range.
type unionSplit struct {
	sets     dense
	setCount int64 // |S|
	runs     *runsNode
	// both is |R ∩ S| when the pair counts of the set's property and the
	// range's know it (pairs.go), else -1.
	both int64
}

// splitUnion recognizes an OR of sets and exactly one range.
func (x *exec) splitUnion(n node) (unionSplit, bool) {
	o, ok := n.(*orNode)
	if !ok || x.sparse {
		return unionSplit{}, false
	}
	var r *runsNode
	var sets []*setNode
	for _, k := range o.kids {
		switch k := k.(type) {
		case *runsNode:
			if r != nil {
				return unionSplit{}, false
			}
			r = k
		case *setNode:
			sets = append(sets, k)
		default:
			return unionSplit{}, false
		}
	}
	if r == nil || len(sets) == 0 {
		return unionSplit{}, false
	}
	if len(sets) == 1 {
		w := x.setView(sets[0])
		c := int64(-1)
		if sets[0].bm != nil {
			c = int64(sets[0].bm.GetCardinality())
		}
		if c < 0 {
			c = w.count()
		}
		u := unionSplit{sets: w, setCount: c, runs: r, both: -1}
		if t := x.s.pairCounts(sets[0].dictProperty, r.pi); t != nil && !x.noPairs {
			u.both = t.inRuns(sets[0].dictValue, r.pi, r.runs)
		}
		return u, true
	}
	w := x.setDense(sets[0])
	for _, s := range sets[1:] {
		w.or(x.setView(s))
	}
	return unionSplit{sets: w, setCount: w.count(), runs: r, both: -1}, true
}

// count is |S| + |R| - |R ∩ S|.
func (u unionSplit) count() int64 {
	both := u.both
	if both < 0 {
		both = countRunsIn(u.runs.pi.order, u.runs.runs, u.sets)
	}
	return u.setCount + int64(u.runs.est()) - both
}

// node is the union to test documents against: a bit of S, else the
// range's test of the document's value.
func (u unionSplit) node(s *Snapshot) node {
	return &orNode{s: s, kids: []node{&setNode{bits: u.sets}, u.runs}}
}
