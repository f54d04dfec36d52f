package index

import (
	"github.com/RoaringBitmap/roaring/v2"
	"github.com/ontoindex/ontoindex/indexer/query"
)

// byDict counts one exact grouping over a property with a dict by
// intersecting the matches with the documents of each value.
func (a *aggregation) byDict(bm *roaring.Bitmap) (bool, error) {
	if len(a.groups) != 1 || !a.countsOnly() {
		return false, nil
	}
	g := a.groups[0]
	if g.Kind != query.Exact || g.pi.dict == nil || g.pi.isList {
		return false, nil
	}
	for k, vbm := range g.pi.dict.values {
		n := int64(bm.AndCardinality(vbm))
		if n == 0 {
			continue
		}
		it := groupKeyPart{kind: groupKeyValue, value: valueKeyOfDict(k)}
		acc, err := a.group([]groupKeyPart{it})
		if err != nil {
			return true, err
		}
		acc.count += n
	}
	if g.IncludeNull || g.Default != nil {
		if err := a.addNulls(g, int64(bm.AndCardinality(g.pi.nulls))); err != nil {
			return true, err
		}
	}
	return true, nil
}

// byPairs counts one exact grouping by a property over the documents of
// one dict value or one range of another property from their pair counts
// (pairs.go), without the matches: a lookup per value of the grouping.
func (a *aggregation) byPairs(root node) (bool, error) {
	if len(a.groups) != 1 || !a.countsOnly() || a.groups[0].Kind != query.Exact || a.x.noPairs {
		return false, nil
	}
	g := a.groups[0]
	var count func(ka string) int64
	switch n := root.(type) {
	case *setNode:
		t := a.x.s.pairCounts(g.pi, n.dictProperty) // nil unless n is a dict value
		if t == nil {
			return false, nil
		}
		v := valueKeyOfDict(n.dictValue)
		count = func(ka string) int64 { return int64(t.cell(ka, v)) }
	case *runsNode:
		t := a.x.s.pairCounts(g.pi, n.pi)
		if t == nil {
			return false, nil
		}
		count = func(ka string) int64 { return t.inRuns(ka, n.pi, n.runs) }
	default:
		return false, nil
	}
	var grouped int64
	for k := range g.pi.dict.values {
		c := count(k)
		if c == 0 {
			continue
		}
		grouped += c
		acc, err := a.group([]groupKeyPart{{kind: groupKeyValue, value: valueKeyOfDict(k)}})
		if err != nil {
			return true, err
		}
		acc.count += c
	}
	if g.IncludeNull || g.Default != nil {
		// The matches are counted exactly by est; those without a value
		// of the grouping are the rest.
		if err := a.addNulls(g, int64(root.est())-grouped); err != nil {
			return true, err
		}
	}
	return true, nil
}

// addNulls counts n matches without a value in the null or default group.
func (a *aggregation) addNulls(g *grouping, n int64) error {
	if n <= 0 {
		return nil
	}
	it := groupKeyPart{kind: groupKeyNull}
	if g.Default != nil {
		it.kind = groupKeyDefault
	}
	acc, err := a.group([]groupKeyPart{it})
	if err != nil {
		return err
	}
	acc.count += n
	return nil
}
