package vector

import "slices"

// insert adds document d's prepared vector as a new node and links it:
// a greedy descent to its level, then on each level below a search of
// efConstruction candidates and the heuristic choice of its links.
func (ix *Index) insert(d uint32, v []float32) uint32 {
	level := ix.randomLevel(uint32(ix.count))
	node := ix.addNode(d, v, level)
	if ix.top < 0 {
		ix.entry, ix.top = node, level
		return node
	}
	vs := ix.visitSet()
	defer ix.visited.Put(vs)
	q := ix.nodeQuery(node)
	ep := candidate{dist: ix.distance(q, ix.entry), node: ix.entry}
	for l := ix.top; l > level; l-- {
		ep = ix.greedy(q, ep, l)
	}
	var accept func(uint32) bool // nil: every node; no links to tombstones
	if ix.count-1 > ix.Len() {
		accept = ix.live
	}
	entries := []candidate{ep}
	for l := min(ix.top, level); l >= 0; l-- {
		found := ix.searchLayer(q, entries, ix.params.EfConstruction, l, vs, accept)
		near := sortedNear(found)
		links := ix.selectLinks(near, ix.m)
		ids := make([]uint32, len(links))
		for i, c := range links {
			ids[i] = c.node
		}
		ix.setLinks(node, l, ids)
		for _, c := range links {
			ix.link(c.node, node, c.dist, l)
		}
		if len(near) > 0 {
			entries = near
		}
	}
	if level > ix.top {
		ix.entry, ix.top = node, level
	}
	return node
}

// link adds a link from node a to node b at a level, at distance dist;
// when a has too many links, it keeps those the heuristic chooses.
func (ix *Index) link(a, b uint32, dist float32, level int) {
	limit := ix.m
	if level == 0 {
		limit = ix.m0
	}
	cur := ix.links(a, level)
	if slices.Contains(cur, b) {
		return
	}
	if len(cur) < limit {
		ix.setLinks(a, level, append(slices.Clone(cur), b))
		return
	}
	qa := ix.nodeQuery(a)
	near := make([]candidate, 0, len(cur)+1)
	near = append(near, candidate{dist: dist, node: b})
	for _, x := range cur {
		near = append(near, candidate{dist: ix.distance(qa, x), node: x})
	}
	slices.SortFunc(near, byDistance)
	kept := ix.selectLinks(near, limit)
	ids := make([]uint32, len(kept))
	for i, c := range kept {
		ids[i] = c.node
	}
	ix.setLinks(a, level, ids)
}

// selectLinks is the heuristic of the HNSW paper (algorithm 4, as hnswlib
// has it): of candidates sorted nearest first, keep one only when it is
// nearer the base than any kept so far, so links spread over directions
// instead of bunching in one cluster; at most limit.
func (ix *Index) selectLinks(near []candidate, limit int) []candidate {
	if len(near) <= limit {
		return near
	}
	kept := make([]candidate, 0, limit)
	for _, c := range near {
		qc := ix.nodeQuery(c.node)
		good := true
		for _, k := range kept {
			if ix.distance(qc, k.node) < c.dist {
				good = false
				break
			}
		}
		if good {
			kept = append(kept, c)
			if len(kept) == limit {
				break
			}
		}
	}
	return kept
}

func byDistance(a, b candidate) int {
	switch {
	case a.dist < b.dist:
		return -1
	case a.dist > b.dist:
		return 1
	case a.node < b.node:
		return -1
	case a.node > b.node:
		return 1
	}
	return 0
}

// sortedNear empties a result heap into a slice, nearest first.
func sortedNear(h farHeap) []candidate {
	out := make([]candidate, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		out[i] = h.pop()
	}
	return out
}
