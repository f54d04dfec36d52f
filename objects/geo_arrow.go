package objects

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// geoGetter reads a geopoint or geoshape property from its column, in the
// forms the config allows: a geopoint from struct<lat, lon> (doubles or
// floats), a "lat,lon" string or a GeoJSON Point string; a geoshape from
// a GeoJSON or WKT string or WKB binary. A value that does not parse is
// an error, which the build reports as an invalid row.
func geoGetter(arr arrow.Array, p Property) (getter, error) {
	if ext, ok := arr.(array.ExtensionArray); ok {
		arr = ext.Storage()
	}
	text := func(i int) (string, bool) { return "", false }
	var binary func(i int) []byte
	switch a := arr.(type) {
	case *array.String:
		text = func(i int) (string, bool) { return a.Value(i), true }
	case *array.LargeString:
		text = func(i int) (string, bool) { return a.Value(i), true }
	case *array.StringView:
		text = func(i int) (string, bool) { return a.Value(i), true }
	case *array.Binary:
		binary = a.Value
	case *array.LargeBinary:
		binary = a.Value
	case *array.BinaryView:
		binary = a.Value
	case *array.Struct:
		if p.Type.Kind != KindGeoPoint {
			return nil, fmt.Errorf("a geoshape is read from a GeoJSON or WKT string or WKB binary, not %s", arr.DataType())
		}
		return structPointGetter(a)
	default:
		return nil, fmt.Errorf("a %s is not read from %s", p.Type.Kind, arr.DataType())
	}
	if p.Type.Kind == KindGeoPoint && binary != nil {
		return nil, fmt.Errorf("a geopoint is read from struct<lat, lon>, \"lat,lon\" or a GeoJSON Point string, not %s", arr.DataType())
	}
	return func(i int) (any, error) {
		if arr.IsNull(i) {
			return nil, nil
		}
		if binary != nil {
			return GeoShapeFromWKB(binary(i))
		}
		s, _ := text(i)
		if p.Type.Kind == KindGeoPoint {
			return ParseGeoPoint(s)
		}
		return ParseGeoShape(s)
	}, nil
}

// structPointGetter reads a point from struct<lat, lon>; a null struct is
// a null point, a null coordinate in a present struct an invalid value.
func structPointGetter(st *array.Struct) (getter, error) {
	typ := st.DataType().(*arrow.StructType)
	coordinate := func(name string) (func(i int) (float64, bool), error) {
		j, ok := typ.FieldIdx(name)
		if !ok {
			return nil, fmt.Errorf("a geopoint struct needs fields lat and lon, %s has no %s", typ, name)
		}
		switch f := st.Field(j).(type) {
		case *array.Float64:
			return func(i int) (float64, bool) { return f.Value(i), f.IsValid(i) }, nil
		case *array.Float32:
			return func(i int) (float64, bool) { return float64(f.Value(i)), f.IsValid(i) }, nil
		}
		return nil, fmt.Errorf("geopoint field %s is %s, not a double or float", name, st.Field(j).DataType())
	}
	lat, err := coordinate("lat")
	if err != nil {
		return nil, err
	}
	lon, err := coordinate("lon")
	if err != nil {
		return nil, err
	}
	return func(i int) (any, error) {
		if st.IsNull(i) {
			return nil, nil
		}
		y, okLat := lat(i)
		x, okLon := lon(i)
		if !okLat || !okLon {
			return nil, fmt.Errorf("a geopoint struct with a null lat or lon")
		}
		return NewGeoPoint(x, y)
	}, nil
}
