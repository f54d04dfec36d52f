package opensearch

import (
	"fmt"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// text is the query of a text operator on a text property. The terms are
// query.Analyze's, sent as terms (never analyzed again by the cluster):
// the index analyzes values with textAnalyzer, which makes the same
// terms, so both sides agree on what a term is.
func (tr translator) text(p objects.Property, f *query.Filter) (map[string]any, error) {
	if p.Search != objects.SearchText {
		return nil, fmt.Errorf("property %s is not a text property", p.APIName)
	}
	terms := query.Analyze(f.Text)
	if len(terms) == 0 {
		return nil, fmt.Errorf("property %s: %q holds no terms", p.APIName, f.Text)
	}
	field := path(p)
	switch f.Op {
	case query.OpAllTerms, query.OpAnyTerm:
		kids := make([]any, len(terms))
		for i, t := range terms {
			kids[i] = termQuery(field, t, f.Fuzzy)
		}
		if len(kids) == 1 {
			return kids[0].(map[string]any), nil
		}
		if f.Op == query.OpAnyTerm {
			return boolQuery("should", kids), nil
		}
		return boolQuery("filter", kids), nil
	case query.OpPhrase:
		if len(terms) == 1 {
			return termQuery(field, terms[0], false), nil
		}
		return spanPhrase(field, terms, false), nil
	}
	// A phrase whose last term is a prefix (and startsWith on text).
	if len(terms) == 1 {
		return prefixQuery(field, terms[0]), nil
	}
	return spanPhrase(field, terms, true), nil
}

// termQuery matches one term, or with fuzzy the terms within its edit
// distance (query.Fuzziness, given as a number so that the cluster's AUTO
// does not decide). The constant_score rewrite takes every term within
// the distance, where the default takes the best max_expansions (50).
func termQuery(field, t string, fuzzy bool) map[string]any {
	if d := query.Fuzziness(t); fuzzy && d > 0 {
		return map[string]any{"fuzzy": map[string]any{field: map[string]any{
			"value": t, "fuzziness": d, "transpositions": true, "prefix_length": 0, "rewrite": "constant_score"}}}
	}
	return map[string]any{"term": map[string]any{field: t}}
}

func prefixQuery(field, prefix string) map[string]any {
	return map[string]any{"prefix": map[string]any{field: map[string]any{"value": prefix}}}
}

// spanPhrase matches terms at adjacent positions in order, the last one
// as a prefix when prefixLast. Values of a list are 100 positions apart
// (the text field's position_increment_gap), so a phrase never spans two.
// match_phrase_prefix is not used: it expands the prefix to its first
// max_expansions terms only.
func spanPhrase(field string, terms []string, prefixLast bool) map[string]any {
	clauses := make([]any, len(terms))
	for i, t := range terms {
		clauses[i] = map[string]any{"span_term": map[string]any{field: t}}
		if prefixLast && i == len(terms)-1 {
			clauses[i] = map[string]any{"span_multi": map[string]any{"match": prefixQuery(field, t)}}
		}
	}
	return map[string]any{"span_near": map[string]any{"clauses": clauses, "slop": 0, "in_order": true}}
}

// pattern is the query of a wildcard or a regular expression, which match
// whole exact values. Both become a Lucene regular expression translated
// from the RE2 syntax tree the engine compiles (query.Pattern refuses
// what the engine refuses): Lucene's syntax differs from RE2's (. matches
// a newline, no Perl classes, reserved characters), so it is written from
// the tree, never passed through.
func (tr translator) pattern(p objects.Property, f *query.Filter) (map[string]any, error) {
	if p.Search != objects.SearchText && p.Search != objects.SearchKeyword {
		return nil, unsupported(p, f.Op)
	}
	if _, err := query.Pattern(f.Op, f.Text); err != nil {
		return nil, fmt.Errorf("property %s: %w", p.APIName, err)
	}
	pattern := f.Text
	if f.Op == query.OpWildcard {
		pattern = query.WildcardRegexp(pattern)
	}
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("property %s: invalid regular expression: %w", p.APIName, err)
	}
	var b strings.Builder
	if err := luceneRegexp(&b, re.Simplify()); err != nil {
		return nil, fmt.Errorf("property %s: %w", p.APIName, err)
	}
	return map[string]any{"regexp": map[string]any{textField(p): map[string]any{
		"value": b.String(), "flags": "NONE", "max_determinized_states": 100000}}}, nil
}

// luceneRegexp writes re in Lucene's regular expression syntax (with no
// optional operators), every literal escaped.
func luceneRegexp(b *strings.Builder, re *syntax.Regexp) error {
	switch re.Op {
	case syntax.OpNoMatch:
		b.WriteString("[^\x00-\U0010FFFF]")
	case syntax.OpEmptyMatch:
		b.WriteString("()")
	case syntax.OpLiteral:
		b.WriteString("(")
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 && unicode.SimpleFold(r) != r {
				writeClass(b, foldRanges(r), false)
				continue
			}
			writeRune(b, r)
		}
		b.WriteString(")")
	case syntax.OpCharClass:
		writeClass(b, re.Rune, false)
	case syntax.OpAnyCharNotNL:
		writeClass(b, []rune{'\n', '\n'}, true)
	case syntax.OpAnyChar:
		writeClass(b, []rune{0, unicode.MaxRune}, false)
	case syntax.OpCapture:
		return luceneRegexp(b, re.Sub[0])
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		b.WriteString("(")
		if err := luceneRegexp(b, re.Sub[0]); err != nil {
			return err
		}
		b.WriteString(")")
		switch re.Op {
		case syntax.OpStar:
			b.WriteString("*")
		case syntax.OpPlus:
			b.WriteString("+")
		case syntax.OpQuest:
			b.WriteString("?")
		default:
			b.WriteString("{" + strconv.Itoa(re.Min) + ",")
			if re.Max >= 0 {
				b.WriteString(strconv.Itoa(re.Max))
			}
			b.WriteString("}")
		}
	case syntax.OpConcat, syntax.OpAlternate:
		b.WriteString("(")
		for i, sub := range re.Sub {
			if i > 0 && re.Op == syntax.OpAlternate {
				b.WriteString("|")
			}
			if err := luceneRegexp(b, sub); err != nil {
				return err
			}
		}
		if len(re.Sub) == 0 {
			b.WriteString("()")
		}
		b.WriteString(")")
	default:
		return fmt.Errorf("unsupported regular expression: %s", re.Op)
	}
	return nil
}

// foldRanges are the ranges of the runes r folds with, r among them.
func foldRanges(r rune) []rune {
	out := []rune{r, r}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		out = append(out, f, f)
	}
	return out
}

// writeClass writes a character class of rune ranges (pairs lo, hi).
func writeClass(b *strings.Builder, ranges []rune, negate bool) {
	b.WriteString("[")
	if negate {
		b.WriteString("^")
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		writeRune(b, ranges[i])
		if ranges[i+1] != ranges[i] {
			b.WriteString("-")
			writeRune(b, ranges[i+1])
		}
	}
	b.WriteString("]")
}

// writeRune writes r as a literal: letters and digits as they are, every
// other rune escaped (Lucene takes \ before any character as that
// character).
func writeRune(b *strings.Builder, r rune) {
	if r < 0x80 && !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
		b.WriteByte('\\')
	}
	b.WriteRune(r)
}
