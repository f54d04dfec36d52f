package wire

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// Geo queries on the wire (@osdk/client's $within and $intersects) and
// the relation each asks for. Which are on the sphere and which on the
// plane: indexer/query/geo.go and docs/api.md.
var geoQueries = map[string]query.GeoRelation{
	"withinDistanceOf":            query.GeoWithinDistance,
	"withinBoundingBox":           query.GeoWithinBox,
	"withinPolygon":               query.GeoWithinPolygon,
	"intersectsBoundingBox":       query.GeoIntersectsBox,
	"intersectsPolygon":           query.GeoIntersectsPolygon,
	"doesNotIntersectBoundingBox": query.GeoDisjointBox,
	"doesNotIntersectPolygon":     query.GeoDisjointPolygon,
}

// metersPer is the length of each DistanceUnit in meters.
var metersPer = map[string]float64{
	"MILLIMETERS": 0.001, "CENTIMETERS": 0.01, "METERS": 1, "KILOMETERS": 1000,
	"INCHES": 0.0254, "FEET": 0.3048, "YARDS": 0.9144, "MILES": 1609.344, "NAUTICAL_MILES": 1852,
}

// geo decodes one geo query on a geopoint or geoshape property.
func (d *WhereDecoder) geo(typ string, head Fields) (*query.Filter, error) {
	rel := geoQueries[typ]
	q, err := whereOf(head)
	if err != nil {
		return nil, Malformed(typ, err.Error())
	}
	if q.Fuzzy != nil || q.RelativeStart != nil || q.RelativeEnd != nil || q.TimeZoneID != nil {
		return nil, Malformed(typ, typ+" takes field or propertyIdentifier, and value")
	}
	p, err := d.property(typ, q)
	if err != nil {
		return nil, err
	}
	switch k := p.Type.Kind; {
	case k != objects.KindGeoPoint && k != objects.KindGeoShape:
		return nil, notSupported(typ, p, fmt.Sprintf("%s applies to geopoint and geoshape properties; %s is a %s", typ, p.APIName, p.Type))
	case rel.Within() && k != objects.KindGeoPoint:
		return nil, notSupported(typ, p, fmt.Sprintf("%s applies to geopoint properties; %s is a geoshape: use intersectsBoundingBox or intersectsPolygon", typ, p.APIName))
	}
	if IsNull(q.Value) {
		return nil, Malformed(typ, typ+" needs a value")
	}
	var g *query.Geo
	switch rel {
	case query.GeoWithinDistance:
		g, err = distanceValue(q.Value)
	case query.GeoWithinBox, query.GeoIntersectsBox, query.GeoDisjointBox:
		var box query.GeoBox
		if box, err = boxValue(q.Value); err == nil {
			g = query.NewGeoBox(rel, box)
		}
	default:
		var polygon objects.GeoShape
		if polygon, err = polygonValue(q.Value); err == nil {
			g = query.NewGeoPolygon(rel, polygon.Geometry)
		}
	}
	if err != nil {
		return nil, filterValueErr(p, typ, q.Value, err.Error())
	}
	return query.GeoFilter(p.APIName, g), nil
}

// wirePoint is a GeoJSON Point: {type: "Point", coordinates: [lon, lat]}.
type wirePoint struct {
	Type        string    `json:"type"`
	Coordinates []float64 `json:"coordinates"`
}

func (w *wirePoint) point(what string) (objects.GeoPoint, error) {
	if w == nil || w.Type != "Point" || len(w.Coordinates) < 2 {
		return objects.GeoPoint{}, fmt.Errorf(`%s must be a GeoJSON Point {"type": "Point", "coordinates": [longitude, latitude]}`, what)
	}
	p, err := objects.NewGeoPoint(w.Coordinates[0], w.Coordinates[1])
	if err != nil {
		return p, fmt.Errorf("%s: %w", what, err)
	}
	return p, nil
}

func distanceValue(raw json.RawMessage) (*query.Geo, error) {
	var v struct {
		Center   *wirePoint `json:"center"`
		Distance *struct {
			Value *float64 `json:"value"`
			Unit  string   `json:"unit"`
		} `json:"distance"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("a center point and a distance {value, unit}")
	}
	center, err := v.Center.point("center")
	if err != nil {
		return nil, err
	}
	if v.Distance == nil || v.Distance.Value == nil {
		return nil, fmt.Errorf("a distance {value, unit}")
	}
	per, ok := metersPer[v.Distance.Unit]
	if !ok {
		return nil, fmt.Errorf("a distance unit: MILLIMETERS, CENTIMETERS, METERS, KILOMETERS, INCHES, FEET, YARDS, MILES or NAUTICAL_MILES")
	}
	meters := *v.Distance.Value * per
	if meters < 0 || math.IsNaN(meters) || math.IsInf(meters, 0) {
		return nil, fmt.Errorf("a distance of zero or more")
	}
	return query.NewGeoDistance(center, meters), nil
}

func boxValue(raw json.RawMessage) (query.GeoBox, error) {
	var v struct {
		TopLeft     *wirePoint `json:"topLeft"`
		BottomRight *wirePoint `json:"bottomRight"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return query.GeoBox{}, fmt.Errorf("a bounding box {topLeft, bottomRight} of GeoJSON Points")
	}
	topLeft, err := v.TopLeft.point("topLeft")
	if err != nil {
		return query.GeoBox{}, err
	}
	bottomRight, err := v.BottomRight.point("bottomRight")
	if err != nil {
		return query.GeoBox{}, err
	}
	if topLeft.Lat < bottomRight.Lat {
		return query.GeoBox{}, fmt.Errorf("a bounding box whose topLeft latitude (%g) is not below its bottomRight latitude (%g)", topLeft.Lat, bottomRight.Lat)
	}
	return query.GeoBox{West: topLeft.Lon, North: topLeft.Lat, East: bottomRight.Lon, South: bottomRight.Lat}, nil
}

func polygonValue(raw json.RawMessage) (objects.GeoShape, error) {
	var v struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(raw, &v); err != nil || v.Type != "Polygon" {
		return objects.GeoShape{}, fmt.Errorf(`a GeoJSON Polygon {"type": "Polygon", "coordinates": [[[longitude, latitude], ...]]}`)
	}
	s, err := objects.ParseGeoShape(string(raw))
	if err != nil {
		return s, fmt.Errorf("a valid GeoJSON Polygon (closed rings of four or more positions, not crossing themselves): %v", err)
	}
	return s, nil
}
