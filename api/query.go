package api

import (
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/objects"
)

// compiler turns a cond tree into a bleve query over one view's index.
//
// How each query type maps onto the search fields (indexer/search.go):
//   - eq, in, contains: the exact field (text: <p>.exact, keyword: <p>) as
//     one term; numeric and date properties as a closed range [v, v];
//     booleans as a boolean term. On arrays, any element matches.
//   - gt, gte, lt, lte: numeric and date ranges; on text and keyword
//     properties a term range over the exact values (byte order).
//   - isNull: the __nulls field, which lists the null properties of each
//     object (works for every property, searchable or not).
//   - containsAllTerms, containsAnyTerm: the analyzed terms (Unicode word
//     boundaries, lowercase: whitespace and punctuation split terms),
//     fuzzy with edit distance 0 (1-2 letters), 1 (3-5) or 2 (longer).
//   - containsAllTermsInOrder: a phrase of the terms.
//   - containsAllTermsInOrderPrefixLastTerm and startsWith (its alias in
//     Foundry): a phrase whose last term is a prefix, expanded over the
//     index's terms; on keyword properties a prefix of the whole value.
//   - wildcard, regex: the whole exact value (case-sensitive), anchored;
//     regex syntax is RE2's.
type compiler struct {
	idx      bleve.Index
	maxTerms int
}

func (c *compiler) compile(n *cond) (query.Query, error) {
	if n == nil {
		return query.NewMatchAllQuery(), nil
	}
	switch n.op {
	case opMatchAll:
		return query.NewMatchAllQuery(), nil
	case opMatchNone:
		return query.NewMatchNoneQuery(), nil
	case opDocIDs:
		ids := make([]string, len(n.values))
		for i, v := range n.values {
			ids[i] = v.(string)
		}
		return query.NewDocIDQuery(ids), nil
	case opAnd:
		if len(n.kids) == 0 {
			return query.NewMatchAllQuery(), nil
		}
		qs, err := c.all(n.kids)
		if err != nil {
			return nil, err
		}
		return query.NewConjunctionQuery(qs), nil
	case opOr:
		if len(n.kids) == 0 {
			return query.NewMatchNoneQuery(), nil
		}
		qs, err := c.all(n.kids)
		if err != nil {
			return nil, err
		}
		return query.NewDisjunctionQuery(qs), nil
	case opNot:
		q, err := c.compile(n.kids[0])
		if err != nil {
			return nil, err
		}
		return not(q), nil
	case opIsNull:
		q := query.NewTermQuery(n.prop.APIName)
		q.SetField(indexer.NullsField)
		if n.value.(bool) {
			return q, nil
		}
		return not(q), nil
	case opEq, opContains:
		return eqQuery(n.prop, n.value), nil
	case opIn:
		if len(n.values) == 0 {
			return query.NewMatchAllQuery(), nil
		}
		qs := make([]query.Query, len(n.values))
		for i, v := range n.values {
			qs[i] = eqQuery(n.prop, v)
		}
		return query.NewDisjunctionQuery(qs), nil
	case opGt, opGte, opLt, opLte:
		return rangeQuery(n.prop, n.op, n.value), nil
	case opWildcard, opRegex:
		pattern := n.text
		if n.op == opWildcard {
			pattern = wildcardRegexp(n.text)
		}
		q := query.NewRegexpQuery(pattern)
		q.SetField(indexer.ExactField(n.prop))
		return q, nil
	case opStartsWith, opInOrderPrefix:
		if n.prop.Search == objects.SearchKeyword {
			q := query.NewPrefixQuery(n.text)
			q.SetField(indexer.Field(n.prop))
			return q, nil
		}
		return c.prefixPhrase(n)
	case opAllTerms, opAnyTerm, opInOrder:
		return c.terms(n)
	}
	return nil, malformed(n.op, "unsupported query type")
}

func (c *compiler) all(ns []*cond) ([]query.Query, error) {
	qs := make([]query.Query, len(ns))
	for i, k := range ns {
		q, err := c.compile(k)
		if err != nil {
			return nil, err
		}
		qs[i] = q
	}
	return qs, nil
}

func not(q query.Query) query.Query {
	return query.NewBooleanQuery([]query.Query{query.NewMatchAllQuery()}, nil, []query.Query{q})
}

// eqQuery matches objects whose property (or an element of it) equals v.
func eqQuery(p objects.Property, v any) query.Query {
	sv := indexer.SearchValue(p, v)
	switch p.Search {
	case objects.SearchNumeric:
		f := sv.(float64)
		q := query.NewNumericRangeInclusiveQuery(&f, &f, ptr(true), ptr(true))
		q.SetField(indexer.Field(p))
		return q
	case objects.SearchDate:
		t := sv.(time.Time)
		q := query.NewDateRangeInclusiveQuery(t, t, ptr(true), ptr(true))
		q.SetField(indexer.Field(p))
		return q
	case objects.SearchBoolean:
		q := query.NewBoolFieldQuery(sv.(bool))
		q.SetField(indexer.Field(p))
		return q
	}
	q := query.NewTermQuery(sv.(string))
	q.SetField(indexer.ExactField(p))
	return q
}

func rangeQuery(p objects.Property, op string, v any) query.Query {
	sv := indexer.SearchValue(p, v)
	lower := op == opGt || op == opGte
	incl := ptr(op == opGte || op == opLte)
	switch p.Search {
	case objects.SearchNumeric:
		f := sv.(float64)
		var q *query.NumericRangeQuery
		if lower {
			q = query.NewNumericRangeInclusiveQuery(&f, nil, incl, nil)
		} else {
			q = query.NewNumericRangeInclusiveQuery(nil, &f, nil, incl)
		}
		q.SetField(indexer.Field(p))
		return q
	case objects.SearchDate:
		t := sv.(time.Time)
		var q *query.DateRangeQuery
		if lower {
			q = query.NewDateRangeInclusiveQuery(t, time.Time{}, incl, nil)
		} else {
			q = query.NewDateRangeInclusiveQuery(time.Time{}, t, nil, incl)
		}
		q.SetField(indexer.Field(p))
		return q
	}
	s := sv.(string)
	var q *query.TermRangeQuery
	if lower {
		q = query.NewTermRangeInclusiveQuery(s, "", incl, nil)
		if s == "" && !*incl {
			// "" is an open bound to bleve; above "" is every non-empty value.
			q = query.NewTermRangeInclusiveQuery("\x00", "", ptr(true), nil)
		}
	} else {
		q = query.NewTermRangeInclusiveQuery("", s, nil, incl)
		if s == "" {
			if !*incl {
				return query.NewMatchNoneQuery()
			}
			eq := query.NewTermQuery("")
			eq.SetField(indexer.ExactField(p))
			return eq
		}
	}
	q.SetField(indexer.ExactField(p))
	return q
}

func ptr[T any](v T) *T { return &v }

// analyze splits text into terms the way the index analyzes text fields.
func (c *compiler) analyze(text string) ([]string, error) {
	a := c.idx.Mapping().AnalyzerNamed(indexer.TextAnalyzer)
	if a == nil {
		return nil, fmt.Errorf("analyzer %s is missing from the index mapping", indexer.TextAnalyzer)
	}
	var terms []string
	for _, tok := range a.Analyze([]byte(text)) {
		terms = append(terms, string(tok.Term))
	}
	return terms, nil
}

func noTerms(n *cond) *Error {
	return apiErr("InvalidPropertyFilterValue", map[string]any{"property": n.prop.APIName, "propertyFilter": n.op,
		"propertyFilterValue": truncate(n.text), "expectedType": "text with at least one word"})
}

// terms compiles containsAllTerms, containsAnyTerm and
// containsAllTermsInOrder.
func (c *compiler) terms(n *cond) (query.Query, error) {
	terms, err := c.analyze(n.text)
	if err != nil {
		return nil, err
	}
	if len(terms) == 0 {
		return nil, noTerms(n)
	}
	field := indexer.Field(n.prop)
	if n.op == opInOrder && len(terms) > 1 {
		return query.NewPhraseQuery(terms, field), nil
	}
	qs := make([]query.Query, len(terms))
	for i, t := range terms {
		qs[i] = termQuery(field, t, n.fuzzy)
	}
	if len(qs) == 1 {
		return qs[0], nil
	}
	if n.op == opAnyTerm {
		return query.NewDisjunctionQuery(qs), nil
	}
	return query.NewConjunctionQuery(qs), nil
}

// termQuery matches one analyzed term, optionally fuzzily.
func termQuery(field, term string, fuzzy bool) query.Query {
	if fuzzy {
		if d := fuzziness(term); d > 0 {
			q := query.NewFuzzyQuery(term)
			q.SetFuzziness(d)
			q.SetField(field)
			return q
		}
	}
	q := query.NewTermQuery(term)
	q.SetField(field)
	return q
}

// fuzziness is the edit distance of a fuzzy term: Lucene's AUTO.
func fuzziness(term string) int {
	switch n := utf8.RuneCountInString(term); {
	case n <= 2:
		return 0
	case n <= 5:
		return 1
	}
	return 2
}

// prefixPhrase compiles a phrase whose last term is a prefix: the prefix
// is expanded over the terms of the field, at most maxTerms of them.
func (c *compiler) prefixPhrase(n *cond) (query.Query, error) {
	terms, err := c.analyze(n.text)
	if err != nil {
		return nil, err
	}
	if len(terms) == 0 {
		return nil, noTerms(n)
	}
	field := indexer.Field(n.prop)
	last := terms[len(terms)-1]
	if len(terms) == 1 {
		q := query.NewPrefixQuery(last)
		q.SetField(field)
		return q, nil
	}
	dict, err := c.idx.FieldDictPrefix(field, []byte(last))
	if err != nil {
		return nil, fmt.Errorf("read terms of %s: %w", field, err)
	}
	defer dict.Close()
	var expanded []string
	for {
		e, err := dict.Next()
		if err != nil {
			return nil, fmt.Errorf("read terms of %s: %w", field, err)
		}
		if e == nil {
			break
		}
		if len(expanded) == c.maxTerms {
			return nil, apiErr("QueryTooExpensive", map[string]any{"property": n.prop.APIName, "propertyFilter": n.op,
				"reason": fmt.Sprintf("the last term %q is the prefix of more than %d terms; give a longer prefix", last, c.maxTerms)})
		}
		expanded = append(expanded, e.Term)
	}
	if len(expanded) == 0 {
		return query.NewMatchNoneQuery(), nil
	}
	phrase := make([][]string, len(terms))
	for i, t := range terms[:len(terms)-1] {
		phrase[i] = []string{t}
	}
	phrase[len(terms)-1] = expanded
	return query.NewMultiPhraseQuery(phrase, field), nil
}
