package index

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/blevesearch/vellum"
	"github.com/ontoindex/ontoindex/indexer/query"
)

// An interval query is planned like a phrase: the postings of the terms a
// matching value must hold give the candidates, and each candidate's
// analyzed value is checked by computing the rule's intervals (spans of
// term positions) over its terms.

// maxUnorderedParts bounds the parts of an unordered rule: its check
// tracks which parts are placed, 2^parts states.
const maxUnorderedParts = 12

// span is an interval [start, end] of term positions.
type span struct{ start, end int }

func (s span) width() int { return s.end - s.start + 1 }

// intervalRule is a rule with its terms analyzed.
type intervalRule struct {
	kind    query.RuleKind
	terms   []string         // match, prefix (the last one a prefix), fuzzy (one)
	fuzzy   vellum.Automaton // fuzzy with edits
	ordered bool             // match, allOf
	maxGaps int              // match, allOf; query.NoGapLimit for none
	kids    []*intervalRule  // allOf, anyOf
}

// interval compiles an interval query on a text property.
func (c *compiler) interval(pi *propertyIndex, f *query.Filter) (node, error) {
	if pi.text == nil {
		return nil, fmt.Errorf("property %s is not a text property", pi.property.APIName)
	}
	r, cand, err := c.intervalRule(pi, f, f.Interval)
	if err != nil {
		return nil, err
	}
	if isNone(cand) {
		return cand, nil
	}
	return &phraseNode{cand: cand, verify: c.verifyText(pi, func(toks []string) bool { return len(r.intervals(toks)) > 0 })}, nil
}

// intervalRule analyzes a rule and returns it with the candidates: the
// documents whose terms could give it an interval.
func (c *compiler) intervalRule(pi *propertyIndex, f *query.Filter, r *query.Rule) (*intervalRule, node, error) {
	if r == nil {
		return nil, nil, fmt.Errorf("property %s: interval query without a rule", pi.property.APIName)
	}
	out := &intervalRule{kind: r.Kind, ordered: r.Ordered, maxGaps: r.MaxGaps}
	switch r.Kind {
	case query.RuleAllOf, query.RuleAnyOf:
		if len(r.Rules) == 0 {
			return nil, nil, fmt.Errorf("property %s: %s needs rules", pi.property.APIName, r.Kind)
		}
		if r.Kind == query.RuleAllOf && !r.Ordered && len(r.Rules) > maxUnorderedParts {
			return nil, nil, fmt.Errorf("property %s: an unordered allOf takes at most %d rules", pi.property.APIName, maxUnorderedParts)
		}
		kids := make([]node, 0, len(r.Rules))
		for _, k := range r.Rules {
			kr, kn, err := c.intervalRule(pi, f, k)
			if err != nil {
				return nil, nil, err
			}
			out.kids = append(out.kids, kr)
			kids = append(kids, kn)
		}
		if r.Kind == query.RuleAnyOf {
			return out, c.combineNodes(query.OpOr, kids), nil
		}
		return out, c.combineNodes(query.OpAnd, kids), nil
	case query.RuleMatch, query.RulePrefix, query.RuleFuzzy:
	default:
		return nil, nil, fmt.Errorf("property %s: unknown interval rule %s", pi.property.APIName, r.Kind)
	}
	out.terms = query.Analyze(r.Query)
	if len(out.terms) == 0 {
		return nil, nil, fmt.Errorf("property %s: %s %q holds no terms", pi.property.APIName, r.Kind, r.Query)
	}
	switch r.Kind {
	case query.RuleMatch:
		if !r.Ordered && len(out.terms) > maxUnorderedParts {
			return nil, nil, fmt.Errorf("property %s: an unordered match takes at most %d terms", pi.property.APIName, maxUnorderedParts)
		}
		kids := make([]node, 0, len(out.terms))
		for _, t := range out.terms {
			k, err := c.term(pi, f, t, false)
			if err != nil {
				return nil, nil, err
			}
			kids = append(kids, k)
		}
		return out, c.combineNodes(query.OpAnd, kids), nil
	case query.RuleFuzzy:
		if len(out.terms) != 1 {
			return nil, nil, fmt.Errorf("property %s: fuzzy %q holds %d terms; it takes one", pi.property.APIName, r.Query, len(out.terms))
		}
		edits := r.Fuzziness
		if edits < 0 {
			edits = query.Fuzziness(out.terms[0])
		}
		if edits > 2 {
			return nil, nil, fmt.Errorf("property %s: fuzziness %d: at most 2", pi.property.APIName, edits)
		}
		if edits == 0 {
			k, err := c.term(pi, f, out.terms[0], false)
			return out, k, err
		}
		a, n, err := c.fuzzyTerm(pi, f, out.terms[0], edits)
		out.fuzzy = a
		return out, n, err
	}
	// prefixOnLastToken: the candidates of a phrase whose last term is a
	// prefix.
	last := out.terms[len(out.terms)-1]
	n, err := c.prefixTerm(pi, f, last)
	if err != nil {
		return nil, nil, err
	}
	kids := []node{n}
	for _, t := range out.terms[:len(out.terms)-1] {
		k, err := c.term(pi, f, t, false)
		if err != nil {
			return nil, nil, err
		}
		kids = append(kids, k)
	}
	return out, c.combineNodes(query.OpAnd, kids), nil
}

// verifyText returns a check that one value of a document's text, as
// analyzed terms, satisfies ok.
func (c *compiler) verifyText(pi *propertyIndex, ok func(toks []string) bool) func(d uint32) bool {
	var buf []valueKey
	return func(d uint32) bool {
		if pi.nulls.Contains(d) {
			return false
		}
		if pi.column != nil {
			return ok(query.Analyze(pi.column.get(d).exact))
		}
		buf = pi.listColumn.get(d, buf)
		for _, vk := range buf {
			if ok(query.Analyze(vk.exact)) {
				return true
			}
		}
		return false
	}
}

// intervals returns the intervals of r over toks, each once, by start.
func (r *intervalRule) intervals(toks []string) []span {
	switch r.kind {
	case query.RuleFuzzy:
		var out []span
		for i, tok := range toks {
			if tok == r.terms[0] || r.fuzzy != nil && accepts(r.fuzzy, tok) {
				out = append(out, span{i, i})
			}
		}
		return out
	case query.RulePrefix:
		var out []span
		n := len(r.terms)
		for i := 0; i+n <= len(toks); i++ {
			if hasPhrase(toks[i:i+n], r.terms, true) {
				out = append(out, span{i, i + n - 1})
			}
		}
		return out
	case query.RuleAnyOf:
		seen := map[span]bool{}
		for _, k := range r.kids {
			for _, s := range k.intervals(toks) {
				seen[s] = true
			}
		}
		return sortedSpans(seen)
	}
	var parts [][]span
	if r.kind == query.RuleMatch {
		for _, t := range r.terms {
			var p []span
			for i, tok := range toks {
				if tok == t {
					p = append(p, span{i, i})
				}
			}
			parts = append(parts, p)
		}
	} else {
		for _, k := range r.kids {
			parts = append(parts, k.intervals(toks))
		}
	}
	for _, p := range parts {
		if len(p) == 0 {
			return nil
		}
	}
	if r.ordered {
		return combineOrdered(parts, r.maxGaps)
	}
	return combineUnordered(parts, r.maxGaps)
}

// combineOrdered returns the spans of one interval of each part, each
// after the one before, within maxGaps uncovered positions. It keeps,
// for each span so far, the most positions its parts cover: gaps only
// grow as parts are added, so that is the best way to reach it.
func combineOrdered(parts [][]span, maxGaps int) []span {
	states := map[span]int{}
	for _, s := range parts[0] {
		states[s] = s.width()
	}
	for _, p := range parts[1:] {
		next := map[span]int{}
		for st, covered := range states {
			for _, s := range p {
				if s.start <= st.end {
					continue
				}
				grow(next, span{st.start, s.end}, covered+s.width(), maxGaps)
			}
		}
		if states = next; len(states) == 0 {
			return nil
		}
	}
	return sortedSpans(states)
}

// combineUnordered returns the spans of one interval of each part, none
// overlapping another, in any order, within maxGaps. Intervals are
// placed left to right, so every arrangement is met in its position
// order; the state records which parts are placed.
func combineUnordered(parts [][]span, maxGaps int) []span {
	type state struct {
		placed uint32
		sp     span
	}
	layer := map[state]int{}
	for i, p := range parts {
		for _, s := range p {
			layer[state{1 << i, s}] = s.width()
		}
	}
	for range len(parts) - 1 {
		next := map[state]int{}
		for st, covered := range layer {
			for j, p := range parts {
				if st.placed&(1<<j) != 0 {
					continue
				}
				for _, s := range p {
					if s.start <= st.sp.end {
						continue
					}
					ns := state{st.placed | 1<<j, span{st.sp.start, s.end}}
					c := covered + s.width()
					if maxGaps != query.NoGapLimit && ns.sp.width()-c > maxGaps {
						continue
					}
					if old, ok := next[ns]; !ok || c > old {
						next[ns] = c
					}
				}
			}
		}
		if layer = next; len(layer) == 0 {
			return nil
		}
	}
	out := map[span]int{}
	for st, c := range layer {
		out[st.sp] = c
	}
	return sortedSpans(out)
}

// grow records span s reached with covered positions, unless its gaps
// pass maxGaps.
func grow(m map[span]int, s span, covered, maxGaps int) {
	if maxGaps != query.NoGapLimit && s.width()-covered > maxGaps {
		return
	}
	if old, ok := m[s]; !ok || covered > old {
		m[s] = covered
	}
}

func sortedSpans[V any](m map[span]V) []span {
	out := make([]span, 0, len(m))
	for s := range m {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b span) int { return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end)) })
	return out
}
