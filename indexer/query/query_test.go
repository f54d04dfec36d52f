package query_test

import (
	"fmt"
	"regexp"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/ontoindex/ontoindex/indexer/query"
)

func TestAnalyze(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"", nil},
		{"Grace Hopper", []string{"grace", "hopper"}},
		{"O'Neil, 3.14 and foo_bar!", []string{"o'neil", "3.14", "and", "foo_bar"}},
		{"  ÉCOLE  Straße ", []string{"école", "straße"}},
		{"--- ...", []string{}},
	} {
		t.Run(tc.text, func(t *testing.T) {
			got := query.Analyze(tc.text)
			if !slices.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
				t.Fatalf("Analyze(%q) = %q, want %q", tc.text, got, tc.want)
			}
		})
	}
}

func TestFuzziness(t *testing.T) {
	for term, want := range map[string]int{"": 0, "ab": 0, "abc": 1, "abcde": 1, "abcdef": 2, "ééé": 1, "日本": 0} {
		if got := query.Fuzziness(term); got != want {
			t.Errorf("Fuzziness(%q) = %d, want %d", term, got, want)
		}
	}
}

func TestWildcardRegexp(t *testing.T) {
	for _, tc := range []struct{ pattern, want string }{
		{"abc", "abc"},
		{"a*c", "a.*c"},
		{"a?c", "a.c"},
		{`a\*c`, `a\*c`},
		{"1.5+(x)", `1\.5\+\(x\)`},
		{`trailing\`, `trailing\\`},
		{"ü?*", "ü..*"},
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			if got := query.WildcardRegexp(tc.pattern); got != tc.want {
				t.Fatalf("WildcardRegexp(%q) = %q, want %q", tc.pattern, got, tc.want)
			}
		})
	}
}

func TestPattern(t *testing.T) {
	for _, tc := range []struct {
		op      query.Op
		pattern string
		ok      bool
	}{
		{query.OpWildcard, "a*b?", true},
		{query.OpRegex, "[a-c]+x{2}", true},
		{query.OpRegex, "(unclosed", false},
		{query.OpRegex, `^anchored$`, false}, // an automaton has no position
		{query.OpRegex, `\bword`, false},
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			_, err := query.Pattern(tc.op, tc.pattern)
			if (err == nil) != tc.ok {
				t.Fatalf("Pattern(%s, %q): error %v, want ok %v", tc.op, tc.pattern, err, tc.ok)
			}
		})
	}
}

// FuzzWildcardRegexp checks that a wildcard pattern becomes a regular
// expression that compiles and means the same: literal characters match
// themselves, * any run, ? one character.
func FuzzWildcardRegexp(f *testing.F) {
	for _, s := range []string{"abc", "a*c", `a\?b`, "x?y*z", `\`, "(*)", "ü?"} {
		f.Add(s, "abc")
	}
	f.Fuzz(func(t *testing.T, pattern, value string) {
		if !utf8.ValidString(pattern) || !utf8.ValidString(value) {
			return
		}
		re, err := regexp.Compile("^(?s:" + query.WildcardRegexp(pattern) + ")$")
		if err != nil {
			t.Fatalf("WildcardRegexp(%q) = %q does not compile: %v", pattern, query.WildcardRegexp(pattern), err)
		}
		if got, want := re.MatchString(value), wildcardMatch([]rune(pattern), []rune(value)); got != want {
			t.Fatalf("pattern %q on %q: regexp says %v, wildcard semantics %v", pattern, value, got, want)
		}
	})
}

// wildcardMatch is the wildcard semantics by dynamic programming, the
// oracle: m[i][j] is whether p[i:] matches s[j:].
func wildcardMatch(p, s []rune) bool {
	m := make([][]bool, len(p)+1)
	for i := range m {
		m[i] = make([]bool, len(s)+1)
	}
	m[len(p)][len(s)] = true
	for i := len(p) - 1; i >= 0; i-- {
		for j := len(s); j >= 0; j-- {
			switch c := p[i]; {
			case c == '*':
				m[i][j] = m[i+1][j] || (j < len(s) && m[i][j+1])
			case c == '?':
				m[i][j] = j < len(s) && m[i+1][j+1]
			case c == '\\' && i+1 < len(p):
				m[i][j] = j < len(s) && s[j] == p[i+1] && i+2 <= len(p) && m[i+2][j+1]
			default:
				m[i][j] = j < len(s) && s[j] == c && m[i+1][j+1]
			}
		}
	}
	return m[0][0]
}

func ExampleSearch() {
	q := query.Search{
		Filter: query.And(
			query.Eq("city", "Oslo"),
			query.Compare(query.OpGte, "balance", 1000.0),
			query.Not(query.Eq("active", true)),
			query.Text(query.OpAllTerms, "name", "grace hopper"),
		),
		Sort:     []query.Sort{{Property: "balance", Desc: true}},
		PageSize: 100,
	}
	fmt.Println(q.Filter)
	// Output: and(city eq Oslo, balance gte 1000, not(active eq true), name containsAllTerms "grace hopper")
}

func TestPatternPrefix(t *testing.T) {
	for _, tc := range []struct {
		op         query.Op
		text, want string
	}{
		{query.OpWildcard, "*@example.com", ""},
		{query.OpWildcard, "user1*@example.com", "user1"},
		{query.OpWildcard, "ab?d*", "ab"},
		{query.OpWildcard, `a\*b*`, "a*b"},
		{query.OpWildcard, "zür*", "zür"},
		{query.OpWildcard, "exact", "exact"},
		{query.OpRegex, "abc|abd", "ab"},
		{query.OpRegex, "(?i)abc.*", ""},
		{query.OpRegex, "a+b", "a"},
		{query.OpRegex, "[ab]c", ""},
		{query.OpRegex, "(", ""},
	} {
		if got := query.PatternPrefix(tc.op, tc.text); got != tc.want {
			t.Errorf("%s %q: prefix %q, want %q", tc.op, tc.text, got, tc.want)
		}
	}
}
