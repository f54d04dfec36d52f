package objects

import (
	"fmt"
	"slices"
)

// UnsupportedBinary is what a binary column is marked Unsupported with:
// it cannot be a plain property, but a geoshape reads WKB from it.
const UnsupportedBinary = "binary"

// geoProperty resolves a property of type geopoint or geoshape against
// its column. The property is stored and filtered with the geo filters
// (its own index, not a search role): its role is none.
func geoProperty(field, name string, ps PropertySpec, c Column, table string) (Property, error) {
	kind := KindGeoPoint
	if ps.Type == KindGeoShape.String() {
		kind = KindGeoShape
	}
	if ps.Search != "" && ps.Search != SearchNone {
		return Property{}, &FieldError{Field: field + ".search",
			Msg: fmt.Sprintf("search role %s does not fit a %s (geo filters use its own index; leave search out)", ps.Search, kind)}
	}
	if why := geoColumnUnfit(kind, c); why != "" {
		return Property{}, &FieldError{Field: field + ".column",
			Msg: fmt.Sprintf("column %q of table %s is %s; %s", c.Name, table, why, geoForms[kind])}
	}
	return Property{APIName: name, DisplayName: ps.DisplayName, Description: ps.Description,
		Column: c.Name, FieldID: c.FieldID, Type: DataType{Kind: kind}, Search: SearchNone}, nil
}

var geoForms = map[Kind]string{
	KindGeoPoint: `a geopoint is read from struct<lat: double, lon: double>, a "lat,lon" string or a GeoJSON Point string`,
	KindGeoShape: "a geoshape is read from a GeoJSON or WKT string or WKB binary",
}

// geoColumnUnfit says why column c cannot hold a property of kind k; ""
// when it can.
func geoColumnUnfit(k Kind, c Column) string {
	switch {
	case c.Unsupported == UnsupportedBinary && k == KindGeoShape:
		return ""
	case c.Unsupported != "":
		return c.Unsupported
	case c.Type.Kind == KindString:
		return ""
	case c.Type.Kind == KindStruct && k == KindGeoPoint:
		for _, name := range []string{"lat", "lon"} {
			i := slices.IndexFunc(c.Fields, func(f Column) bool { return f.Name == name })
			if i < 0 {
				return "a struct without a field " + name
			}
			if f := c.Fields[i]; f.Type.Kind != KindDouble && f.Type.Kind != KindFloat {
				return fmt.Sprintf("a struct whose field %s is %s", name, f.Type)
			}
		}
		return ""
	}
	return "of type " + c.Type.String()
}
