package opensearch

import (
	"fmt"

	"github.com/ontoindex/ontoindex/objects"
)

// Document fields beside the properties.
const (
	// keyField holds the document id (objects.DocID of the primary key)
	// as a keyword, for the primary-key tie-break of sorted reads.
	keyField = "__key"
	// nullsField lists the apiNames of the properties an object holds no
	// value for (struct fields among them): a null check is a term of it.
	// OpenSearch's exists cannot be one: an empty list has no value for
	// it, yet is not null, and a property kept in _source only has no
	// field to ask.
	nullsField = "__nulls"
	// textAnalyzer analyzes text properties as query.Analyze does
	// (textAnalysis): text queries send the terms query.Analyze makes.
	textAnalyzer = "ontoindex_text"
	// presentField is, inside a struct property's object, the struct's
	// presence. A field apiName cannot start with $, so it meets none.
	presentField = "$present"
	// textKeywordField is the exact sub-field of a text property, and
	// textIgnoreAbove bounds it: Lucene refuses a term above 32766
	// bytes, which 8191 characters of any script stay under.
	textKeywordField = "keyword"
	textIgnoreAbove  = 8191
	// decimalExactField is the keyword sub-field of a decimal property
	// holding its exact text.
	decimalExactField = "exact"
	// keywordTextField is the text sub-field of a keyword property of a
	// number, date or boolean kind.
	keywordTextField = "text"
)

// Mapping is the index mapping of an object type: strict (a field the
// mapping does not name is refused, never guessed), a field per property
// and the key field (doc.go has the table).
func Mapping(t *objects.Type) map[string]any {
	props := map[string]any{keyField: map[string]any{"type": "keyword"}, nullsField: map[string]any{"type": "keyword"}}
	for i, p := range t.Properties {
		if p.Hidden() {
			continue // inside its struct's object, below
		}
		if p.Type.Kind != objects.KindStruct {
			props[p.APIName] = FieldMapping(p)
			continue
		}
		fields := map[string]any{presentField: map[string]any{"type": "boolean"}}
		for _, j := range t.StructFields(i) {
			f := t.Properties[j]
			fields[f.Field] = FieldMapping(f)
		}
		props[p.APIName] = map[string]any{"type": "object", "dynamic": "strict", "properties": fields}
	}
	return map[string]any{"dynamic": "strict", "properties": props}
}

// notIndexed keeps a value in _source only: a disabled object field
// takes any JSON value and parses none of it.
func notIndexed() map[string]any { return map[string]any{"type": "object", "enabled": false} }

// FieldMapping is the mapping of one property that is not a struct (a
// struct's fields are mapped each by this).
func FieldMapping(p objects.Property) map[string]any {
	t := p.Type.Primitive()
	switch {
	case t.Kind == objects.KindGeoPoint || t.Kind == objects.KindGeoShape:
		// Indexed whatever the role, as the engine indexes them (a
		// geo_shape needs the cluster's geo module).
		return kindMapping(t.Kind)
	case p.Search == objects.SearchNone || t.Kind == objects.KindVector:
		return notIndexed()
	case p.Search == objects.SearchKeyword:
		if !keywordAsText(t.Kind) {
			return map[string]any{"type": "keyword"}
		}
		// Typed, so that ranges and order compare values as the engine
		// does, with the text the engine's startsWith, wildcard and regex
		// match in a keyword sub-field.
		m := kindMapping(t.Kind)
		fields, _ := m["fields"].(map[string]any)
		if fields == nil {
			fields = map[string]any{}
			m["fields"] = fields
		}
		fields[keywordTextField] = map[string]any{"type": "keyword"}
		return m
	case p.Search == objects.SearchText:
		return map[string]any{"type": "text", "analyzer": textAnalyzer, "fields": map[string]any{
			textKeywordField: map[string]any{"type": "keyword", "ignore_above": textIgnoreAbove},
		}}
	}
	return kindMapping(t.Kind)
}

// keywordAsText reports whether a keyword property of kind k is mapped by
// its kind with a text sub-field (numbers, dates, booleans), rather than
// as a keyword (strings, and uuids and times, whose text sorts like their
// value).
func keywordAsText(k objects.Kind) bool {
	switch k {
	case objects.KindBoolean, objects.KindInteger, objects.KindLong, objects.KindFloat, objects.KindDouble,
		objects.KindDecimal, objects.KindDate, objects.KindTimestamp, objects.KindTimestampTZ:
		return true
	}
	return false
}

// kindMapping is the mapping of a value of kind k.
func kindMapping(k objects.Kind) map[string]any {
	switch k {
	case objects.KindBoolean:
		return map[string]any{"type": "boolean"}
	case objects.KindInteger:
		return map[string]any{"type": "integer"}
	case objects.KindLong:
		return map[string]any{"type": "long"}
	case objects.KindFloat:
		return map[string]any{"type": "float"}
	case objects.KindDouble:
		return map[string]any{"type": "double"}
	case objects.KindDecimal:
		return map[string]any{"type": "double", "fields": map[string]any{
			decimalExactField: map[string]any{"type": "keyword"},
		}}
	case objects.KindString, objects.KindUUID, objects.KindTime:
		return map[string]any{"type": "keyword"}
	case objects.KindDate:
		return map[string]any{"type": "date", "format": "strict_date"}
	case objects.KindTimestamp, objects.KindTimestampTZ:
		return map[string]any{"type": "date", "format": "strict_date_optional_time"}
	case objects.KindGeoPoint:
		return map[string]any{"type": "geo_point"}
	case objects.KindGeoShape:
		return map[string]any{"type": "geo_shape"}
	}
	return notIndexed()
}

// IndexBody is the body that creates a generation's index: the type's
// mapping and the settings of an index nobody reads yet.
func IndexBody(t *objects.Type, o Options) map[string]any {
	return map[string]any{
		"settings": map[string]any{"index": map[string]any{
			"number_of_shards":   o.Shards,
			"number_of_replicas": o.Replicas,
			"gc_deletes":         fmt.Sprintf("%dms", o.GCDeletes.Milliseconds()),
			// Nobody reads a generation before Publish, which refreshes
			// it and sets the default back: a full build's bulk writes
			// make no segments for readers that are not there.
			"refresh_interval": "-1",
			"analysis":         textAnalysis(),
		}},
		"mappings": Mapping(t),
	}
}

// textAnalysis defines textAnalyzer: the terms of query.Analyze (Unicode
// word boundaries, lower case, no stemming, no stop words). Lucene's
// standard tokenizer splits on the same word boundaries (UAX #29); it
// also makes a term of each emoji, which query.Analyze drops, so a
// keep_types filter drops them too; and it cuts a word longer than
// max_token_length, set to the longest term the exact sub-field keeps.
func textAnalysis() map[string]any {
	return map[string]any{
		"tokenizer": map[string]any{"ontoindex_words": map[string]any{"type": "standard", "max_token_length": textIgnoreAbove}},
		"filter": map[string]any{"ontoindex_no_emoji": map[string]any{
			"type": "keep_types", "types": []string{"<EMOJI>"}, "mode": "exclude"}},
		"analyzer": map[string]any{textAnalyzer: map[string]any{
			"type": "custom", "tokenizer": "ontoindex_words", "filter": []string{"lowercase", "ontoindex_no_emoji"}}},
	}
}
