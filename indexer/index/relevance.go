package index

import (
	"fmt"
	"math"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/ontoindex/ontoindex/indexer/query"
)

// Relevance is BM25 over the text terms a filter touches. A document's
// score is the sum, over the filter's distinct terms, of the term's BM25
// in its property; a prefix or fuzzy term counts once, as the best of its
// expansions the document holds. docs/api.md states the formula.

// BM25's parameters, Lucene's defaults.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// bm25 is one term's score in a document: idf of the term, its
// frequency in the document, the document's length and the average.
func bm25(idf, tf, length, average float64) float64 {
	return idf * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*length/average))
}

// idf is BM25's inverse document frequency (Lucene's, never negative).
func idf(docs, df float64) float64 {
	return math.Log(1 + (docs-df+0.5)/(df+0.5))
}

// scoreSlot is one term of the filter: the index terms it stands for
// (one, or the expansions of a prefix or fuzzy term) with their idf.
type scoreSlot struct {
	terms []string
	idf   []float64
}

// scoreField is the slots of one text property.
type scoreField struct {
	pi      *propertyIndex
	average float64
	slots   []scoreSlot
	want    map[string]bool // every term of the slots
	// memo holds the score of values met before: many documents share a
	// value (names, titles), and analysis is most of the cost.
	memo map[string]float64
}

// maxMemo bounds the values a field's memo keeps for one search.
const maxMemo = 1 << 16

// scorer scores documents for a relevance search.
type scorer struct {
	fields []*scoreField
}

// newScorer collects the text terms of f (not those under a not) and
// their statistics.
func (c *compiler) newScorer(f *query.Filter) (*scorer, error) {
	sc := &scorer{}
	byProperty := map[string]*scoreField{}
	seen := map[string]bool{}
	// add records a slot: terms are the index terms it stands for.
	add := func(pi *propertyIndex, key string, terms []string) {
		if seen[pi.property.APIName+"\x00"+key] || len(terms) == 0 {
			return
		}
		seen[pi.property.APIName+"\x00"+key] = true
		sf := byProperty[pi.property.APIName]
		if sf == nil {
			docs := float64(roaring.AndNot(c.s.alive, pi.nulls).GetCardinality())
			sf = &scoreField{pi: pi, want: map[string]bool{}, memo: map[string]float64{}, average: float64(c.s.textTokens(pi)) / math.Max(docs, 1)}
			byProperty[pi.property.APIName] = sf
			sc.fields = append(sc.fields, sf)
		}
		docs := float64(roaring.AndNot(c.s.alive, pi.nulls).GetCardinality())
		slot := scoreSlot{}
		for _, t := range terms {
			p, ok := pi.text.get(t)
			if !ok {
				continue
			}
			slot.terms = append(slot.terms, t)
			slot.idf = append(slot.idf, idf(docs, float64(p.card())))
			sf.want[t] = true
		}
		if len(slot.terms) > 0 {
			sf.slots = append(sf.slots, slot)
		}
	}
	exact := func(pi *propertyIndex, t string) { add(pi, "="+t, []string{t}) }
	prefix := func(pi *propertyIndex, pfx string) {
		var ts []string
		pi.text.prefix(pfx, func(t string, _ posting) bool { ts = append(ts, t); return true })
		add(pi, "^"+pfx, ts)
	}
	fuzzy := func(pi *propertyIndex, t string, edits int) error {
		if edits == 0 {
			exact(pi, t)
			return nil
		}
		a, _, err := c.fuzzyTerm(pi, f, t, edits)
		if err != nil {
			return err
		}
		var ts []string
		pi.text.walk(a, func(t string, _ posting) bool { ts = append(ts, t); return true })
		add(pi, fmt.Sprintf("~%d%s", edits, t), ts)
		return nil
	}
	var rule func(pi *propertyIndex, r *query.Rule) error
	rule = func(pi *propertyIndex, r *query.Rule) error {
		terms := query.Analyze(r.Query)
		switch r.Kind {
		case query.RuleMatch:
			for _, t := range terms {
				exact(pi, t)
			}
		case query.RulePrefix:
			for _, t := range terms[:len(terms)-1] {
				exact(pi, t)
			}
			prefix(pi, terms[len(terms)-1])
		case query.RuleFuzzy:
			edits := r.Fuzziness
			if edits < 0 {
				edits = query.Fuzziness(terms[0])
			}
			return fuzzy(pi, terms[0], edits)
		}
		for _, k := range r.Rules {
			if err := rule(pi, k); err != nil {
				return err
			}
		}
		return nil
	}
	var walk func(f *query.Filter) error
	walk = func(f *query.Filter) error {
		if f == nil {
			return nil
		}
		switch f.Op {
		case query.OpNot:
			return nil // a term a document must not hold does not rank it
		case query.OpAnd, query.OpOr:
			for _, k := range f.Kids {
				if err := walk(k); err != nil {
					return err
				}
			}
			return nil
		}
		pi := c.s.property(f.Property)
		if pi == nil || pi.text == nil {
			return nil
		}
		terms := query.Analyze(f.Text)
		switch f.Op {
		case query.OpAllTerms, query.OpAnyTerm:
			for _, t := range terms {
				if !f.Fuzzy {
					exact(pi, t)
				} else if err := fuzzy(pi, t, query.Fuzziness(t)); err != nil {
					return err
				}
			}
		case query.OpPhrase:
			for _, t := range terms {
				exact(pi, t)
			}
		case query.OpPhrasePrefix, query.OpStartsWith:
			if len(terms) > 0 {
				for _, t := range terms[:len(terms)-1] {
					exact(pi, t)
				}
				prefix(pi, terms[len(terms)-1])
			}
		case query.OpInterval:
			return rule(pi, f.Interval)
		}
		return nil
	}
	if err := walk(f); err != nil {
		return nil, err
	}
	return sc, nil
}

// score is the BM25 score of document d.
func (sc *scorer) score(d uint32, buf *[]valueKey) float64 {
	total := 0.0
	for _, sf := range sc.fields {
		pi := sf.pi
		if pi.nulls.Contains(d) {
			continue
		}
		if pi.column != nil {
			v := pi.column.get(d).exact
			s, ok := sf.memo[v]
			if !ok {
				s = sf.scoreTerms(query.Analyze(v))
				if len(sf.memo) < maxMemo {
					sf.memo[v] = s
				}
			}
			total += s
			continue
		}
		var toks []string
		*buf = pi.listColumn.get(d, *buf)
		for _, vk := range *buf {
			toks = append(toks, query.Analyze(vk.exact)...)
		}
		total += sf.scoreTerms(toks)
	}
	return total
}

// scoreTerms is the score of the field for a document of these terms.
func (sf *scoreField) scoreTerms(toks []string) float64 {
	var tf map[string]float64
	for _, t := range toks {
		if sf.want[t] {
			if tf == nil {
				tf = map[string]float64{}
			}
			tf[t]++
		}
	}
	if tf == nil {
		return 0
	}
	length := float64(len(toks))
	total := 0.0
	for _, slot := range sf.slots {
		best := 0.0
		for i, t := range slot.terms {
			if n := tf[t]; n > 0 {
				best = math.Max(best, bm25(slot.idf[i], n, length, sf.average))
			}
		}
		total += best
	}
	return total
}
