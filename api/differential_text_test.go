package api_test

import (
	"regexp"
	"slices"
	"strings"

	"github.com/ontoindex/ontoindex/objects"
)

// The text of random text queries, wildcards and regular expressions:
// mostly derived from values of the current state (so that they match),
// with the edits that make them miss (typos beyond the fuzzy distance, a
// phrase across two list elements, a wildcard one rune too long).

// terms is the text of a text query: terms of a random value (a window of
// consecutive terms for phrases), sometimes other words, in random case
// and with random separators; now and then text with no terms at all.
func (q *dfQGen) terms(p objects.Property, op string) string {
	if q.pct(3) {
		return []string{"", " ", ",.!", " - "}[q.r.IntN(4)]
	}
	var toks []string
	i := q.s.typ.PropertyIndex(p.APIName)
	for range 8 {
		if len(q.s.objs) == 0 {
			break
		}
		els := q.s.objs[q.r.IntN(len(q.s.objs))].toks[i]
		if len(els) > 1 && q.pct(25) {
			// The end of one element and the start of the next: a
			// phrase must not match across elements.
			k := q.r.IntN(len(els) - 1)
			if len(els[k]) > 0 && len(els[k+1]) > 0 {
				toks = []string{els[k][len(els[k])-1], els[k+1][0]}
				break
			}
		}
		if len(els) > 0 {
			toks = els[q.r.IntN(len(els))]
			if len(toks) > 0 {
				break
			}
		}
	}
	var words []string
	n := 1 + q.r.IntN(3)
	switch {
	case len(toks) == 0 || q.pct(15):
		for range n {
			words = append(words, dfWords[q.r.IntN(len(dfWords))])
		}
	case op == "containsAllTerms" || op == "containsAnyTerm":
		for range n {
			if q.pct(80) {
				words = append(words, toks[q.r.IntN(len(toks))])
			} else {
				words = append(words, dfWords[q.r.IntN(len(dfWords))])
			}
		}
	default:
		at := q.r.IntN(len(toks))
		words = slices.Clone(toks[at:min(len(toks), at+n)])
	}
	if op != "containsAllTerms" && op != "containsAnyTerm" && op != "containsAllTermsInOrder" {
		last := []rune(words[len(words)-1])
		words[len(words)-1] = string(last[:1+q.r.IntN(len(last))])
	}
	for j, w := range words {
		if q.pct(20) {
			words[j] = strings.ToUpper(w)
		}
	}
	var b strings.Builder
	for j, w := range words {
		if j > 0 {
			b.WriteString([]string{" ", "  ", ", ", "-", "/"}[q.r.IntN(5)])
		}
		b.WriteString(w)
	}
	return b.String()
}

// typos applies up to two edits (substitution, insertion, deletion,
// transposition) to the words of a fuzzy query.
func (q *dfQGen) typos(text string) string {
	words := strings.Split(text, " ")
	for j, w := range words {
		rs := []rune(w)
		for range []int{0, 1, 1, 1, 2, 2}[q.r.IntN(6)] {
			if len(rs) < 2 {
				rs = append(rs, 'e')
				continue
			}
			k := q.r.IntN(len(rs) - 1)
			switch q.r.IntN(4) {
			case 0:
				rs[k] = 'q'
			case 1:
				rs = slices.Insert(rs, k, 'e')
			case 2:
				rs = slices.Delete(rs, k, k+1)
			default:
				rs[k], rs[k+1] = rs[k+1], rs[k]
			}
		}
		words[j] = string(rs)
	}
	return strings.Join(words, " ")
}

// wildcard turns a value into a pattern that mostly still matches it.
func (q *dfQGen) wildcard(s string) string {
	var b strings.Builder
	if q.pct(10) {
		b.WriteByte('*')
	}
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		switch x := q.r.IntN(12); {
		case x == 0:
			b.WriteByte('?')
		case x == 1:
			b.WriteByte('*')
			i += q.r.IntN(3)
		case x == 2 && q.pct(30):
			b.WriteRune('x')
			i--
		case x == 3 && q.pct(60):
			b.WriteByte('?') // one rune too many
			i--
		default:
			if strings.ContainsRune(`*?\`, rs[i]) {
				b.WriteByte('\\')
			}
			b.WriteRune(rs[i])
		}
	}
	if q.pct(15) {
		b.WriteByte('*')
	}
	return b.String()
}

// regex turns a value into an RE2 pattern of literals, ., *, +, ?,
// classes and alternations.
func (q *dfQGen) regex(s string) string {
	quote := func(r rune) string { return regexp.QuoteMeta(string(r)) }
	var b strings.Builder
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		switch q.r.IntN(16) {
		case 0:
			b.WriteString(".")
		case 1:
			b.WriteString(".*")
			i += q.r.IntN(3)
		case 2:
			b.WriteString("[" + quote(rs[i]) + "a-c]")
		case 3:
			b.WriteString(quote(rs[i]) + "?")
		case 4:
			b.WriteString(quote(rs[i]) + "+")
		case 5:
			b.WriteString("(" + quote(rs[i]) + "|" + quote([]rune("aZ日")[q.r.IntN(3)]) + ")")
		case 6:
			b.WriteString("[^q]")
		case 7:
			b.WriteString("[A-Z0-9]")
		default:
			b.WriteString(quote(rs[i]))
		}
	}
	if q.pct(10) {
		b.WriteString(".*")
	}
	return b.String()
}
