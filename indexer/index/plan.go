package index

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// compiler turns a filter into nodes over one snapshot.
type compiler struct {
	ctx    context.Context
	s      *Snapshot
	limits query.Limits
	joins  joinUse
}

func (c *compiler) compile(f *query.Filter) (node, error) {
	s := c.s
	if f.MatchesAll() {
		return allNode{s}, nil
	}
	switch f.Op {
	case query.OpNone:
		return noneNode(), nil
	case query.OpAnd, query.OpOr:
		return c.combine(f)
	case query.OpNot:
		if len(f.Kids) != 1 {
			return nil, fmt.Errorf("not needs one filter, has %d", len(f.Kids))
		}
		k, err := c.compile(f.Kids[0])
		if err != nil {
			return nil, err
		}
		switch {
		case isAll(k):
			return noneNode(), nil
		case isNone(k):
			return allNode{s}, nil
		}
		if nk, ok := k.(*notNode); ok {
			return nk.kid, nil
		}
		return &notNode{s: s, kid: k}, nil
	case query.OpKeys:
		bm := roaring.New()
		for _, key := range f.Keys {
			if d, ok := s.Lookup(key); ok {
				bm.Add(d)
			}
		}
		return &setNode{bm: bm}, nil
	}
	pi := s.property(f.Property)
	if pi == nil {
		return nil, fmt.Errorf("object type %s has no property %q", s.typ.APIName, f.Property)
	}
	switch f.Op {
	case query.OpIsNull:
		null, _ := f.Value.(bool)
		if null {
			return &setNode{bm: pi.nulls}, nil
		}
		return &notNode{s: s, kid: &setNode{bm: pi.nulls}}, nil
	case query.OpEq, query.OpContains:
		return c.eq(pi, f.Value)
	case query.OpIn:
		if f.InLen() == 0 {
			return allNode{s}, nil
		}
		if f.Set != nil {
			if n, ok, err := c.inSet(pi, f.Set); ok || err != nil {
				return n, err
			}
		}
		values := f.InValues()
		if len(values) > 1 && pi.dict == nil && pi.order != nil && !pi.isList {
			return c.inOrder(pi, values)
		}
		var kids []node
		for _, v := range values {
			k, err := c.eq(pi, v)
			if err != nil {
				return nil, err
			}
			kids = append(kids, k)
		}
		return or(s, kids), nil
	case query.OpGt, query.OpGte, query.OpLt, query.OpLte:
		return c.compare(pi, f.Op, f.Value)
	case query.OpAllTerms, query.OpAnyTerm, query.OpPhrase:
		return c.text(pi, f)
	case query.OpStartsWith, query.OpPhrasePrefix:
		// On keyword properties, a prefix of the whole value.
		if pi.text != nil {
			return c.text(pi, f)
		}
		return c.startsWith(pi, f.Text)
	case query.OpWildcard, query.OpRegex:
		return c.pattern(pi, f)
	case query.OpInterval:
		return c.interval(pi, f)
	case query.OpGeo:
		return c.geo(pi, f)
	}
	return nil, fmt.Errorf("unsupported filter %s", f.Op)
}

func (c *compiler) combine(f *query.Filter) (node, error) {
	var kids []node
	for _, kf := range f.Kids {
		k, err := c.compile(kf)
		if err != nil {
			return nil, err
		}
		if f.Op == query.OpAnd {
			switch {
			case isNone(k):
				return k, nil
			case isAll(k):
				continue
			}
			if a, ok := k.(*andNode); ok {
				kids = append(kids, a.kids...)
				continue
			}
		} else {
			switch {
			case isAll(k):
				return k, nil
			case isNone(k):
				continue
			}
			if o, ok := k.(*orNode); ok {
				kids = append(kids, o.kids...)
				continue
			}
		}
		kids = append(kids, k)
	}
	if f.Op == query.OpAnd {
		kids = mergeRanges(kids)
		switch len(kids) {
		case 0:
			return allNode{c.s}, nil
		case 1:
			return kids[0], nil
		}
		return newAnd(c.s, kids), nil
	}
	return or(c.s, kids), nil
}

// mergeRanges intersects the ranges an AND puts on one property (gte lo
// and lt hi) into one run, so the AND materializes or tests one range,
// and a walk of that property is bounded by it.
func mergeRanges(kids []node) []node {
	byProp := map[*propertyIndex]*runsNode{}
	out := kids[:0:0]
	for _, k := range kids {
		r, ok := k.(*runsNode)
		if !ok || len(r.runs) != 1 {
			out = append(out, k)
			continue
		}
		prev := byProp[r.pi]
		if prev == nil {
			cp := *r
			byProp[r.pi] = &cp
			out = append(out, &cp)
			continue
		}
		in1, in2 := prev.in, r.in
		lo, hi := max(prev.runs[0].lo, r.runs[0].lo), min(prev.runs[0].hi, r.runs[0].hi)
		prev.runs = []run{{lo, max(lo, hi)}}
		prev.in = func(vk valueKey) bool { return in1(vk) && in2(vk) }
		prev.cost += r.cost
	}
	return out
}

func or(s *Snapshot, kids []node) node {
	switch len(kids) {
	case 0:
		return noneNode()
	case 1:
		return kids[0]
	}
	return &orNode{s: s, kids: kids}
}

// searchable returns an error for a filter on a property without values.
func (c *compiler) values(pi *propertyIndex) error {
	if pi.column == nil && pi.listColumn == nil || !pi.property.Searchable() {
		return fmt.Errorf("property %s is not searchable", pi.property.APIName)
	}
	return nil
}

func (c *compiler) key(pi *propertyIndex, v any) (valueKey, error) {
	vk, err := valueKeyOf(pi.elementType.Kind, v)
	if err != nil {
		return vk, fmt.Errorf("property %s: %w", pi.property.APIName, err)
	}
	return vk, nil
}

// eq matches the documents whose value (or an element) equals v.
func (c *compiler) eq(pi *propertyIndex, v any) (node, error) {
	if err := c.values(pi); err != nil {
		return nil, err
	}
	vk, err := c.key(pi, v)
	if err != nil {
		return nil, err
	}
	if pi.dict != nil {
		if bm := pi.dict.get(vk); bm != nil {
			return &setNode{bm: bm, bits: pi.dict.denseOf(bm, c.s.maxDoc), counted: true, count: pi.dict.count(bm),
				dictProperty: pi, dictValue: dictKey(vk)}, nil
		}
		return noneNode(), nil
	}
	in := func(x valueKey) bool { return compareValueKeys(x, vk) == 0 }
	if pi.order != nil {
		t := c.s.ties(pi)
		return &runsNode{pi: pi, runs: []run{{pi.order.lowerBound(t, vk, false), pi.order.lowerBound(t, vk, true)}}, in: in}, nil
	}
	return c.pred(pi, in, 0), nil
}

// inOrder matches the documents whose value is one of vals with one node
// over the runs of the property's order that hold them, instead of an OR
// of one node per value: a link followed from thousands of objects asks
// for thousands of keys.
func (c *compiler) inOrder(pi *propertyIndex, vals []any) (node, error) {
	if err := c.values(pi); err != nil {
		return nil, err
	}
	vks := make([]valueKey, 0, len(vals))
	for _, v := range vals {
		vk, err := c.key(pi, v)
		if err != nil {
			return nil, err
		}
		vks = append(vks, vk)
	}
	if !slices.IsSortedFunc(vks, compareValueKeys) { // a link's keys come sorted
		slices.SortFunc(vks, compareValueKeys)
	}
	vks = slices.CompactFunc(vks, func(a, b valueKey) bool { return compareValueKeys(a, b) == 0 })
	runs := pi.order.runsOf(c.s.ties(pi), vks)
	in := func(x valueKey) bool {
		_, found := slices.BinarySearchFunc(vks, x, compareValueKeys)
		return found
	}
	return &runsNode{pi: pi, runs: runs, in: in, cost: inCost(len(vks))}, nil
}

// inCost is what a test of one of n values costs: a binary search.
func inCost(n int) float64 { return 2 * math.Log2(float64(n)+1) }

func (c *compiler) pred(pi *propertyIndex, in func(valueKey) bool, cost float64) node {
	n := &predNode{s: c.s, pi: pi, in: in, cost: cost}
	n.estimate()
	return n
}

// compare matches a range.
func (c *compiler) compare(pi *propertyIndex, op query.Op, v any) (node, error) {
	if err := c.values(pi); err != nil {
		return nil, err
	}
	vk, err := c.key(pi, v)
	if err != nil {
		return nil, err
	}
	in := func(x valueKey) bool {
		cmp := compareValueKeys(x, vk)
		switch op {
		case query.OpGt:
			return cmp > 0
		case query.OpGte:
			return cmp >= 0
		case query.OpLt:
			return cmp < 0
		}
		return cmp <= 0
	}
	if pi.order == nil {
		return c.pred(pi, in, 0), nil
	}
	t := c.s.ties(pi)
	r := run{0, pi.order.len()}
	switch op {
	case query.OpGt:
		r.lo = pi.order.lowerBound(t, vk, true)
	case query.OpGte:
		r.lo = pi.order.lowerBound(t, vk, false)
	case query.OpLt:
		r.hi = pi.order.lowerBound(t, vk, false)
	case query.OpLte:
		r.hi = pi.order.lowerBound(t, vk, true)
	}
	return &runsNode{pi: pi, runs: []run{r}, in: in}, nil
}

// textOf is the text form of a value that startsWith, wildcard and regex
// match: the string itself, or the text of another keyword value.
func textOf(pi *propertyIndex, vk valueKey) string {
	if pi.elementType.Kind == objects.KindString {
		return vk.exact
	}
	return objects.TextOf(valueOf(pi.elementType, vk))
}

// startsWith matches keyword values with a prefix.
func (c *compiler) startsWith(pi *propertyIndex, prefix string) (node, error) {
	if err := c.values(pi); err != nil {
		return nil, err
	}
	in := func(x valueKey) bool { return strings.HasPrefix(textOf(pi, x), prefix) }
	if pi.order == nil || pi.elementType.Kind != objects.KindString {
		return c.pred(pi, in, 5), nil
	}
	return &runsNode{pi: pi, runs: []run{c.prefixRun(pi, prefix)}, in: in, cost: 5}, nil
}

// prefixRun is the run of a string property's order whose values have
// the prefix: strings with a prefix are contiguous in byte order.
func (c *compiler) prefixRun(pi *propertyIndex, prefix string) run {
	t := c.s.ties(pi)
	lo := pi.order.lowerBound(t, valueKey{pre: prefix8(prefix), exact: prefix}, false)
	hi := pi.order.len()
	if succ := successor(prefix); succ != "" {
		hi = pi.order.lowerBound(t, valueKey{pre: prefix8(succ), exact: succ}, false)
	}
	return run{lo, hi}
}

func (c *compiler) tooMany(pi *propertyIndex, f *query.Filter, format string, args ...any) error {
	return &query.TooExpensiveError{Property: pi.property.APIName, Op: f.Op, Limit: c.limits.MaxTerms, Reason: fmt.Sprintf(format, args...)}
}
