package apidemo

import (
	"context"
	"fmt"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/objects"
)

// The places are a fourth, separate part of the demo: one object type,
// Place, with geo properties over each column form they are read from:
// location from struct<lat, lon>, pin from a "lat,lon" or GeoJSON Point
// string, area from a WKT or GeoJSON string, and outline from WKB. A test
// or the end-to-end seed adds PlaceSpecs to serve it.

// Place is one demo place.
type Place struct {
	ID, Name string
	Lat, Lon float64 // the location; NaN for none
	Area     string  // WKT or GeoJSON; "" for none
}

// Places are the demo places: two cities in France, two either side of the
// antimeridian near Fiji, one near the north pole, one in London, one in
// Berlin (a line), and one with no location or area.
var Places = []Place{
	{"p1", "Paris", 48.8566, 2.3522, "POLYGON((2.2 48.8,2.5 48.8,2.5 48.9,2.2 48.9,2.2 48.8))"},
	{"p2", "Lyon", 45.764, 4.8357, `{"type":"Polygon","coordinates":[[[4.7,45.7],[4.9,45.7],[4.9,45.8],[4.7,45.8],[4.7,45.7]]]}`},
	{"p3", "Berlin", 52.52, 13.405, "LINESTRING(13.3 52.5,13.5 52.55)"},
	{"p4", "London", 51.5074, -0.1278, `{"type":"Point","coordinates":[-0.1278,51.5074]}`},
	{"p5", "Suva", -18.1416, 178.4419, "POLYGON((178 -19,179.9 -19,179.9 -17,178 -17,178 -19))"},
	{"p6", "Apia", -13.833, -171.76, "POLYGON((-172 -14.5,-171 -14.5,-171 -13.5,-172 -13.5,-172 -14.5))"},
	{"p7", "Longyearbyen", 78.2232, 15.6267, "MULTIPOLYGON(((15 78,16 78,16 78.5,15 78)),((10 80,12 80,12 81,10 80)))"},
	{"p8", "Nowhere", 0, 0, ""},
}

// PlaceRows are the rows of demo.places; p8 has null geo columns.
func PlaceRows() []icebergtest.Row {
	rows := make([]icebergtest.Row, 0, len(Places))
	for i, p := range Places {
		r := icebergtest.Row{"place_id": p.ID, "name": p.Name, "loc": nil, "pin": nil, "area": nil, "outline": nil}
		if p.Area != "" {
			r["loc"] = map[string]any{"lat": p.Lat, "lon": p.Lon}
			r["pin"] = fmt.Sprintf("%g,%g", p.Lat, p.Lon)
			if i%2 == 1 {
				r["pin"] = fmt.Sprintf(`{"type":"Point","coordinates":[%g,%g]}`, p.Lon, p.Lat)
			}
			r["area"] = p.Area
			s, err := objects.ParseGeoShape(p.Area)
			if err != nil {
				panic(fmt.Sprintf("place %s: %v", p.ID, err))
			}
			r["outline"] = s.WKB() // JSON base64, as arrow reads binary
		}
		rows = append(rows, r)
	}
	return rows
}

var placeSchema = iceberg.NewSchemaWithIdentifiers(1, []int{1},
	iceberg.NestedField{ID: 1, Name: "place_id", Type: iceberg.PrimitiveTypes.String, Required: true},
	iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
	iceberg.NestedField{ID: 3, Name: "loc", Type: &iceberg.StructType{FieldList: []iceberg.NestedField{
		{ID: 7, Name: "lat", Type: iceberg.PrimitiveTypes.Float64},
		{ID: 8, Name: "lon", Type: iceberg.PrimitiveTypes.Float64},
	}}},
	iceberg.NestedField{ID: 4, Name: "pin", Type: iceberg.PrimitiveTypes.String},
	iceberg.NestedField{ID: 5, Name: "area", Type: iceberg.PrimitiveTypes.String},
	iceberg.NestedField{ID: 6, Name: "outline", Type: iceberg.PrimitiveTypes.Binary},
)

// CreatePlaces writes demo.places into w.
func CreatePlaces(ctx context.Context, w *icebergtest.Warehouse) error {
	_, err := w.WriteTable(ctx, "demo.places", placeSchema, nil, PlaceRows())
	return err
}

// PlaceSpecs is the Place object type over a catalog named catalog.
func PlaceSpecs(catalog string) []objects.TypeSpec {
	return []objects.TypeSpec{{
		APIName: "Place", DisplayName: "Place", PluralDisplayName: "Places", Table: catalog + ".demo.places", TitleProperty: "name",
		Properties: map[string]objects.PropertySpec{"placeId": {Column: "place_id", Search: objects.SearchKeyword},
			"name":     {Column: "name", Search: objects.SearchKeyword},
			"location": {Column: "loc", Type: "geopoint"}, "pin": {Column: "pin", Type: "geopoint"},
			"area": {Column: "area", Type: "geoshape"}, "outline": {Column: "outline", Type: "geoshape"}},
	}}
}
