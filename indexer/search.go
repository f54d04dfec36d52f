package indexer

import (
	"fmt"
	"os"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/ontoindex/ontoindex/objects"
)

// Search fields. Every property with a search role has one field named
// after its apiName; text properties also have an exact keyword sub-field.
// NullsField holds the apiNames of the properties that are null in a
// document, so that isNull can be answered by the index.
const (
	// TextAnalyzer splits on whitespace and punctuation (Unicode word
	// boundaries) and lowercases; no stemming, no stop words.
	TextAnalyzer = "ontoindex_text"
	NullsField   = "__nulls"
	exactSuffix  = ".exact"
	sortSuffix   = ".sort"
)

// searchLayout versions the layout of search documents (fields, analyzers,
// doc values). It is part of the mapping hash of a checkpoint, so a
// release that changes the layout rebuilds every object type in full.
const searchLayout = 2

// mappingHash is the checkpoint's fingerprint of what decides the index.
func mappingHash(t *objects.Type) string {
	return fmt.Sprintf("%s/s%d", t.MappingHash(), searchLayout)
}

// Field is the search field of a property: analyzed terms for text, the
// value itself for the other roles. Empty for role none.
func Field(p objects.Property) string {
	if p.Search == objects.SearchNone {
		return ""
	}
	return p.APIName
}

// ExactField is the field that holds a property's exact values (keyword
// semantics, sortable): the sub-field for text, the field itself otherwise.
func ExactField(p objects.Property) string {
	switch p.Search {
	case objects.SearchNone:
		return ""
	case objects.SearchText:
		return p.APIName + exactSuffix
	}
	return p.APIName
}

// SortField is the field results are ordered by for a property: the exact
// keyword field for strings, uuids and times, whose text sorts like the
// value; for the other types a keyword field holding one order-preserving
// term per document (exact order for longs and decimals, and cheap to sort
// by, unlike the many prefix-coded terms of numeric and date fields).
// Empty for properties that cannot be sorted by (lists, role none).
func SortField(p objects.Property) string {
	if !p.Sortable() {
		return ""
	}
	if textSorted(p.Type) {
		return ExactField(p)
	}
	return p.APIName + sortSuffix
}

func textSorted(t objects.DataType) bool {
	switch t.Kind {
	case objects.KindString, objects.KindUUID, objects.KindTime:
		return true
	}
	return false
}

// sortKey is the document key carrying a property's sort term; apiNames
// cannot start with "__", so it never collides with a property.
func sortKey(p objects.Property) string { return "__sort_" + p.APIName }

// SortValue is the term a value takes in its property's SortField when
// that is not the exact field: base32hex of its order-preserving encoding.
func SortValue(v any) (string, error) {
	b, err := objects.AppendKey(nil, v)
	if err != nil {
		return "", err
	}
	return objects.DocID(b), nil
}

// newMapping builds the explicit search mapping of an object type: no
// dynamic fields, nothing stored (objects are read from the store), no
// _all field.
func newMapping(t *objects.Type) (mapping.IndexMapping, error) {
	im := bleve.NewIndexMapping()
	if err := im.AddCustomAnalyzer(TextAnalyzer, map[string]any{
		"type":          custom.Name,
		"tokenizer":     unicode.Name,
		"token_filters": []string{lowercase.Name},
	}); err != nil {
		return nil, err
	}
	im.IndexDynamic, im.StoreDynamic, im.DocValuesDynamic = false, false, false
	im.DefaultAnalyzer = TextAnalyzer
	doc := mapping.NewDocumentStaticMapping()
	exact := func(name string) *mapping.FieldMapping {
		fm := mapping.NewKeywordFieldMapping()
		fm.Name, fm.Analyzer, fm.Store, fm.IncludeInAll, fm.DocValues = name, keyword.Name, false, false, true
		return fm
	}
	for _, p := range t.Properties {
		var fms []*mapping.FieldMapping
		switch p.Search {
		case objects.SearchNone:
			continue
		case objects.SearchText:
			fm := mapping.NewTextFieldMapping()
			fm.Name, fm.Analyzer, fm.Store, fm.IncludeInAll, fm.IncludeTermVectors, fm.DocValues = p.APIName, TextAnalyzer, false, false, true, false
			fms = append(fms, fm, exact(p.APIName+exactSuffix))
		case objects.SearchKeyword:
			fms = append(fms, exact(p.APIName))
		// Numbers, dates and booleans sort by their sort field: no doc
		// values for the range terms.
		case objects.SearchNumeric:
			fm := mapping.NewNumericFieldMapping()
			fm.Name, fm.Store, fm.IncludeInAll, fm.DocValues = p.APIName, false, false, false
			fms = append(fms, fm)
		case objects.SearchDate:
			fm := mapping.NewDateTimeFieldMapping()
			fm.Name, fm.Store, fm.IncludeInAll, fm.DocValues = p.APIName, false, false, false
			fms = append(fms, fm)
		case objects.SearchBoolean:
			fm := mapping.NewBooleanFieldMapping()
			fm.Name, fm.Store, fm.IncludeInAll, fm.DocValues = p.APIName, false, false, false
			fms = append(fms, fm)
		default:
			return nil, fmt.Errorf("property %s: unknown search role %q", p.APIName, p.Search)
		}
		doc.AddFieldMappingsAt(p.APIName, fms...)
		if f := SortField(p); f != "" && f != ExactField(p) {
			doc.AddFieldMappingsAt(sortKey(p), exact(f))
		}
	}
	doc.AddFieldMappingsAt(NullsField, exact(NullsField))
	// bleve adds a composite _all field unless a disabled mapping says no.
	noAll := mapping.NewDocumentDisabledMapping()
	doc.AddSubDocumentMapping("_all", noAll)
	im.DefaultMapping = doc
	return im, nil
}

// searchDoc is the search document of an object.
func searchDoc(t *objects.Type, o *objects.Object) map[string]any {
	doc := make(map[string]any, len(t.Properties)+1)
	var nulls []string
	for i, p := range t.Properties {
		v := o.Values[i]
		if v == nil {
			nulls = append(nulls, p.APIName)
			continue
		}
		if p.Search == objects.SearchNone {
			continue
		}
		if list, ok := v.([]any); ok {
			// An empty list is a value (rendered []), not null.
			out := make([]any, 0, len(list))
			for _, e := range list {
				if e != nil {
					out = append(out, SearchValue(p, e))
				}
			}
			if len(out) > 0 {
				doc[p.APIName] = out
			}
			continue
		}
		doc[p.APIName] = SearchValue(p, v)
		if f := SortField(p); f != "" && f != ExactField(p) {
			if sv, err := SortValue(v); err == nil {
				doc[sortKey(p)] = sv
			}
		}
	}
	if len(nulls) > 0 {
		doc[NullsField] = nulls
	}
	return doc
}

// SearchValue is the form a value takes in a property's search field.
// Numbers become float64 (longs beyond 2^53 and decimals are approximated
// in search; the store keeps them exact), dates become time.Time, and
// everything under a keyword or text role becomes its text.
func SearchValue(p objects.Property, v any) any {
	switch p.Search {
	case objects.SearchNumeric:
		switch x := v.(type) {
		case int64:
			return float64(x)
		case float64:
			return x
		case objects.Decimal:
			return x.Float64()
		}
	case objects.SearchDate:
		if d, ok := v.(objects.Date); ok {
			return d.Time()
		}
		return v // time.Time
	case objects.SearchBoolean:
		if b, ok := v.(bool); ok {
			return b
		}
	}
	return objects.TextOf(v)
}

// openSearchIndex opens the search index of a generation, creating it when
// absent.
func openSearchIndex(dir string, t *objects.Type) (bleve.Index, error) {
	if _, err := os.Stat(dir); err == nil {
		idx, err := bleve.Open(dir)
		if err != nil {
			return nil, fmt.Errorf("open search index %s: %w", dir, err)
		}
		return idx, nil
	}
	m, err := newMapping(t)
	if err != nil {
		return nil, err
	}
	idx, err := bleve.New(dir, m)
	if err != nil {
		return nil, fmt.Errorf("create search index %s: %w", dir, err)
	}
	return idx, nil
}
