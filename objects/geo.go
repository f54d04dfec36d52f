package objects

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/peterstace/simplefeatures/geom"
)

// Geo values. A geopoint property holds a GeoPoint, a geoshape property a
// GeoShape. Both are read from their columns in every form the config
// allows (geo_arrow.go) and checked there: a value that does not parse,
// lies outside longitude [-180, 180] and latitude [-90, 90], or is not a
// valid geometry (an open ring, a self-intersecting polygon) is an invalid
// value, so its row follows onInvalidRow. Geometries are parsed and
// validated by github.com/peterstace/simplefeatures; coordinates are
// longitude, latitude (x, y) as GeoJSON and WKT have them.

// GeoPoint is a point on the earth in degrees.
type GeoPoint struct {
	Lon, Lat float64
}

// String renders the point as "lat,lon", the text form a column may hold.
func (p GeoPoint) String() string {
	return strconv.FormatFloat(p.Lat, 'g', -1, 64) + "," + strconv.FormatFloat(p.Lon, 'g', -1, 64)
}

// Geometry is the point as a geometry, for the predicates of the index.
func (p GeoPoint) Geometry() geom.Geometry {
	return geom.NewPoint(geom.Coordinates{XY: geom.XY{X: p.Lon, Y: p.Lat}, Type: geom.DimXY}).AsGeometry()
}

// GeoJSON is the wire form: a GeoJSON Point, coordinates [lon, lat].
func (p GeoPoint) GeoJSON() map[string]any {
	return map[string]any{"type": "Point", "coordinates": []any{jsonFloat(p.Lon), jsonFloat(p.Lat)}}
}

func jsonFloat(f float64) json.Number { return json.Number(strconv.FormatFloat(f, 'g', -1, 64)) }

// GeoShape is a valid, non-empty two-dimensional geometry.
type GeoShape struct {
	Geometry geom.Geometry
}

// String renders the shape as WKT.
func (s GeoShape) String() string { return s.Geometry.AsText() }

// WKB is the shape's well-known binary form, as the store and the index
// keep it.
func (s GeoShape) WKB() []byte { return s.Geometry.AsBinary() }

// GeoJSON is the wire form: the GeoJSON geometry.
func (s GeoShape) GeoJSON() json.RawMessage {
	b, err := s.Geometry.MarshalJSON()
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

// ValidLonLat reports whether a longitude and latitude are finite degrees
// on the earth.
func ValidLonLat(lon, lat float64) error {
	switch {
	case math.IsNaN(lon) || math.IsNaN(lat):
		return fmt.Errorf("coordinates are NaN")
	case lat < -90 || lat > 90:
		return fmt.Errorf("latitude %g is outside [-90, 90]", lat)
	case lon < -180 || lon > 180:
		return fmt.Errorf("longitude %g is outside [-180, 180]", lon)
	}
	return nil
}

// NewGeoPoint checks a point's coordinates.
func NewGeoPoint(lon, lat float64) (GeoPoint, error) {
	if err := ValidLonLat(lon, lat); err != nil {
		return GeoPoint{}, err
	}
	return GeoPoint{Lon: lon, Lat: lat}, nil
}

// ParseGeoPoint reads a point from "lat,lon" or a GeoJSON Point.
func ParseGeoPoint(s string) (GeoPoint, error) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "{") {
		g, err := geom.UnmarshalGeoJSON([]byte(t))
		if err != nil {
			return GeoPoint{}, fmt.Errorf("not a GeoJSON Point: %w", err)
		}
		pt, ok := g.AsPoint()
		if !ok {
			return GeoPoint{}, fmt.Errorf("a GeoJSON %s is not a Point", g.Type())
		}
		xy, ok := pt.XY()
		if !ok {
			return GeoPoint{}, fmt.Errorf("an empty GeoJSON Point")
		}
		return NewGeoPoint(xy.X, xy.Y)
	}
	latText, lonText, ok := strings.Cut(t, ",")
	if !ok {
		return GeoPoint{}, fmt.Errorf("%q is neither \"lat,lon\" nor a GeoJSON Point", truncate(s))
	}
	lat, err1 := strconv.ParseFloat(strings.TrimSpace(latText), 64)
	lon, err2 := strconv.ParseFloat(strings.TrimSpace(lonText), 64)
	if err1 != nil || err2 != nil {
		return GeoPoint{}, fmt.Errorf("%q is not \"lat,lon\" in degrees", truncate(s))
	}
	return NewGeoPoint(lon, lat)
}

// ParseGeoShape reads a geometry from GeoJSON (text starting with "{")
// or WKT.
func ParseGeoShape(s string) (GeoShape, error) {
	t := strings.TrimSpace(s)
	var g geom.Geometry
	var err error
	if strings.HasPrefix(t, "{") {
		if g, err = geom.UnmarshalGeoJSON([]byte(t)); err != nil {
			return GeoShape{}, fmt.Errorf("not a GeoJSON geometry: %w", err)
		}
	} else if g, err = geom.UnmarshalWKT(t); err != nil {
		return GeoShape{}, fmt.Errorf("neither GeoJSON nor WKT: %w", err)
	}
	return newGeoShape(g)
}

// GeoShapeFromWKB reads a geometry from well-known binary.
func GeoShapeFromWKB(b []byte) (GeoShape, error) {
	if err := checkWKBCounts(b); err != nil {
		return GeoShape{}, fmt.Errorf("not WKB: %w", err)
	}
	g, err := geom.UnmarshalWKB(b)
	if err != nil {
		return GeoShape{}, fmt.Errorf("not WKB: %w", err)
	}
	return newGeoShape(g)
}

// newGeoShape keeps the x and y of a parsed geometry and checks that it
// is on the earth and not empty (an empty geometry has no place to index).
func newGeoShape(g geom.Geometry) (GeoShape, error) {
	if g.IsEmpty() {
		return GeoShape{}, fmt.Errorf("an empty %s", g.Type())
	}
	g = g.Force2D()
	lo, hi, _ := g.Envelope().MinMaxXYs()
	if err := ValidLonLat(lo.X, lo.Y); err != nil {
		return GeoShape{}, err
	}
	if err := ValidLonLat(hi.X, hi.Y); err != nil {
		return GeoShape{}, err
	}
	return GeoShape{Geometry: g}, nil
}

// decodeGeoShape reads back a shape the store or the index wrote: it was
// validated when it was read from its column, but a damaged file must
// still not make the parser allocate what its counts claim.
func decodeGeoShape(b []byte) (GeoShape, error) {
	if err := checkWKBCounts(b); err != nil {
		return GeoShape{}, err
	}
	g, err := geom.UnmarshalWKB(b, geom.NoValidate{})
	if err != nil {
		return GeoShape{}, err
	}
	return GeoShape{Geometry: g}, nil
}

// DecodeGeoShape is decodeGeoShape for the index, which keeps shapes as
// WKB.
func DecodeGeoShape(b []byte) (GeoShape, error) { return decodeGeoShape(b) }

// AppendGeoPoint appends the 16-byte form of a point (longitude, latitude,
// little-endian float64s) the store and the index keep.
func AppendGeoPoint(b []byte, p GeoPoint) []byte {
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(p.Lon))
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(p.Lat))
}

// DecodeGeoPoint reads the form AppendGeoPoint writes.
func DecodeGeoPoint(b []byte) (GeoPoint, bool) {
	if len(b) < 16 {
		return GeoPoint{}, false
	}
	return GeoPoint{Lon: math.Float64frombits(binary.LittleEndian.Uint64(b)),
		Lat: math.Float64frombits(binary.LittleEndian.Uint64(b[8:]))}, true
}

// Equal reports whether two shapes are the same geometry, vertex for
// vertex (the store compares rows by their encoding the same way).
func (s GeoShape) Equal(o GeoShape) bool { return bytes.Equal(s.WKB(), o.WKB()) }

func truncate(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}
