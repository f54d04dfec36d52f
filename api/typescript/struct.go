package typescript

import (
	"strings"

	"github.com/ontoindex/ontoindex/objects"
)

// structField is one field of a struct property's client type.
type structField struct {
	name string
	wire string // the client's name of the field's type
}

// propertyClientType is the client type of property i of t: a struct's is
// the record of its fields' types (the client's WirePropertyTypes allows
// Record<string, BaseWirePropertyTypes>), any other's clientType's.
func propertyClientType(t *objects.Type, i int) (propertyType, error) {
	p := t.Properties[i]
	if p.Type.Kind != objects.KindStruct {
		return clientType(objects.WireTypeName(p.Type))
	}
	out := propertyType{Nullable: true}
	for _, j := range t.StructFields(i) {
		f := t.Properties[j]
		ft, err := clientType(objects.WireTypeName(f.Type))
		if err != nil {
			return out, err
		}
		out.Fields = append(out.Fields, structField{name: f.Field, wire: ft.Wire})
	}
	return out, nil
}

// wireType is the type argument of the property's PropertyDef.
func (p propertyType) wireType() string {
	if p.Fields == nil {
		return quote(p.Wire)
	}
	parts := make([]string, len(p.Fields))
	for i, f := range p.Fields {
		parts[i] = f.name + ": " + quote(f.wire)
	}
	return "{ " + strings.Join(parts, "; ") + " }"
}

// valueType is the type of the property's (element) value: a struct's is
// an object of its fields, each absent when null.
func (p propertyType) valueType() string {
	if p.Fields == nil {
		return "$PropType[" + quote(p.Wire) + "]"
	}
	parts := make([]string, len(p.Fields))
	for i, f := range p.Fields {
		parts[i] = f.name + "?: $PropType[" + quote(f.wire) + "]"
	}
	return "{ " + strings.Join(parts, "; ") + " }"
}
