// Package geobench compares the geo filters of the engine with PostGIS on
// the same rows: points and polygons over the continental United States,
// each filter as a page of 100 (in primary key order) and as a count.
package geobench

import (
	"fmt"
	"math/rand/v2"

	"github.com/ontoindex/ontoindex/objects"
)

// The rows lie in a box the size of the continental United States, so a
// filter of a city's size holds hundreds of them at a million rows.
const (
	west, east   = -125.0, -67.0
	south, north = 25.0, 49.0
)

// Row is one bench row: a point and a polygon near it (a quadrilateral of
// 0.005 to 0.05 degrees).
type Row struct {
	ID       int64
	Lon, Lat float64
	Polygon  string // WKT
}

// Rows draws n rows from seed.
func Rows(seed uint64, n int) []Row {
	r := rand.New(rand.NewPCG(seed, 26))
	rows := make([]Row, n)
	for i := range rows {
		lon, lat := west+r.Float64()*(east-west), south+r.Float64()*(north-south)
		w, h := 0.005+r.Float64()*0.045, 0.005+r.Float64()*0.045
		skew := r.Float64() * w / 2
		rows[i] = Row{ID: int64(i), Lon: lon, Lat: lat, Polygon: fmt.Sprintf("POLYGON((%.6f %.6f,%.6f %.6f,%.6f %.6f,%.6f %.6f,%.6f %.6f))",
			lon, lat, lon+w, lat, lon+w+skew, lat+h, lon+skew, lat+h, lon, lat)}
	}
	return rows
}

// placeType is the object type the engine indexes the rows as.
func placeType() *objects.Type {
	return objects.NewType(objects.Type{APIName: "Place", PrimaryKey: []string{"id"}, TitleProperty: "id", Properties: []objects.Property{
		{APIName: "id", Type: objects.DataType{Kind: objects.KindLong}, Search: objects.SearchNumeric},
		{APIName: "location", Type: objects.DataType{Kind: objects.KindGeoPoint}, Search: objects.SearchNone},
		{APIName: "area", Type: objects.DataType{Kind: objects.KindGeoShape}, Search: objects.SearchNone},
	}})
}

func (r Row) object() (*objects.Object, error) {
	shape, err := objects.ParseGeoShape(r.Polygon)
	if err != nil {
		return nil, fmt.Errorf("row %d: %w", r.ID, err)
	}
	return &objects.Object{Values: []any{r.ID, objects.GeoPoint{Lon: r.Lon, Lat: r.Lat}, shape}}, nil
}
