package objects

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// A struct column becomes one struct property and one hidden property per
// field. The struct property's value is its presence: true, or nil when
// the struct is null. Each field's property holds the field's value (nil
// when the field or the whole struct is null) under the apiName
// "<struct>.<field>": a dot cannot appear in a property apiName, so the
// name never meets a configured one. The engine, the store, the row hash
// and the changelog's comparison of rows see ordinary scalar properties,
// so filters, sorting and aggregations on fields, and upserts when a field
// changes, need nothing of their own; the API shows the fields as one
// struct value (api/render.go, objects.Type.JSON).
//
// Fields are scalars: a struct in a struct, a list or a map in a struct is
// refused when the column is mapped explicitly (and the column is skipped
// when the properties are left to default).

// StructSeparator joins a struct property's apiName and a field's name in
// the apiName of the field's hidden property.
const StructSeparator = "."

// FieldPropertyName is the apiName of the hidden property of one field of
// a struct property.
func FieldPropertyName(structProperty, field string) string {
	return structProperty + StructSeparator + field
}

// Hidden reports whether p is a field of a struct property, which the API
// shows inside its struct rather than as a property of its own.
func (p Property) Hidden() bool { return p.Struct != "" }

// StructFields returns the positions of the field properties of the struct
// property at position i, in field order; nil when it is not a struct.
func (t *Type) StructFields(i int) []int {
	if i < 0 || i >= len(t.Properties) || t.Properties[i].Type.Kind != KindStruct {
		return nil
	}
	name := t.Properties[i].APIName
	var out []int
	for j, p := range t.Properties {
		if p.Struct == name {
			out = append(out, j)
		}
	}
	return out
}

// StructValue assembles the wire value of the struct property at position
// i of o: field name to JSON value, null fields left out; nil when the
// struct is null.
func (t *Type) StructValue(i int, o *Object) map[string]any {
	if i >= len(o.Values) || o.Values[i] == nil {
		return nil
	}
	m := map[string]any{}
	for _, j := range t.StructFields(i) {
		if j < len(o.Values) && o.Values[j] != nil {
			f := t.Properties[j]
			m[f.Field] = JSONValue(f.Type, o.Values[j])
		}
	}
	return m
}

// structUnsupported says why a struct column cannot be a property, naming
// the first field that cannot be a struct field; "" when it can.
func structUnsupported(c Column) string {
	if len(c.Fields) == 0 {
		return "a struct without fields"
	}
	for _, f := range c.Fields {
		if f.Unsupported != "" {
			return fmt.Sprintf("a struct whose field %q is %s (struct fields must be scalars: nested structs, lists and maps are not supported)", f.Name, f.Unsupported)
		}
		if f.Type.Kind == KindList || f.Type.Kind == KindStruct {
			return fmt.Sprintf("a struct whose field %q is a %s (struct fields must be scalars: nested structs, lists and maps are not supported)", f.Name, f.Type.Kind)
		}
		if !propertyNamePattern.MatchString(f.Name) || len(f.Name) > 100 {
			return fmt.Sprintf("a struct whose field %q is not a valid field apiName (letters, digits and _, starting with a letter or _)", f.Name)
		}
	}
	return ""
}

// structProperties are the struct property of column c and the hidden
// properties of its fields. A struct takes the search role none (every
// field stored only) or no role (each field its type's default).
func structProperties(field string, p Property, c Column) ([]Property, error) {
	if why := structUnsupported(c); why != "" {
		return nil, &FieldError{Field: field + ".column", Msg: fmt.Sprintf("column %q is %s", c.Name, why)}
	}
	fieldRole := SearchRole("")
	switch p.Search {
	case "":
	case SearchNone:
		fieldRole = SearchNone
	default:
		return nil, &FieldError{Field: field + ".search", Msg: fmt.Sprintf("search role %s does not fit struct column %q (a struct takes none, or no role: each field is indexed by its type)", p.Search, c.Name)}
	}
	p.Search = SearchNone // the presence is stored, and answers isNull
	p.Type = DataType{Kind: KindStruct}
	out := []Property{p}
	for _, f := range c.Fields {
		role := fieldRole
		if role == "" {
			role = DefaultRole(f.Type)
		}
		out = append(out, Property{APIName: FieldPropertyName(p.APIName, f.Name), DisplayName: f.Name,
			Column: c.Name, FieldID: f.FieldID, Type: f.Type, Search: role, Struct: p.APIName, Field: f.Name})
	}
	return out, nil
}

// propertyGetter reads a property from its column: a struct property's
// presence, a struct field's value under its struct's nulls (the values
// below a null struct are undefined in Arrow), or a plain column's value.
func propertyGetter(arr arrow.Array, p Property) (getter, error) {
	if p.Type.Kind == KindGeoPoint || p.Type.Kind == KindGeoShape {
		return geoGetter(arr, p)
	}
	if p.Type.Kind == KindVector {
		return vectorGetter(arr, p.Type.Dimension)
	}
	if p.Type.Kind != KindStruct && p.Struct == "" {
		return makeGetter(arr, p.Type)
	}
	if ext, ok := arr.(array.ExtensionArray); ok {
		arr = ext.Storage()
	}
	st, ok := arr.(*array.Struct)
	if !ok {
		return nil, fmt.Errorf("column is %s, not a struct", arr.DataType())
	}
	if p.Type.Kind == KindStruct {
		return func(i int) (any, error) {
			if st.IsNull(i) {
				return nil, nil
			}
			return true, nil
		}, nil
	}
	j, ok := st.DataType().(*arrow.StructType).FieldIdx(p.Field)
	if !ok {
		return nil, fmt.Errorf("struct has no field %q", p.Field)
	}
	g, err := makeGetter(st.Field(j), p.Type)
	if err != nil {
		return nil, fmt.Errorf("field %s: %w", p.Field, err)
	}
	if st.NullN() == 0 {
		return g, nil
	}
	return func(i int) (any, error) {
		if st.IsNull(i) {
			return nil, nil
		}
		return g(i)
	}, nil
}
