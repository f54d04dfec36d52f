package typescript

import (
	"fmt"
	"strings"

	"github.com/ontoindex/ontoindex/objects"
)

// propertyType is a property's type as the client's PropertyDef names it.
type propertyType struct {
	// Wire is the client's name of the (element) type: string, integer,
	// long, float, double, decimal, boolean, datetime or timestamp.
	Wire string
	// Array reports a list: multiplicity "array".
	Array bool
	// Nullable is false only for the primary key.
	Nullable bool
	// Fields are a struct's fields (struct.go); Wire is then empty.
	Fields []structField
}

// def renders the type as the generator writes it in properties.
func (p propertyType) def() string {
	nullable, multiplicity := "nullable", "single"
	if !p.Nullable {
		nullable = "non-nullable"
	}
	if p.Array {
		multiplicity = "array"
	}
	return fmt.Sprintf("$PropertyDef<%s, %s, %s>", p.wireType(), quote(nullable), quote(multiplicity))
}

// value renders the type of the property's value in Props: a primary key
// is always there, any other property may be absent.
func (p propertyType) value() string {
	v := p.valueType()
	if p.Array {
		v += "[]"
	}
	if p.Nullable {
		v += " | undefined"
	}
	return v
}

// clientType maps a data type as the Ontology API names it
// (objects.WireTypeName: string, integer, long, float, double, decimal,
// boolean, date, timestamp, array<T>) to the client's: a date is a
// "datetime", an array its element's type with multiplicity.
func clientType(wire string) (propertyType, error) {
	t := propertyType{Wire: wire, Nullable: true}
	if elem, ok := strings.CutPrefix(wire, "array<"); ok {
		elem, ok = strings.CutSuffix(elem, ">")
		if !ok || strings.HasPrefix(elem, "array<") {
			return t, fmt.Errorf("data type %q is not one the client types", wire)
		}
		t.Wire, t.Array = elem, true
	}
	switch t.Wire {
	case "date":
		t.Wire = "datetime"
	case "string", "integer", "long", "float", "double", "decimal", "boolean", "timestamp", "geopoint", "geoshape", "vector":
	default:
		return t, fmt.Errorf("data type %q is not one the client types", wire)
	}
	return t, nil
}

// primaryKeyType is the client's PrimaryKeyTypes name of a key property's
// type. The client takes integer, long, string, date and timestamp keys
// and refuses the metadata of a type keyed otherwise (a boolean or a
// decimal), as the generator does.
func primaryKeyType(t *objects.Type, p objects.Property) (string, error) {
	switch p.Type.Kind {
	case objects.KindInteger:
		return "integer", nil
	case objects.KindLong:
		return "long", nil
	case objects.KindString, objects.KindUUID, objects.KindTime:
		return "string", nil
	case objects.KindDate:
		return "datetime", nil
	case objects.KindTimestamp, objects.KindTimestampTZ:
		return "timestamp", nil
	}
	return "", fmt.Errorf("object type %s: primary key %s is %s; @osdk/client takes integer, long, string, date and timestamp keys only",
		t.APIName, p.APIName, objects.WireTypeName(p.Type))
}
