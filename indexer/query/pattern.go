package query

import (
	"fmt"
	"regexp/syntax"
	"strings"

	vregexp "github.com/blevesearch/vellum/regexp"
)

// Pattern compiles the pattern of an OpWildcard or OpRegex filter into
// the automaton that matches whole values. Regular expressions are RE2
// syntax without anchors or word boundaries (an automaton has no
// position); the error says why a pattern is refused.
func Pattern(op Op, text string) (*vregexp.Regexp, error) {
	pattern := text
	if op == OpWildcard {
		pattern = WildcardRegexp(text)
	}
	parsed, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	re, err := vregexp.NewParsedWithLimit(pattern, parsed, vregexp.DefaultLimit)
	if err != nil {
		return nil, fmt.Errorf("unsupported regular expression: %v", err)
	}
	return re, nil
}

// WildcardRegexp turns a wildcard pattern (* any run, ? one character, \
// escapes the next character) into a regular expression.
func WildcardRegexp(p string) string {
	var b strings.Builder
	rs := []rune(p)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '\\':
			if i+1 < len(rs) {
				i++
				b.WriteString(regexpQuote(rs[i]))
			} else {
				b.WriteString(`\\`)
			}
		default:
			b.WriteString(regexpQuote(r))
		}
	}
	return b.String()
}

func regexpQuote(r rune) string {
	if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
		return `\` + string(r)
	}
	return string(r)
}

// PatternPrefix is the literal prefix of every value an OpWildcard or
// OpRegex pattern matches ("" when it has none, as with a leading * or a
// case-insensitive pattern): the engine looks only at the values that
// have it.
func PatternPrefix(op Op, text string) string {
	pattern := text
	if op == OpWildcard {
		pattern = WildcardRegexp(text)
	}
	parsed, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return ""
	}
	prog, err := syntax.Compile(parsed.Simplify())
	if err != nil {
		return ""
	}
	prefix, _ := prog.Prefix()
	return prefix
}
