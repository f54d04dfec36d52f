package index

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/internal/spelling"
)

// oracleIntervals is the plain reading of an interval rule over the terms
// of one value: every way to choose the parts, kept when they satisfy the
// rule. It shares nothing with the engine's check but the analyzer and
// hasPhrase's definition of a phrase.
func oracleIntervals(r *query.Rule, toks []string) map[span]bool {
	out := map[span]bool{}
	switch r.Kind {
	case query.RuleFuzzy:
		term := query.Analyze(r.Query)[0]
		edits := r.Fuzziness
		if edits < 0 {
			edits = query.Fuzziness(term)
		}
		for i, tok := range toks {
			if tok == term || utf8.ValidString(tok) && spelling.Distance(tok, term) <= edits {
				out[span{i, i}] = true
			}
		}
	case query.RulePrefix:
		terms := query.Analyze(r.Query)
		for i := 0; i+len(terms) <= len(toks); i++ {
			ok := true
			for j, t := range terms {
				if j == len(terms)-1 {
					ok = ok && strings.HasPrefix(toks[i+j], t)
				} else {
					ok = ok && toks[i+j] == t
				}
			}
			if ok {
				out[span{i, i + len(terms) - 1}] = true
			}
		}
	case query.RuleAnyOf:
		for _, k := range r.Rules {
			for s := range oracleIntervals(k, toks) {
				out[s] = true
			}
		}
	case query.RuleMatch, query.RuleAllOf:
		var parts []map[span]bool
		if r.Kind == query.RuleMatch {
			for _, t := range query.Analyze(r.Query) {
				parts = append(parts, oracleIntervals(&query.Rule{Kind: query.RuleFuzzy, Query: t, Fuzziness: 0}, toks))
			}
		} else {
			for _, k := range r.Rules {
				parts = append(parts, oracleIntervals(k, toks))
			}
		}
		// Every choice of one span per part.
		chosen := make([]span, len(parts))
		var choose func(i int)
		choose = func(i int) {
			if i < len(parts) {
				for s := range parts[i] {
					chosen[i] = s
					choose(i + 1)
				}
				return
			}
			whole, covered := chosen[0], 0
			for a, x := range chosen {
				covered += x.width()
				whole.start, whole.end = min(whole.start, x.start), max(whole.end, x.end)
				for _, y := range chosen[a+1:] {
					if r.Ordered && y.start <= x.end || x.start <= y.end && y.start <= x.end {
						return // out of order, or overlapping
					}
				}
			}
			if r.MaxGaps == query.NoGapLimit || whole.width()-covered <= r.MaxGaps {
				out[whole] = true
			}
		}
		choose(0)
	}
	return out
}

// randRule draws an interval rule over the test words: terms, prefixes,
// misspellings, nested to depth.
func randRule(r *rand.Rand, depth int) *query.Rule {
	word := func() string {
		w := testWords[r.IntN(len(testWords))]
		switch r.IntN(6) {
		case 0:
			return strings.ToUpper(w)
		case 1:
			return w[:1+r.IntN(len(w)-1)] // often no term at all
		}
		return w
	}
	words := func() string {
		ws := make([]string, 1+r.IntN(3))
		for i := range ws {
			ws[i] = word()
		}
		return strings.Join(ws, " ")
	}
	gaps := func() int {
		if r.IntN(2) == 0 {
			return query.NoGapLimit
		}
		return r.IntN(3)
	}
	k := r.IntN(5)
	if depth == 0 {
		k = r.IntN(3)
	}
	switch k {
	case 0:
		return &query.Rule{Kind: query.RuleMatch, Query: words(), Ordered: r.IntN(2) == 0, MaxGaps: gaps()}
	case 1:
		return &query.Rule{Kind: query.RulePrefix, Query: words()}
	case 2:
		w := []rune(testWords[r.IntN(len(testWords))])
		if r.IntN(2) == 0 {
			w[r.IntN(len(w))] = 'x'
		}
		return &query.Rule{Kind: query.RuleFuzzy, Query: string(w), Fuzziness: r.IntN(4) - 1}
	}
	rules := make([]*query.Rule, 1+r.IntN(3))
	for i := range rules {
		rules[i] = randRule(r, depth-1)
	}
	if k == 3 {
		return &query.Rule{Kind: query.RuleAllOf, Rules: rules, Ordered: r.IntN(2) == 0, MaxGaps: gaps()}
	}
	return &query.Rule{Kind: query.RuleAnyOf, Rules: rules}
}

func TestSnapshot_SearchInterval(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 1))
	typ := testType(t)
	want := randState(r, 1500)
	s := mustBuild(t, typ, want)
	s, keys := mustEdit(t, r, s, want, editMix{deleted: 1, rewritten: 2, outOf: 6})
	or := &oracle{t: typ}
	matched, n := 0, oracleCases(600)
	for i := range n {
		prop := []string{"name", "notes"}[r.IntN(2)]
		f := query.Interval(prop, randRule(r, 2))
		if r.IntN(4) == 0 {
			f = query.And(f, randFilter(r, typ, want, keys, 1))
		}
		q := query.Search{Filter: f, PageSize: []int{3, 100, 5000}[r.IntN(3)]}
		exp := or.sorted(want, keys, f, nil)
		got, total, err := pageAll(t, s, q, searchOptions{})
		if err != nil {
			t.Fatalf("%d: %v: %v", i, f, err)
		}
		if total != int64(len(exp)) || !slices.Equal(got, exp) {
			t.Fatalf("%d: %v: total %d, want %d\ngot  %v\nwant %v", i, f, total, len(exp), head(got), head(exp))
		}
		if len(exp) > 0 {
			matched++
		}
	}
	if matched < n/4 {
		t.Fatalf("only %d of %d rules matched anything: the test draws too few matching rules", matched, n)
	}
}

func TestIntervalRule_intervals(t *testing.T) {
	toks := query.Analyze("the quick brown fox jumps over the lazy dog")
	match := func(q string, ordered bool, gaps int) *query.Rule {
		return &query.Rule{Kind: query.RuleMatch, Query: q, Ordered: ordered, MaxGaps: gaps}
	}
	for _, tc := range []struct {
		rule *query.Rule
		want string
	}{
		{match("quick fox", true, 1), "[{1 3}]"},
		{match("quick fox", true, 0), "[]"},
		{match("fox quick", true, query.NoGapLimit), "[]"},
		{match("fox quick", false, query.NoGapLimit), "[{1 3}]"},
		{match("the the", false, query.NoGapLimit), "[{0 6}]"},
		{match("the", false, query.NoGapLimit), "[{0 0} {6 6}]"},
		{&query.Rule{Kind: query.RulePrefix, Query: "lazy d"}, "[{7 8}]"},
		{&query.Rule{Kind: query.RuleFuzzy, Query: "jumsp", Fuzziness: -1}, "[{4 4}]"},
		{&query.Rule{Kind: query.RuleAllOf, Ordered: true, MaxGaps: 1, Rules: []*query.Rule{match("quick brown", true, 0), match("over", true, 0)}}, "[]"},
		{&query.Rule{Kind: query.RuleAllOf, Ordered: true, MaxGaps: 2, Rules: []*query.Rule{match("quick brown", true, 0), match("jumps", true, 0)}}, "[{1 4}]"},
		{&query.Rule{Kind: query.RuleAnyOf, Rules: []*query.Rule{match("dog", true, 0), match("cat", true, 0)}}, "[{8 8}]"},
	} {
		t.Run(tc.rule.String(), func(t *testing.T) {
			ir := mustIntervalRule(t, tc.rule)
			if got := fmt.Sprint(ir.intervals(toks)); got != tc.want {
				t.Fatalf("intervals = %s, want %s", got, tc.want)
			}
			if got := sortedSpans(oracleIntervals(tc.rule, toks)); fmt.Sprint(got) != tc.want && !(len(got) == 0 && tc.want == "[]") {
				t.Fatalf("oracle = %v, want %s", got, tc.want)
			}
		})
	}
}

// mustIntervalRule compiles a rule against a snapshot of one object.
func mustIntervalRule(tb testing.TB, rule *query.Rule) *intervalRule {
	tb.Helper()
	typ := testType(tb)
	o := randObject(rand.New(rand.NewPCG(1, 1)), 1)
	o.Values[1] = "the quick brown fox"
	s := mustBuild(tb, typ, state{0: o})
	f := query.Interval("name", rule)
	ir, _, err := (&compiler{s: s}).intervalRule(s.property("name"), f, rule)
	if err != nil {
		tb.Fatal(err)
	}
	return ir
}
