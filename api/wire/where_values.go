package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// The values of where clauses: parsed into the typed values of their
// property, and the text of text queries checked against the property's
// search role.

func filterValueErr(p objects.Property, typ string, raw json.RawMessage, expected string) *Error {
	v := string(raw)
	if len(v) > 100 {
		v = v[:100] + "..."
	}
	return Err(NameInvalidPropertyFilterValue, map[string]any{"property": p.APIName, "propertyFilter": typ,
		"propertyFilterValue": v, "expectedType": expected, "reason": filterValueReason(typ, p, expected, v)})
}

// filterValueReason says what the filter's value should have been, so the
// message names the fix and not only the parameters; got is the value as
// JSON.
func filterValueReason(typ string, p objects.Property, expected, got string) string {
	return fmt.Sprintf("%s on %s expects %s, got %s", typ, p.APIName, expected, got)
}

func notSupported(typ string, p objects.Property, reason string) *Error {
	return Err(NamePropertyFiltersNotSupported, map[string]any{"propertyFilters": typ, "property": p.APIName, "reason": reason})
}

// ParseValue parses a JSON value of a filter into the typed value of p's
// element type. Numbers may come as JSON numbers or strings (longs beyond
// 2^53 as strings keep their digits), booleans as JSON booleans or
// strings, dates as YYYY-MM-DD, timestamps as RFC 3339.
func ParseValue(p objects.Property, typ string, raw json.RawMessage) (any, error) {
	elementType := p.Type.Primitive()
	raw = bytes.TrimSpace(raw)
	var text string
	switch {
	case len(raw) > 0 && raw[0] == '"':
		s, ok := JSONString(raw)
		if !ok {
			return nil, filterValueErr(p, typ, raw, elementType.String())
		}
		text = s
	case IsJSONNumber(raw):
		text = string(raw)
	case string(raw) == "true" || string(raw) == "false":
		if elementType.Kind != objects.KindBoolean {
			return nil, filterValueErr(p, typ, raw, elementType.String())
		}
		return string(raw) == "true", nil
	default:
		return nil, filterValueErr(p, typ, raw, elementType.String())
	}
	if elementType.Kind == objects.KindInteger || elementType.Kind == objects.KindLong {
		// Accept integral JSON numbers written with a fraction or exponent.
		if strings.ContainsAny(text, ".eE") {
			if f, err := json.Number(text).Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
				text = fmt.Sprintf("%.0f", f)
			}
		}
	}
	val, err := objects.ParseText(elementType, text)
	if err != nil {
		return nil, filterValueErr(p, typ, raw, elementType.String())
	}
	if x, ok := val.(float64); ok && (math.IsNaN(x) || math.IsInf(x, 0)) {
		return nil, filterValueErr(p, typ, raw, "finite "+elementType.String())
	}
	return val, nil
}

// checkTextQuery checks that a text query applies to its property and
// that its text is one the engine can run.
func checkTextQuery(typ string, p objects.Property, f *query.Filter) error {
	switch typ {
	case opStartsWith, opInOrderPrefix, opWildcard, opRegex:
		if p.Search != objects.SearchText && p.Search != objects.SearchKeyword {
			return notSupported(typ, p, fmt.Sprintf("%s applies to text and keyword properties; %s has search role %s", typ, p.APIName, p.Search))
		}
	default:
		if p.Search != objects.SearchText {
			return notSupported(typ, p, fmt.Sprintf("%s applies to text properties; %s has search role %s (use eq, in, startsWith, wildcard or regex)", typ, p.APIName, p.Search))
		}
	}
	switch typ {
	case opWildcard, opRegex:
		if _, err := query.Pattern(f.Op, f.Text); err != nil {
			expected := "regular expression"
			if typ == opWildcard {
				expected = "wildcard pattern"
			}
			return Err(NameInvalidPropertyFilterValue, map[string]any{"property": p.APIName, "propertyFilter": typ,
				"propertyFilterValue": Truncate(f.Text), "expectedType": expected, "reason": err.Error()})
		}
	case opStartsWith, opInOrderPrefix:
		if p.Search == objects.SearchText && len(query.Analyze(f.Text)) == 0 {
			return noTerms(typ, p, f.Text)
		}
	default:
		if len(query.Analyze(f.Text)) == 0 {
			return noTerms(typ, p, f.Text)
		}
	}
	return nil
}

func noTerms(typ string, p objects.Property, text string) *Error {
	const expected = "text with at least one word"
	return Err(NameInvalidPropertyFilterValue, map[string]any{"property": p.APIName, "propertyFilter": typ,
		"propertyFilterValue": Truncate(text), "expectedType": expected,
		"reason": filterValueReason(typ, p, expected, strconv.Quote(Truncate(text)))})
}

func Truncate(s string) string {
	if len(s) > 100 {
		return s[:100] + "..."
	}
	return s
}
