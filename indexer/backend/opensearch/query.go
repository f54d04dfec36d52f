package opensearch

import (
	"encoding/json"
	"fmt"
	"math/big"
	"time"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// maxTermsPerQuery is how many values one terms query holds: OpenSearch
// refuses more than index.max_terms_count (65536 by default); a longer
// list becomes a should of several.
const maxTermsPerQuery = 65536

// translator turns the engine's filters into OpenSearch query DSL over
// the documents of one object type (doc.go says what each operator
// becomes).
type translator struct {
	typ *objects.Type
}

func matchAll() map[string]any  { return map[string]any{"match_all": map[string]any{}} }
func matchNone() map[string]any { return map[string]any{"match_none": map[string]any{}} }

func boolQuery(occur string, kids []any) map[string]any {
	b := map[string]any{occur: kids}
	if occur == "should" {
		b["minimum_should_match"] = 1
	}
	return map[string]any{"bool": b}
}

// filter is the query of f.
func (tr translator) filter(f *query.Filter) (map[string]any, error) {
	if f.MatchesAll() {
		return matchAll(), nil
	}
	switch f.Op {
	case query.OpNone:
		return matchNone(), nil
	case query.OpAnd, query.OpOr:
		if len(f.Kids) == 0 { // an OR without kids (an AND without is every object)
			return matchNone(), nil
		}
		kids := make([]any, len(f.Kids))
		for i, k := range f.Kids {
			q, err := tr.filter(k)
			if err != nil {
				return nil, err
			}
			kids[i] = q
		}
		if f.Op == query.OpAnd {
			return boolQuery("filter", kids), nil
		}
		return boolQuery("should", kids), nil
	case query.OpNot:
		if len(f.Kids) != 1 {
			return nil, fmt.Errorf("not needs one filter, has %d", len(f.Kids))
		}
		q, err := tr.filter(f.Kids[0])
		if err != nil {
			return nil, err
		}
		return boolQuery("must_not", []any{q}), nil
	case query.OpKeys:
		ids := make([]string, len(f.Keys))
		for i, k := range f.Keys {
			ids[i] = objects.DocID(k)
		}
		return termsOf(keyField, ids), nil
	}
	p, ok := tr.property(f.Property)
	if !ok {
		return nil, fmt.Errorf("object type %s has no property %q", tr.typ.APIName, f.Property)
	}
	if f.Op == query.OpIsNull {
		null, _ := f.Value.(bool)
		q := map[string]any{"term": map[string]any{nullsField: p.APIName}}
		if null {
			return q, nil
		}
		return boolQuery("must_not", []any{q}), nil
	}
	if f.Op == query.OpGeo { // geo values are indexed whatever their role
		return tr.geo(p, f)
	}
	if !p.Searchable() || p.Type.Kind == objects.KindStruct || p.Type.Primitive().Kind == objects.KindVector {
		return nil, fmt.Errorf("property %s is not searchable", p.APIName)
	}
	switch f.Op {
	case query.OpEq, query.OpContains:
		v, err := tr.value(p, f.Value)
		if err != nil {
			return nil, err
		}
		return map[string]any{"term": map[string]any{exactField(p): v}}, nil
	case query.OpIn:
		values := f.InValues()
		if len(values) == 0 {
			return matchAll(), nil
		}
		vs := make([]any, len(values))
		for i, x := range values {
			v, err := tr.value(p, x)
			if err != nil {
				return nil, err
			}
			vs[i] = v
		}
		return termsOf(exactField(p), vs), nil
	case query.OpGt, query.OpGte, query.OpLt, query.OpLte:
		v, err := tr.value(p, f.Value)
		if err != nil {
			return nil, err
		}
		return map[string]any{"range": map[string]any{exactField(p): map[string]any{f.Op.String(): v}}}, nil
	case query.OpAllTerms, query.OpAnyTerm, query.OpPhrase, query.OpPhrasePrefix:
		return tr.text(p, f)
	case query.OpStartsWith:
		if p.Search == objects.SearchText {
			return tr.text(p, f)
		}
		if p.Search != objects.SearchKeyword {
			return nil, unsupported(p, f.Op)
		}
		return map[string]any{"prefix": map[string]any{textField(p): map[string]any{"value": f.Text}}}, nil
	case query.OpWildcard, query.OpRegex:
		return tr.pattern(p, f)
	case query.OpInterval:
		return tr.interval(p, f)
	}
	return nil, unsupported(p, f.Op)
}

func unsupported(p objects.Property, op query.Op) error {
	return fmt.Errorf("property %s: %s is not supported by the OpenSearch backend", p.APIName, op)
}

// termsOf is a terms query of field, split in queries of at most
// maxTermsPerQuery values.
func termsOf[T any](field string, vs []T) map[string]any {
	if len(vs) <= maxTermsPerQuery {
		return map[string]any{"terms": map[string]any{field: vs}}
	}
	var kids []any
	for len(vs) > 0 {
		n := min(len(vs), maxTermsPerQuery)
		kids = append(kids, map[string]any{"terms": map[string]any{field: vs[:n]}})
		vs = vs[n:]
	}
	return boolQuery("should", kids)
}

// property is the property of an apiName, struct fields included.
func (tr translator) property(apiName string) (objects.Property, bool) {
	i := tr.typ.PropertyIndex(apiName)
	if i < 0 {
		return objects.Property{}, false
	}
	return tr.typ.Properties[i], true
}

// path is the document field of a property: its apiName, or for a struct
// field the field inside its struct's object.
func path(p objects.Property) string {
	if p.Hidden() {
		return p.Struct + "." + p.Field
	}
	return p.APIName
}

// exactField is the field that holds a property's exact values, for
// equality, ranges and order: a text property's keyword sub-field.
func exactField(p objects.Property) string {
	if p.Search == objects.SearchText {
		return path(p) + "." + textKeywordField
	}
	return path(p)
}

// textField is the field whose values are a keyword property's text, for
// startsWith and patterns: the text sub-field of a number, date or
// boolean (keywordAsText), else the exact field.
func textField(p objects.Property) string {
	if p.Search == objects.SearchKeyword && keywordAsText(p.Type.Primitive().Kind) {
		return path(p) + "." + keywordTextField
	}
	return exactField(p)
}

// value is a filter's value as the document holds it (the API's JSON),
// refused when its Go type is not the one the property's kind holds, as
// the embedded engine refuses it.
func (tr translator) value(p objects.Property, v any) (any, error) {
	t := p.Type.Primitive()
	ok := false
	switch v.(type) {
	case bool:
		ok = t.Kind == objects.KindBoolean
	case int64:
		ok = t.Kind == objects.KindInteger || t.Kind == objects.KindLong
	case float64:
		ok = t.Kind == objects.KindFloat || t.Kind == objects.KindDouble
	case objects.Date:
		ok = t.Kind == objects.KindDate
	case objects.Time:
		ok = t.Kind == objects.KindTime
	case time.Time:
		ok = t.Kind == objects.KindTimestamp || t.Kind == objects.KindTimestampTZ
	case string:
		ok = t.Kind == objects.KindString
	case objects.UUID:
		ok = t.Kind == objects.KindUUID
	case objects.Decimal:
		ok = t.Kind == objects.KindDecimal
	case *big.Int:
		ok = false
	}
	if !ok {
		return nil, fmt.Errorf("property %s: a %T value does not compare with a %s property", p.APIName, v, t.Kind)
	}
	if j := objects.JSONValue(t, v); j != json.Number("-0") {
		return j, nil
	}
	return json.Number("-0.0"), nil // as the document holds it (appendJSON)
}
