package query

import (
	"fmt"
	"strings"
)

// Op is the operator of a filter node.
type Op uint8

// Operators.
const (
	_ Op = iota
	// OpAll matches every object; OpNone matches none.
	OpAll
	OpNone
	// OpAnd, OpOr and OpNot combine Kids (OpNot takes one). An OpAnd without
	// kids matches every object, an OpOr without kids none.
	OpAnd
	OpOr
	OpNot
	// OpEq, OpGt, OpGte, OpLt and OpLte compare Property with Value.
	OpEq
	OpGt
	OpGte
	OpLt
	OpLte
	// OpIn matches when Property equals one of Values; no values match all.
	OpIn
	// OpIsNull matches nulls when Value is true, non-nulls when false.
	OpIsNull
	// OpContains matches arrays that hold an element equal to Value.
	OpContains
	// OpStartsWith: on keyword properties the whole value starts with
	// Text; on text properties it is OpPhrasePrefix.
	OpStartsWith
	// OpAllTerms and OpAnyTerm match when all or any of the terms of Text
	// are terms of the value, each within its edit distance when Fuzzy.
	OpAllTerms
	OpAnyTerm
	// OpPhrase matches the terms of Text as adjacent terms of one value.
	OpPhrase
	// OpPhrasePrefix is OpPhrase whose last term is a prefix.
	OpPhrasePrefix
	// OpWildcard (* any run, ? one character, \ escapes) and OpRegex (RE2)
	// match the whole exact value, case-sensitive.
	OpWildcard
	OpRegex
	// OpKeys matches the objects with the encoded primary keys in Keys.
	OpKeys
	// OpInterval matches when Interval has an interval in one value of
	// Property (interval.go).
	OpInterval
	// OpGeo matches when Property's geopoint or geoshape meets Geo
	// (geo.go).
	OpGeo
)

var opNames = [...]string{
	OpAll: "all", OpNone: "none", OpAnd: "and", OpOr: "or", OpNot: "not",
	OpEq: "eq", OpGt: "gt", OpGte: "gte", OpLt: "lt", OpLte: "lte", OpIn: "in",
	OpIsNull: "isNull", OpContains: "contains", OpStartsWith: "startsWith",
	OpAllTerms: "containsAllTerms", OpAnyTerm: "containsAnyTerm", OpPhrase: "containsAllTermsInOrder",
	OpPhrasePrefix: "containsAllTermsInOrderPrefixLastTerm", OpWildcard: "wildcard", OpRegex: "regex", OpKeys: "keys",
	OpInterval: "interval", OpGeo: "geo",
}

func (o Op) String() string {
	if int(o) < len(opNames) && opNames[o] != "" {
		return opNames[o]
	}
	return fmt.Sprintf("op(%d)", o)
}

// Filter is one node of a filter tree. Which fields apply depends on Op.
type Filter struct {
	Op       Op
	Property string // apiName of the property compared
	Value    any    // comparisons and OpContains; a bool for OpIsNull
	Values   []any  // OpIn (see Set)
	// Set, when not nil, is OpIn's values in place of Values: sorted and
	// distinct, as an index holds them (a link's keys; see ValueSet).
	Set   ValueSet
	Text  string    // text queries, wildcard and regex
	Fuzzy bool      // OpAllTerms and OpAnyTerm
	Kids  []*Filter // OpAnd, OpOr, OpNot
	Keys  [][]byte  // OpKeys: encoded primary keys
	// Scores are the relevance of each of Keys, in order, when the keys
	// are a nearestNeighbors result: a relevance search orders by them.
	Scores   []float64
	Interval *Rule // OpInterval
	Geo      *Geo  // OpGeo
}

// ValueSet is the values of an OpIn as the index that found them holds
// them: sorted, distinct, of one property's type. A link hands the keys
// of one type's objects to a filter of another type as a ValueSet, so
// that the other type's index reads them as they are (a hundred thousand
// keys, at ten million objects, cost a search as much again to box and
// convert back); everyone else asks for Values.
type ValueSet interface {
	Len() int
	// Values is the values boxed, in order; a set may make them on the
	// first call and keep them.
	Values() []any
}

// ValueList is a ValueSet of values already boxed.
type ValueList []any

// Len is the number of values.
func (l ValueList) Len() int { return len(l) }

// Values returns l.
func (l ValueList) Values() []any { return l }

// InValues is OpIn's values: those of Set, or Values.
func (f *Filter) InValues() []any {
	if f.Set != nil {
		return f.Set.Values()
	}
	return f.Values
}

// InLen is the number of OpIn's values, without boxing a Set's.
func (f *Filter) InLen() int {
	if f.Set != nil {
		return f.Set.Len()
	}
	return len(f.Values)
}

// MatchesAll reports whether f is trivially every object (nil, OpAll, or
// an OpAnd without kids).
func (f *Filter) MatchesAll() bool {
	return f == nil || f.Op == OpAll || (f.Op == OpAnd && len(f.Kids) == 0)
}

// String renders the filter for messages and tests.
func (f *Filter) String() string {
	if f == nil {
		return "all"
	}
	switch f.Op {
	case OpAll, OpNone:
		return f.Op.String()
	case OpAnd, OpOr, OpNot:
		parts := make([]string, len(f.Kids))
		for i, k := range f.Kids {
			parts[i] = k.String()
		}
		return f.Op.String() + "(" + strings.Join(parts, ", ") + ")"
	case OpIn:
		return fmt.Sprintf("%s in %v", f.Property, f.InValues())
	case OpKeys:
		return fmt.Sprintf("keys(%d)", len(f.Keys))
	case OpInterval:
		return fmt.Sprintf("%s interval %s", f.Property, f.Interval)
	case OpGeo:
		return fmt.Sprintf("%s %s", f.Property, f.Geo)
	case OpEq, OpGt, OpGte, OpLt, OpLte, OpIsNull, OpContains:
		return fmt.Sprintf("%s %s %v", f.Property, f.Op, f.Value)
	}
	s := fmt.Sprintf("%s %s %q", f.Property, f.Op, f.Text)
	if f.Fuzzy {
		s += " fuzzy"
	}
	return s
}

// Constructors, for code and tests that build filters by hand.

// And matches objects every kid matches.
func And(kids ...*Filter) *Filter { return &Filter{Op: OpAnd, Kids: kids} }

// Or matches objects any kid matches.
func Or(kids ...*Filter) *Filter { return &Filter{Op: OpOr, Kids: kids} }

// Not matches objects kid does not match.
func Not(kid *Filter) *Filter { return &Filter{Op: OpNot, Kids: []*Filter{kid}} }

// Compare is a comparison (OpEq, OpGt, OpGte, OpLt, OpLte, OpContains).
func Compare(op Op, property string, v any) *Filter {
	return &Filter{Op: op, Property: property, Value: v}
}

// Eq matches objects whose property equals v.
func Eq(property string, v any) *Filter { return Compare(OpEq, property, v) }

// In matches objects whose property equals one of vs.
func In(property string, vs ...any) *Filter { return &Filter{Op: OpIn, Property: property, Values: vs} }

// IsNull matches objects whose property is null (or is not, when null is
// false).
func IsNull(property string, null bool) *Filter {
	return &Filter{Op: OpIsNull, Property: property, Value: null}
}

// Text is a text query (OpStartsWith ... OpRegex).
func Text(op Op, property, text string) *Filter {
	return &Filter{Op: op, Property: property, Text: text}
}

// Keys matches the objects with the given encoded primary keys.
func Keys(keys ...[]byte) *Filter { return &Filter{Op: OpKeys, Keys: keys} }
