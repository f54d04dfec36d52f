package changelog

import (
	"fmt"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/objects"
)

// Columns describes the top-level columns of an Iceberg schema for the
// object layer. Map, binary and other columns that cannot be properties
// are marked Unsupported; a struct column lists its fields.
func Columns(sc *iceberg.Schema) []objects.Column {
	fields := sc.Fields()
	out := make([]objects.Column, 0, len(fields))
	for _, f := range fields {
		out = append(out, column(f))
	}
	return out
}

// column describes one field: a top-level column, or a field of a struct
// column (described the same way, one level down).
func column(f iceberg.NestedField) objects.Column {
	c := objects.Column{Name: f.Name, FieldID: f.ID, Required: f.Required}
	if st, ok := f.Type.(*iceberg.StructType); ok {
		c.Type = objects.DataType{Kind: objects.KindStruct}
		for _, sf := range st.FieldList {
			c.Fields = append(c.Fields, column(sf))
		}
		return c
	}
	t, why := dataType(f.Type)
	if why != "" {
		c.Unsupported = why
	} else {
		c.Type = t
	}
	return c
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
		return objects.DataType{}, objects.UnsupportedBinary
	case iceberg.FixedType:
		return objects.DataType{}, "fixed binary"
	}
	return objects.DataType{}, fmt.Sprintf("of type %s", t)
}

// ColumnOf describes one field of a schema as Columns does.
func ColumnOf(f iceberg.NestedField) objects.Column { return column(f) }
