package index

import (
	"fmt"
	"strings"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/vellum"
	"github.com/blevesearch/vellum/levenshtein"
	"github.com/ontoindex/ontoindex/indexer/query"
)

// levBuilders builds the Levenshtein automata of fuzzy terms (distance 1
// and 2, a transposition counting as one edit). Building a builder takes
// milliseconds, so they are made once and shared; they are read-only.
var levBuilders = sync.OnceValues(func() ([3]*levenshtein.LevenshteinAutomatonBuilder, error) {
	var out [3]*levenshtein.LevenshteinAutomatonBuilder
	for d := 1; d <= 2; d++ {
		b, err := levenshtein.NewLevenshteinAutomatonBuilder(uint8(d), true)
		if err != nil {
			return out, err
		}
		out[d] = b
	}
	return out, nil
})

// text compiles the text queries of a text property.
func (c *compiler) text(pi *propertyIndex, f *query.Filter) (node, error) {
	if pi.text == nil {
		return nil, fmt.Errorf("property %s is not a text property", pi.property.APIName)
	}
	terms := query.Analyze(f.Text)
	if len(terms) == 0 {
		return nil, fmt.Errorf("property %s: %q holds no terms", pi.property.APIName, f.Text)
	}
	switch f.Op {
	case query.OpAllTerms, query.OpAnyTerm:
		kids := make([]node, 0, len(terms))
		for _, t := range terms {
			k, err := c.term(pi, f, t, f.Fuzzy)
			if err != nil {
				return nil, err
			}
			kids = append(kids, k)
		}
		if f.Op == query.OpAnyTerm {
			return c.combineNodes(query.OpOr, kids), nil
		}
		return c.combineNodes(query.OpAnd, kids), nil
	case query.OpPhrase:
		kids := make([]node, 0, len(terms))
		for _, t := range terms {
			k, err := c.term(pi, f, t, false)
			if err != nil {
				return nil, err
			}
			kids = append(kids, k)
		}
		cand := c.combineNodes(query.OpAnd, kids)
		if len(terms) == 1 || isNone(cand) {
			return cand, nil
		}
		return &phraseNode{cand: cand, verify: c.phrase(pi, terms, false)}, nil
	}
	// A phrase whose last term is a prefix (and startsWith on text).
	last := terms[len(terms)-1]
	lastNode, err := c.prefixTerm(pi, f, last)
	if err != nil {
		return nil, err
	}
	if len(terms) == 1 {
		return lastNode, nil
	}
	kids := []node{lastNode}
	for _, t := range terms[:len(terms)-1] {
		k, err := c.term(pi, f, t, false)
		if err != nil {
			return nil, err
		}
		kids = append(kids, k)
	}
	cand := c.combineNodes(query.OpAnd, kids)
	if isNone(cand) {
		return cand, nil
	}
	return &phraseNode{cand: cand, verify: c.phrase(pi, terms, true)}, nil
}

// combineNodes simplifies an and/or of compiled kids.
func (c *compiler) combineNodes(op query.Op, kids []node) node {
	if op == query.OpOr {
		var keep []node
		for _, k := range kids {
			if !isNone(k) {
				keep = append(keep, k)
			}
		}
		return or(c.s, keep)
	}
	for _, k := range kids {
		if isNone(k) {
			return k
		}
	}
	if len(kids) == 1 {
		return kids[0]
	}
	return newAnd(c.s, kids)
}

// term matches one analyzed term, or the terms within its edit distance.
func (c *compiler) term(pi *propertyIndex, f *query.Filter, t string, fuzzy bool) (node, error) {
	d := 0
	if fuzzy {
		d = query.Fuzziness(t)
	}
	if d == 0 {
		p, ok := pi.text.get(t)
		if !ok {
			return noneNode(), nil
		}
		return &setNode{bm: p.bitmap()}, nil
	}
	_, n, err := c.fuzzyTerm(pi, f, t, d)
	return n, err
}

// fuzzyTerm matches the terms within d edits of t (d is 1 or 2), and
// returns the automaton that accepts them.
func (c *compiler) fuzzyTerm(pi *propertyIndex, f *query.Filter, t string, d int) (vellum.Automaton, node, error) {
	lbs, err := levBuilders()
	if err != nil {
		return nil, nil, err
	}
	dfa, err := lbs[d].BuildDfa(t, uint8(d))
	if err != nil {
		return nil, nil, fmt.Errorf("fuzzy term %q: %w", t, err)
	}
	var posts []posting
	pi.text.walk(dfa, func(_ string, p posting) bool {
		if c.limits.MaxTerms > 0 && len(posts) == c.limits.MaxTerms {
			err = c.tooMany(pi, f, "the fuzzy term %q matches more than %d terms", t, c.limits.MaxTerms)
			return false
		}
		posts = append(posts, p)
		return true
	})
	if err != nil {
		return nil, nil, err
	}
	return dfa, union(posts), nil
}

// prefixTerm matches the terms with a prefix.
func (c *compiler) prefixTerm(pi *propertyIndex, f *query.Filter, pfx string) (node, error) {
	var posts []posting
	var err error
	pi.text.prefix(pfx, func(_ string, p posting) bool {
		if c.limits.MaxTerms > 0 && len(posts) == c.limits.MaxTerms {
			err = c.tooMany(pi, f, "the last term %q is the prefix of more than %d terms; give a longer prefix", pfx, c.limits.MaxTerms)
			return false
		}
		posts = append(posts, p)
		return true
	})
	if err != nil {
		return nil, err
	}
	return union(posts), nil
}

// union is the documents of several postings.
func union(posts []posting) node {
	var small []uint32
	var bms []*roaring.Bitmap
	for _, p := range posts {
		if p.bm != nil {
			bms = append(bms, p.bm)
		} else {
			small = append(small, p.docs...)
		}
	}
	if len(small) > 0 {
		bm := roaring.New()
		bm.AddMany(small)
		bms = append(bms, bm)
	}
	switch len(bms) {
	case 0:
		return noneNode()
	case 1:
		return &setNode{bm: bms[0]}
	}
	return &setNode{bm: roaring.FastOr(bms...)}
}

// phrase returns a check that a document's text holds the terms as
// adjacent terms of one value (the last one as a prefix when prefixLast).
func (c *compiler) phrase(pi *propertyIndex, terms []string, prefixLast bool) func(d uint32) bool {
	var buf []valueKey
	return func(d uint32) bool {
		if pi.nulls.Contains(d) {
			return false
		}
		if pi.column != nil {
			return hasPhrase(query.Analyze(pi.column.get(d).exact), terms, prefixLast)
		}
		buf = pi.listColumn.get(d, buf)
		for _, vk := range buf {
			if hasPhrase(query.Analyze(vk.exact), terms, prefixLast) {
				return true
			}
		}
		return false
	}
}

func hasPhrase(toks, terms []string, prefixLast bool) bool {
	n := len(terms)
outer:
	for i := 0; i+n <= len(toks); i++ {
		for j, t := range terms {
			if j == n-1 && prefixLast {
				if !strings.HasPrefix(toks[i+j], t) {
					continue outer
				}
			} else if toks[i+j] != t {
				continue outer
			}
		}
		return true
	}
	return false
}
