package opensearch

import (
	"github.com/ontoindex/ontoindex/indexer/query"
)

// rangeCombo is one combination of the ranges of the Ranges groupings:
// the range of each (-1 for the other groupings), and the filters that
// keep the objects with a value in each.
type rangeCombo struct {
	at      []int
	filters []any
}

// rangeCombos are the combinations of the ranges of the Ranges
// groupings; one, of no ranges, without such groupings. An object is in
// range [Start, End) when one of its values is (each bound open when
// nil), as the engine puts it: a range query of the property.
func (a *aggregation) rangeCombos() ([]rangeCombo, error) {
	combos := []rangeCombo{{}}
	for i, g := range a.q.Groups {
		if g.Kind != query.Ranges {
			for j := range combos {
				combos[j].at = append(combos[j].at, -1)
			}
			continue
		}
		var next []rangeCombo
		for ri, rg := range g.Ranges {
			bounds := map[string]any{}
			for op, v := range map[string]any{"gte": rg.Start, "lt": rg.End} {
				if v == nil {
					continue
				}
				x, err := a.tr.value(a.groups[i], v)
				if err != nil {
					return nil, err
				}
				bounds[op] = x
			}
			f := map[string]any{"range": map[string]any{exactField(a.groups[i]): bounds}}
			if len(bounds) == 0 {
				f = map[string]any{"exists": map[string]any{"field": exactField(a.groups[i])}}
			}
			for _, c := range combos {
				next = append(next, rangeCombo{
					at:      append(append([]int(nil), c.at...), ri),
					filters: append(append([]any(nil), c.filters...), f),
				})
			}
		}
		combos = next
	}
	return combos, nil
}

// exactGroups reports whether a grouping is by exact values (a composite
// source).
func (a *aggregation) exactGroups() bool {
	for _, g := range a.q.Groups {
		if g.Kind == query.Exact {
			return true
		}
	}
	return false
}
