package index

import (
	"fmt"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// TestMatcher checks the string matching of globs against the automaton
// they stand for, on the values where they could differ: newlines, which
// a star does not cross, invalid UTF-8, and parts that overlap.
func TestMatcher(t *testing.T) {
	values := []string{"", "a", "aa", "aba", "abab", "ab\nab", "a\xffb", "x@example.com", "@example.com", "example.com",
		"user1@example.comx", "zürich", "*", "a*b", "ba"}
	for _, w := range []struct {
		op   query.Op
		text string
	}{
		{query.OpWildcard, "*@example.com"}, {query.OpWildcard, "a*a"}, {query.OpWildcard, "a*b*a*b"},
		{query.OpWildcard, "*"}, {query.OpWildcard, "**"}, {query.OpWildcard, "a*"}, {query.OpWildcard, "*b"},
		{query.OpWildcard, "*ab*"}, {query.OpWildcard, `*\**`}, {query.OpWildcard, "z*h"}, {query.OpWildcard, "?b*"},
		{query.OpRegex, ".*a"}, {query.OpRegex, "(?i)A.*"}, {query.OpRegex, "(?s).*b"}, {query.OpRegex, "a.*b.*"},
	} {
		f := query.Text(w.op, "code", w.text)
		re, err := query.Pattern(f.Op, f.Text)
		if err != nil {
			t.Fatal(err)
		}
		match := matcher(f, re)
		for _, v := range values {
			if got, want := match(v), accepts(re, v); got != want {
				t.Errorf("%s %q on %q: %v, the automaton says %v", w.op, w.text, v, got, want)
			}
		}
	}
}

// TestCompiler_pattern checks how patterns on a keyword of many distinct
// values compile: those that skip most values walk them into runs, those
// that cannot (a leading wildcard) scan without walking, and a literal
// prefix bounds the scan. Every one is served, far beyond MaxTerms.
func TestCompiler_pattern(t *testing.T) {
	typ := accountType()
	b := NewBuilder(typ)
	var emails []string
	for i := range 20_000 {
		e := fmt.Sprintf("user%07d@%s", i, benchDomains[i%len(benchDomains)])
		emails = append(emails, e)
		o := &objects.Object{Values: []any{int64(i), e}}
		if err := b.Add(uint32(i), mustKey(t, typ, o), o); err != nil {
			t.Fatal(err)
		}
	}
	s := b.Finish(1)
	c := &compiler{s: s, limits: query.Limits{MaxTerms: 100}}
	x := &exec{ctx: t.Context(), s: s}
	defer x.release()
	for _, tc := range []struct {
		pattern string
		want    string // the node
	}{
		{"user00001??@example.com", "*index.runsNode"}, // 100 values: walks
		{"*@example.com", "*index.predNode"},
		{"*0042*", "*index.predNode"},
		{"user001*@example.com", "*index.andNode"}, // the 10,000 values of the prefix, scanned
	} {
		f := query.Text(query.OpWildcard, "email", tc.pattern)
		n, err := c.compile(f)
		if err != nil {
			t.Fatalf("%s: %v", tc.pattern, err)
		}
		if got := fmt.Sprintf("%T", n); got != tc.want {
			t.Errorf("%s: compiled to %s, want %s", tc.pattern, got, tc.want)
		}
		re, _ := query.Pattern(f.Op, f.Text)
		want := 0
		for _, e := range emails {
			if accepts(re, e) {
				want++
			}
		}
		bm, err := n.bitmap(x)
		if err != nil || int(bm.GetCardinality()) != want {
			t.Errorf("%s: %d matches, %v; want %d", tc.pattern, bm.GetCardinality(), err, want)
		}
	}
}
