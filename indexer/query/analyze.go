package query

import (
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
)

// analyzer splits on Unicode word boundaries (whitespace and punctuation
// split terms) and lowercases: no stemming, no stop words. It holds no
// state, so one value serves every goroutine.
var analyzer = &analysis.DefaultAnalyzer{
	Tokenizer:    unicode.NewUnicodeTokenizer(),
	TokenFilters: []analysis.TokenFilter{lowercase.NewLowerCaseFilter()},
}

// Analyze returns the terms of a text value, in order, as the index and
// text queries see them.
func Analyze(text string) []string {
	if text == "" {
		return nil
	}
	toks := analyzer.Analyze([]byte(text))
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = string(t.Term)
	}
	return out
}

// Fuzziness is the edit distance a fuzzy term allows (Lucene's AUTO): 0
// for one or two characters, 1 for three to five, 2 beyond. A
// transposition of two adjacent characters counts as one edit.
func Fuzziness(term string) int {
	switch n := utf8.RuneCountInString(term); {
	case n <= 2:
		return 0
	case n <= 5:
		return 1
	}
	return 2
}
