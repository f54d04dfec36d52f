package objects

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Kind is the data type of a property value.
type Kind uint8

// Kinds of property values. The numbering is part of the store encoding of
// type descriptors; append only.
const (
	KindInvalid Kind = iota
	KindBoolean
	KindInteger // Iceberg int (32 bit)
	KindLong    // Iceberg long (64 bit)
	KindFloat
	KindDouble
	KindDecimal
	KindString
	KindUUID
	KindDate
	KindTime
	KindTimestamp   // without zone, rendered as UTC
	KindTimestampTZ // with zone, UTC
	KindList
	KindStruct   // a struct column: the property holds presence, its fields are properties of their own (struct.go)
	KindGeoPoint // a point on the earth, from a struct, "lat,lon" or GeoJSON Point column (config type geopoint)
	KindGeoShape // a GeoJSON geometry, from a GeoJSON, WKT or WKB column (config type geoshape)
	KindVector   // a fixed-dimension embedding, from a list<float|double> column (config type vector)
)

var kindNames = [...]string{
	KindInvalid: "invalid", KindBoolean: "boolean", KindInteger: "integer", KindLong: "long",
	KindFloat: "float", KindDouble: "double", KindDecimal: "decimal", KindString: "string",
	KindUUID: "uuid", KindDate: "date", KindTime: "time", KindTimestamp: "timestamp",
	KindTimestampTZ: "timestamptz", KindList: "list", KindStruct: "struct",
	KindGeoPoint: "geopoint", KindGeoShape: "geoshape", KindVector: "vector",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Numeric reports whether values of kind k are numbers: integer, long,
// float, double and decimal, the kinds that sum, average and take the
// numeric search role.
func (k Kind) Numeric() bool {
	switch k {
	case KindInteger, KindLong, KindFloat, KindDouble, KindDecimal:
		return true
	}
	return false
}

// DateLike reports whether values of kind k are dates or instants: date,
// timestamp and timestamptz, the kinds that take the date search role. A
// time of day is not: it has no date, and is a keyword.
func (k Kind) DateLike() bool {
	return k == KindDate || k == KindTimestamp || k == KindTimestampTZ
}

// DataType is the type of a property: a primitive kind, a decimal with its
// precision and scale, or a list of a primitive type.
type DataType struct {
	Kind      Kind      `json:"kind"`
	Precision int       `json:"precision,omitempty"`
	Scale     int       `json:"scale,omitempty"`
	Elem      *DataType `json:"elem,omitempty"`
	// Dimension and Similarity describe a vector (vector.go).
	Dimension  int    `json:"dimension,omitempty"`
	Similarity string `json:"similarity,omitempty"`
}

// String renders the type as Iceberg spells it (decimal(10,2), list<long>).
func (t DataType) String() string {
	switch t.Kind {
	case KindDecimal:
		return fmt.Sprintf("decimal(%d,%d)", t.Precision, t.Scale)
	case KindList:
		if t.Elem == nil {
			return "list<?>"
		}
		return "list<" + t.Elem.String() + ">"
	case KindVector:
		return fmt.Sprintf("vector(%d)", t.Dimension)
	}
	return t.Kind.String()
}

// Equal reports whether t and u are the same data type (a list's element
// type compared, not its pointer).
func (t DataType) Equal(u DataType) bool {
	if t.Kind != u.Kind || t.Precision != u.Precision || t.Scale != u.Scale ||
		t.Dimension != u.Dimension || t.Similarity != u.Similarity {
		return false
	}
	if t.Elem == nil || u.Elem == nil {
		return t.Elem == u.Elem
	}
	return t.Elem.Equal(*u.Elem)
}

// Primitive reports the element type of a list, or t itself. A struct
// property's own value is its presence (true, or null: struct.go), so its
// primitive type is boolean and the engine indexes it as one.
func (t DataType) Primitive() DataType {
	if t.Kind == KindList && t.Elem != nil {
		return *t.Elem
	}
	if t.Kind == KindStruct {
		return DataType{Kind: KindBoolean}
	}
	return t
}

// SearchRole says how a property is indexed for search.
type SearchRole string

// Search roles.
const (
	// SearchText: analyzed terms, plus an exact keyword sub-field for
	// equality and sorting. The default for strings.
	SearchText SearchRole = "text"
	// SearchKeyword: exact values only.
	SearchKeyword SearchRole = "keyword"
	SearchNumeric SearchRole = "numeric"
	SearchDate    SearchRole = "date"
	SearchBoolean SearchRole = "boolean"
	// SearchNone: stored and returned, not searchable.
	SearchNone SearchRole = "none"
)

// DefaultRole is the search role a property of type t gets when the config
// does not name one.
func DefaultRole(t DataType) SearchRole {
	if t.Kind == KindStruct {
		return SearchNone // its fields are indexed, each by its own type
	}
	switch k := t.Primitive().Kind; {
	case k == KindString:
		return SearchText
	case k == KindUUID, k == KindTime:
		return SearchKeyword
	case k == KindBoolean:
		return SearchBoolean
	case k.Numeric():
		return SearchNumeric
	case k.DateLike():
		return SearchDate
	}
	return SearchNone
}

// rolesFor lists the roles a type may take.
func rolesFor(t DataType) []SearchRole {
	if t.Kind == KindStruct {
		return []SearchRole{SearchNone}
	}
	switch k := t.Primitive().Kind; {
	case k == KindString:
		return []SearchRole{SearchText, SearchKeyword, SearchNone}
	case k == KindUUID, k == KindTime:
		return []SearchRole{SearchKeyword, SearchNone}
	case k == KindBoolean:
		return []SearchRole{SearchBoolean, SearchKeyword, SearchNone}
	case k.Numeric():
		return []SearchRole{SearchNumeric, SearchKeyword, SearchNone}
	case k.DateLike():
		return []SearchRole{SearchDate, SearchKeyword, SearchNone}
	}
	return []SearchRole{SearchNone}
}

// Column describes one top-level column of a table, as the object layer
// needs it. Unsupported is set (with a reason) for map, binary and other
// columns that cannot be properties. A struct column has Fields, each
// described as a column of its own (a field that cannot be a struct field,
// a nested struct or a list, has Unsupported set).
type Column struct {
	Name        string
	FieldID     int
	Type        DataType
	Required    bool
	Unsupported string
	Fields      []Column
}

// Property is one resolved property of an object type.
type Property struct {
	APIName     string     `json:"apiName"`
	DisplayName string     `json:"displayName,omitempty"`
	Description string     `json:"description,omitempty"`
	Column      string     `json:"column"`
	FieldID     int        `json:"fieldId"`
	Type        DataType   `json:"type"`
	Search      SearchRole `json:"search"`
	// Struct and Field are set on the property of one field of a struct
	// property: the struct property's apiName and the field's name in the
	// column (struct.go). Such a property is hidden from the API, which
	// shows it as a field of its struct.
	Struct string `json:"struct,omitempty"`
	Field  string `json:"field,omitempty"`
}

// Searchable reports whether the property can be used in filters.
func (p Property) Searchable() bool { return p.Search != SearchNone }

// Sortable reports whether results can be ordered by the property.
func (p Property) Sortable() bool {
	return p.Search != SearchNone && p.Type.Kind != KindList && p.Type.Kind != KindStruct
}

// InvalidRowPolicy says what a build does with a row that cannot become an
// object (null primary key, unconvertible value).
type InvalidRowPolicy string

// Invalid row policies.
const (
	InvalidRowSkip InvalidRowPolicy = "skip"
	InvalidRowFail InvalidRowPolicy = "fail"
)

// Type is a resolved object type: its spec checked against the columns of
// its table.
//
// A Type is shared by the requests that read it, so nothing in it changes
// after it is made: Resolve, NewType and UnmarshalJSON build its
// property-name index up front, and a Type written as a struct literal
// (tests do) has none and looks properties up by a linear scan instead of
// building the index under its readers. Properties must not change once the
// index is built.
type Type struct {
	APIName            string           `json:"apiName"`
	DisplayName        string           `json:"displayName"`
	PluralDisplayName  string           `json:"pluralDisplayName"`
	Description        string           `json:"description,omitempty"`
	Table              string           `json:"table"`
	PrimaryKey         []string         `json:"primaryKey"` // property apiNames, in key order
	TitleProperty      string           `json:"titleProperty"`
	Properties         []Property       `json:"properties"`
	SemanticVersion    int              `json:"semanticVersion"`
	RequireIncremental bool             `json:"requireIncremental,omitempty"`
	OnInvalidRow       InvalidRowPolicy `json:"onInvalidRow"`

	byName map[string]int // apiName to position in Properties; nil: scan
	keyIdx []int          // KeyIndexes, made with byName; nil: work them out
}

// NewType returns a copy of t with its property-name index built, for
// types that are not resolved from a spec (tests, tools).
func NewType(t Type) *Type {
	t.index()
	return &t
}

// UnmarshalJSON decodes a type and builds its index, so that a type read
// back from the store is as ready for concurrent readers as a resolved one.
func (t *Type) UnmarshalJSON(b []byte) error {
	type plain Type // the fields without the methods, UnmarshalJSON included
	if err := json.Unmarshal(b, (*plain)(t)); err != nil {
		return err
	}
	t.index()
	return nil
}

// Property returns the property with the given apiName.
func (t *Type) Property(apiName string) (Property, bool) {
	if i := t.PropertyIndex(apiName); i >= 0 {
		return t.Properties[i], true
	}
	return Property{}, false
}

// PropertyIndex returns the position of a property in Properties, or -1.
func (t *Type) PropertyIndex(apiName string) int {
	if t.byName == nil {
		for i := len(t.Properties) - 1; i >= 0; i-- { // the last of duplicates, as in the index
			if t.Properties[i].APIName == apiName {
				return i
			}
		}
		return -1
	}
	if i, ok := t.byName[apiName]; ok {
		return i
	}
	return -1
}

// index builds the property-name index. Only the makers of a Type call it,
// before the Type is shared.
func (t *Type) index() {
	m := make(map[string]int, len(t.Properties))
	for i, p := range t.Properties {
		m[p.APIName] = i
	}
	t.byName = m
	t.keyIdx = t.KeyIndexes()
}

// Columns lists the table columns the type reads, in property order, each
// once (a struct column is read by its property and its fields').
func (t *Type) Columns() []string {
	out := make([]string, 0, len(t.Properties))
	for _, p := range t.Properties {
		if !slices.Contains(out, p.Column) {
			out = append(out, p.Column)
		}
	}
	return out
}

// KeyIndexes returns the property positions of the primary key.
func (t *Type) KeyIndexes() []int {
	out := make([]int, len(t.PrimaryKey))
	for i, k := range t.PrimaryKey {
		out[i] = t.PropertyIndex(k)
	}
	return out
}

// TitleIndex returns the property position of the title property.
func (t *Type) TitleIndex() int { return t.PropertyIndex(t.TitleProperty) }

// String names the type for messages.
func (t *Type) String() string { return t.APIName }

// joinNames renders names for error messages.
func joinNames(names []string) string { return strings.Join(names, ", ") }
