package index

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/internal/spelling"
	"github.com/ontoindex/ontoindex/objects"
)

// The oracle evaluates queries by brute force over objects, from the
// semantics package query documents, without any index structure.

// oracleCompare orders two non-null values of one property: strings by
// bytes, the rest by their objects.AppendKey encoding.
func oracleCompare(a, b any) int {
	if x, ok := a.(string); ok {
		return strings.Compare(x, b.(string))
	}
	ka, _ := objects.AppendKey(nil, a)
	kb, _ := objects.AppendKey(nil, b)
	return bytes.Compare(ka, kb)
}

// elements returns the non-null values a filter looks at.
func elements(v any) []any {
	if v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		return []any{v}
	}
	var out []any
	for _, e := range list {
		if e != nil {
			out = append(out, e)
		}
	}
	return out
}

func oracleText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return objects.TextOf(v)
}

type oracle struct {
	t *objects.Type
}

func (or *oracle) match(f *query.Filter, o *objects.Object, key []byte) bool {
	if f.MatchesAll() {
		return true
	}
	switch f.Op {
	case query.OpNone:
		return false
	case query.OpAnd:
		for _, k := range f.Kids {
			if !or.match(k, o, key) {
				return false
			}
		}
		return true
	case query.OpOr:
		for _, k := range f.Kids {
			if or.match(k, o, key) {
				return true
			}
		}
		return false
	case query.OpNot:
		return !or.match(f.Kids[0], o, key)
	case query.OpKeys:
		return slices.ContainsFunc(f.Keys, func(k []byte) bool { return bytes.Equal(k, key) })
	}
	i := or.t.PropertyIndex(f.Property)
	p := or.t.Properties[i]
	v := o.Values[i]
	if f.Op == query.OpIsNull {
		return (v == nil) == f.Value.(bool)
	}
	some := func(pred func(e any) bool) bool { return slices.ContainsFunc(elements(v), pred) }
	switch f.Op {
	case query.OpEq, query.OpContains:
		return some(func(e any) bool { return oracleCompare(e, f.Value) == 0 })
	case query.OpIn:
		values := f.InValues()
		if len(values) == 0 {
			return true
		}
		return some(func(e any) bool {
			return slices.ContainsFunc(values, func(w any) bool { return oracleCompare(e, w) == 0 })
		})
	case query.OpGt:
		return some(func(e any) bool { return oracleCompare(e, f.Value) > 0 })
	case query.OpGte:
		return some(func(e any) bool { return oracleCompare(e, f.Value) >= 0 })
	case query.OpLt:
		return some(func(e any) bool { return oracleCompare(e, f.Value) < 0 })
	case query.OpLte:
		return some(func(e any) bool { return oracleCompare(e, f.Value) <= 0 })
	case query.OpWildcard, query.OpRegex:
		pat := f.Text
		if f.Op == query.OpWildcard {
			pat = query.WildcardRegexp(pat)
		}
		re := regexp.MustCompile(`^(?:` + pat + `)$`)
		return some(func(e any) bool { return re.MatchString(oracleText(e)) })
	case query.OpInterval:
		return some(func(e any) bool { return len(oracleIntervals(f.Interval, query.Analyze(e.(string)))) > 0 })
	case query.OpStartsWith:
		if p.Search != objects.SearchText {
			return some(func(e any) bool { return strings.HasPrefix(oracleText(e), f.Text) })
		}
	}
	terms := query.Analyze(f.Text)
	var values [][]string
	for _, e := range elements(v) {
		values = append(values, query.Analyze(e.(string)))
	}
	has := func(term string, fuzzy bool) bool {
		for _, toks := range values {
			for _, tok := range toks {
				if tok == term || fuzzy && utf8.ValidString(tok) && utf8.ValidString(term) && spelling.Distance(tok, term) <= query.Fuzziness(term) {
					return true
				}
			}
		}
		return false
	}
	switch f.Op {
	case query.OpAllTerms:
		for _, t := range terms {
			if !has(t, f.Fuzzy) {
				return false
			}
		}
		return true
	case query.OpAnyTerm:
		for _, t := range terms {
			if has(t, f.Fuzzy) {
				return true
			}
		}
		return false
	}
	prefix := f.Op != query.OpPhrase
	for _, toks := range values {
		for s := 0; s+len(terms) <= len(toks); s++ {
			ok := true
			for j, t := range terms {
				if j == len(terms)-1 && prefix {
					ok = ok && strings.HasPrefix(toks[s+j], t)
				} else {
					ok = ok && toks[s+j] == t
				}
			}
			if ok {
				return true
			}
		}
	}
	return false
}

// sorted returns the matching documents in search order.
func (or *oracle) sorted(want state, keys map[uint32][]byte, f *query.Filter, sorts []query.Sort) []uint32 {
	var docs []uint32
	for d, o := range want {
		if or.match(f, o, keys[d]) {
			docs = append(docs, d)
		}
	}
	slices.SortFunc(docs, func(a, b uint32) int {
		for _, s := range sorts {
			i := or.t.PropertyIndex(s.Property)
			va, vb := want[a].Values[i], want[b].Values[i]
			switch {
			case va == nil && vb == nil:
				continue
			case va == nil:
				return 1
			case vb == nil:
				return -1
			}
			c := oracleCompare(va, vb)
			if s.Desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return bytes.Compare(keys[a], keys[b])
	})
	return docs
}
