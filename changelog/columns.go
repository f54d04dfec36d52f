package changelog

import (
	"fmt"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/objects"
)

// Columns describes the top-level columns of an Iceberg schema for the
// object layer. Struct, map, binary and other columns that cannot be
// properties are marked Unsupported.
func Columns(sc *iceberg.Schema) []objects.Column {
	fields := sc.Fields()
	out := make([]objects.Column, 0, len(fields))
	for _, f := range fields {
		c := objects.Column{Name: f.Name, FieldID: f.ID, Required: f.Required}
		t, why := dataType(f.Type)
		if why != "" {
			c.Unsupported = why
		} else {
			c.Type = t
		}
		out = append(out, c)
	}
	return out
}

// IdentifierColumns returns the names of the schema's identifier fields.
func IdentifierColumns(sc *iceberg.Schema) []string {
	var out []string
	for _, id := range sc.IdentifierFieldIDs {
		if f, ok := sc.FindFieldByID(id); ok {
			out = append(out, f.Name)
		}
	}
	return out
}

func dataType(t iceberg.Type) (objects.DataType, string) {
	switch x := t.(type) {
	case iceberg.BooleanType:
		return objects.DataType{Kind: objects.KindBoolean}, ""
	case iceberg.Int32Type:
		return objects.DataType{Kind: objects.KindInteger}, ""
	case iceberg.Int64Type:
		return objects.DataType{Kind: objects.KindLong}, ""
	case iceberg.Float32Type:
		return objects.DataType{Kind: objects.KindFloat}, ""
	case iceberg.Float64Type:
		return objects.DataType{Kind: objects.KindDouble}, ""
	case iceberg.DecimalType:
		return objects.DataType{Kind: objects.KindDecimal, Precision: x.Precision(), Scale: x.Scale()}, ""
	case iceberg.StringType:
		return objects.DataType{Kind: objects.KindString}, ""
	case iceberg.UUIDType:
		return objects.DataType{Kind: objects.KindUUID}, ""
	case iceberg.DateType:
		return objects.DataType{Kind: objects.KindDate}, ""
	case iceberg.TimeType:
		return objects.DataType{Kind: objects.KindTime}, ""
	case iceberg.TimestampType, iceberg.TimestampNsType:
		return objects.DataType{Kind: objects.KindTimestamp}, ""
	case iceberg.TimestampTzType, iceberg.TimestampTzNsType:
		return objects.DataType{Kind: objects.KindTimestampTZ}, ""
	case *iceberg.ListType:
		elementType, why := dataType(x.Element)
		if why != "" {
			return objects.DataType{}, "a list of " + why
		}
		if elementType.Kind == objects.KindList {
			return objects.DataType{}, "a list of lists"
		}
		return objects.DataType{Kind: objects.KindList, Elem: &elementType}, ""
	case *iceberg.StructType:
		return objects.DataType{}, "a struct"
	case *iceberg.MapType:
		return objects.DataType{}, "a map"
	case iceberg.BinaryType:
		return objects.DataType{}, "binary"
	case iceberg.FixedType:
		return objects.DataType{}, "fixed binary"
	}
	return objects.DataType{}, fmt.Sprintf("of type %s", t)
}
