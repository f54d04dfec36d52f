package index

import (
	"fmt"
	"regexp/syntax"
	"strings"
	"unicode/utf8"

	"github.com/blevesearch/vellum"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// Wildcards and regular expressions match whole exact values. A pattern
// is never refused for the values it matches: its cost is bounded by a
// scan of the property's values, which the planner weighs like any
// predicate's.
//
// On a string property with an order, a pattern can walk the distinct
// values in byte order, skipping every prefix the automaton rules out,
// and become exact runs of the order: cheap when it skips most values
// (c0001*, [A-C].*, (Oslo|Cairo)). A pattern that skips little (a leading
// wildcard: *@example.com) visits every distinct value at the price of a
// binary search each, more than reading every value once; so the walk has
// a budget of visits, and a pattern that exceeds it becomes a predicate
// instead, tested on the documents the rest of the query leaves or
// scanned in document order. The budget keeps the abandoned walk a
// fraction of that scan.
const (
	// costPattern is one automaton run over a value.
	costPattern = 20
	// The walk may visit a walkPerScan-th of the values the scan would
	// test. A visit (a binary search of the order) costs about 240 ns at
	// a million values, a scanned value 40 (a glob) to 140 ns (the
	// automaton), so an abandoned walk adds 10 to 40% to the scan that
	// replaces it (BenchmarkSnapshot_Pattern).
	walkPerScan = 16
	// minWalk is the budget of small properties, where either is cheap.
	minWalk = 256
)

// pattern matches whole exact values against a wildcard or regex.
func (c *compiler) pattern(pi *propertyIndex, f *query.Filter) (node, error) {
	if err := c.values(pi); err != nil {
		return nil, err
	}
	re, err := query.Pattern(f.Op, f.Text)
	if err != nil {
		return nil, fmt.Errorf("property %s: %w", pi.property.APIName, err)
	}
	match := matcher(f, re)
	in := func(x valueKey) bool { return match(textOf(pi, x)) }
	if pi.order == nil || pi.elementType.Kind != objects.KindString || pi.dict != nil {
		// A dict tests each of its few values once; arrays and the text
		// forms of other types are tested value by value.
		return c.pred(pi, in, costPattern), nil
	}
	// Every match has the pattern's literal prefix: the walk and the scan
	// look only at the run of values that have it.
	prefix := query.PatternPrefix(f.Op, f.Text)
	span := run{0, pi.order.len()}
	if prefix != "" {
		span = c.prefixRun(pi, prefix)
	}
	if runs, ok := c.walkPattern(pi, re, prefix, span); ok {
		return &runsNode{pi: pi, runs: runs, in: in, cost: costPattern}, nil
	}
	scan := &predNode{s: c.s, pi: pi, in: in, cost: costPattern}
	if span.lo == 0 && span.hi == pi.order.len() {
		scan.estimate()
		return scan, nil
	}
	// The AND materializes the prefix's run and tests the pattern on it.
	scan.estimateIn(pi.order, span)
	hasPrefix := func(x valueKey) bool { return strings.HasPrefix(x.exact, prefix) }
	return newAnd(c.s, []node{&runsNode{pi: pi, runs: []run{span}, in: hasPrefix, cost: 5}, scan}), nil
}

// walkPattern walks the distinct values of span that the automaton may
// match and returns the run of each match, or false when the walk would
// visit more values than its budget, or match more than Limits.MaxTerms
// (so many runs cost more than the scan that replaces them).
func (c *compiler) walkPattern(pi *propertyIndex, re vellum.Automaton, prefix string, span run) ([]run, bool) {
	t := c.s.ties(pi)
	o := pi.order
	budget := max((span.hi-span.lo)/walkPerScan, minWalk)
	maxRuns := budget
	if c.limits.MaxTerms > 0 {
		maxRuns = min(maxRuns, c.limits.MaxTerms)
	}
	var runs []run
	visits, complete := 0, true
	walkSorted(re, func(from string) (string, bool) {
		if visits++; visits > budget {
			complete = false
			return "", false
		}
		from = max(from, prefix)
		p := o.lowerBound(t, valueKey{pre: prefix8(from), exact: from}, false)
		if p >= span.hi {
			return "", false
		}
		return t.exactOf(o.doc(p)), true
	}, func(s string) bool {
		if len(runs) == maxRuns {
			complete = false
			return false
		}
		vk := valueKey{pre: prefix8(s), exact: s}
		runs = append(runs, run{o.lowerBound(t, vk, false), o.lowerBound(t, vk, true)})
		return true
	})
	return runs, complete
}

// estimateIn sets the estimate of a predicate that an AND tests on the
// documents of a run only: from a sample of the run, scaled to every
// document, since the AND multiplies selectivities.
func (n *predNode) estimateIn(o *order, r run) {
	span := r.hi - r.lo
	if span <= 0 {
		return
	}
	const samples = 128
	step := max(span/samples, 1)
	hit, seen := 0, 0
	for p := r.lo; p < r.hi; p += step {
		seen++
		if n.test(o.doc(p)) {
			hit++
		}
	}
	n.estimated = float64(n.s.aliveCount()) * float64(hit) / float64(seen)
}

// accepts runs an automaton over s. (vellum.AutomatonContains stops at
// state 1, which is a live state of vellum's regexp automata.)
func accepts(a vellum.Automaton, s string) bool {
	st := a.Start()
	for i := 0; i < len(s); i++ {
		if st = a.Accept(st, s[i]); !a.CanMatch(st) {
			return false
		}
	}
	return a.IsMatch(st)
}

// matcher is the test of one value against a pattern. Most wildcards are
// literals and stars (*@example.com, *smith*, ab*cd): they are matched
// with string searches, several times faster than the automaton's byte
// by byte transitions, which a scan of a million values feels. The rest
// run the automaton.
func matcher(f *query.Filter, re vellum.Automaton) func(string) bool {
	g, ok := globOf(f)
	if !ok {
		return func(s string) bool { return accepts(re, s) }
	}
	return func(s string) bool {
		// A star is ".*": any valid UTF-8 without a newline, as the
		// automaton has it; other values take the automaton's word.
		if strings.IndexByte(s, '\n') >= 0 || !utf8.ValidString(s) {
			return accepts(re, s)
		}
		return g.match(s)
	}
}

// glob is a pattern of literals separated by stars: parts[0] * parts[1]
// * ... * parts[n-1], where the first and last part may be empty.
type glob struct{ parts []string }

// globOf reads the pattern as a glob, when it is one.
func globOf(f *query.Filter) (glob, bool) {
	pattern := f.Text
	if f.Op == query.OpWildcard {
		pattern = query.WildcardRegexp(f.Text)
	}
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return glob{}, false
	}
	re = re.Simplify()
	subs := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		subs = re.Sub
	}
	g := glob{parts: []string{""}}
	for _, sub := range subs {
		switch {
		case sub.Op == syntax.OpLiteral && sub.Flags&syntax.FoldCase == 0:
			g.parts[len(g.parts)-1] += string(sub.Rune)
		case sub.Op == syntax.OpStar && sub.Sub[0].Op == syntax.OpAnyCharNotNL:
			if g.parts[len(g.parts)-1] != "" || len(g.parts) == 1 {
				g.parts = append(g.parts, "")
			}
		default:
			return glob{}, false
		}
	}
	return g, len(g.parts) > 1 // without a star, the automaton (an eq) is as fast
}

func (g glob) match(s string) bool {
	first, last := g.parts[0], g.parts[len(g.parts)-1]
	if len(s) < len(first)+len(last) || !strings.HasPrefix(s, first) || !strings.HasSuffix(s, last) {
		return false
	}
	// The middle parts, leftmost first, between the first and last part.
	s = s[len(first) : len(s)-len(last)]
	for _, p := range g.parts[1 : len(g.parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return true
}
