package query

import (
	"fmt"
	"math"

	"github.com/golang/geo/s1"
	"github.com/golang/geo/s2"
	"github.com/ontoindex/ontoindex/objects"
	"github.com/peterstace/simplefeatures/geom"
)

// Geo filters, as Foundry's search defines them (docs/api.md):
//
//   - withinDistanceOf is on the sphere: the great-circle distance from
//     the center (github.com/golang/geo's s2 angle, times the earth's mean
//     radius, 6,371,008.8 m, as Lucene's haversine uses) at most Meters.
//   - bounding boxes and polygons are on the plane of longitude and
//     latitude in degrees, the way Lucene's LatLonPoint and LatLonShape
//     (which Foundry's search runs on) take them: a box's edges are
//     meridians and parallels, a polygon's edges straight lines in
//     degrees, and containment and intersection are decided by
//     github.com/peterstace/simplefeatures, boundaries included.
//
// A box whose west is east of its east crosses the antimeridian and is
// the two boxes either side of it. A polygon is taken as given: one that
// crosses the antimeridian is split into the parts either side, as
// GeoJSON (RFC 7946 3.1.9) asks. A distance near a pole or across the
// antimeridian needs nothing: its candidates come from s2's bound of the
// cap, and its test is on the sphere.

// GeoRelation is what a geo filter asks of a property's geometry.
type GeoRelation uint8

// Geo relations (the wire's geo query types).
const (
	_ GeoRelation = iota
	GeoWithinDistance
	GeoWithinBox
	GeoWithinPolygon
	GeoIntersectsBox
	GeoIntersectsPolygon
	GeoDisjointBox     // doesNotIntersectBoundingBox
	GeoDisjointPolygon // doesNotIntersectPolygon
)

var geoRelationNames = [...]string{GeoWithinDistance: "withinDistanceOf", GeoWithinBox: "withinBoundingBox",
	GeoWithinPolygon: "withinPolygon", GeoIntersectsBox: "intersectsBoundingBox", GeoIntersectsPolygon: "intersectsPolygon",
	GeoDisjointBox: "doesNotIntersectBoundingBox", GeoDisjointPolygon: "doesNotIntersectPolygon"}

func (r GeoRelation) String() string {
	if int(r) < len(geoRelationNames) && geoRelationNames[r] != "" {
		return geoRelationNames[r]
	}
	return fmt.Sprintf("geo(%d)", r)
}

// Within reports whether the relation applies to points only.
func (r GeoRelation) Within() bool {
	return r == GeoWithinDistance || r == GeoWithinBox || r == GeoWithinPolygon
}

// Box reports whether the relation's region is a bounding box.
func (r GeoRelation) Box() bool {
	return r == GeoWithinBox || r == GeoIntersectsBox || r == GeoDisjointBox
}

// Disjoint reports whether the relation is a doesNotIntersect.
func (r GeoRelation) Disjoint() bool { return r == GeoDisjointBox || r == GeoDisjointPolygon }

// EarthRadiusMeters is the earth's mean radius, the sphere of distances.
const EarthRadiusMeters = 6_371_008.7714

// GeoBox is a box of longitudes and latitudes in degrees; West > East
// crosses the antimeridian.
type GeoBox struct{ West, South, East, North float64 }

// Geo is a geo filter: a relation and its region. Make one with
// NewGeoDistance, NewGeoBox or NewGeoPolygon; it is read-only after.
type Geo struct {
	Relation GeoRelation
	Center   objects.GeoPoint // GeoWithinDistance
	Meters   float64          // GeoWithinDistance
	Box      GeoBox           // the box relations
	Polygon  geom.Geometry    // the polygon relations

	region geom.Geometry   // the box or polygon, as one geometry
	boxes  []geom.Envelope // a box relation's boxes
	center s2.LatLng
	angle  s1.Angle // Meters on the sphere
	bounds []Bounds
}

// Bounds is a box of the plane of degrees, MinX..MaxX longitudes and
// MinY..MaxY latitudes: where a geometry that matches must have a point.
type Bounds struct{ MinX, MinY, MaxX, MaxY float64 }

// NewGeoDistance is withinDistanceOf.
func NewGeoDistance(center objects.GeoPoint, meters float64) *Geo {
	g := &Geo{Relation: GeoWithinDistance, Center: center, Meters: meters}
	g.center = s2.LatLngFromDegrees(center.Lat, center.Lon)
	g.angle = s1.Angle(meters / EarthRadiusMeters)
	rect := s2.CapFromCenterAngle(s2.PointFromLatLng(g.center), g.angle).RectBound()
	const pad = 1e-9 // degrees: the bound's conversion must not cut a point on it
	deg := func(radians float64) float64 { return s1.Angle(radians).Degrees() }
	south, north := deg(rect.Lat.Lo)-pad, deg(rect.Lat.Hi)+pad
	switch {
	case rect.Lng.IsFull() || rect.Lat.Hi >= math.Pi/2 || rect.Lat.Lo <= -math.Pi/2: // a pole: every longitude
		g.bounds = []Bounds{{-180, south, 180, north}}
	case rect.Lng.IsInverted(): // across the antimeridian
		g.bounds = []Bounds{{deg(rect.Lng.Lo) - pad, south, 180, north}, {-180, south, deg(rect.Lng.Hi) + pad, north}}
	default:
		g.bounds = []Bounds{{deg(rect.Lng.Lo) - pad, south, deg(rect.Lng.Hi) + pad, north}}
	}
	return g
}

// NewGeoBox is a box relation (within, intersects or disjoint).
func NewGeoBox(r GeoRelation, box GeoBox) *Geo {
	g := &Geo{Relation: r, Box: box}
	if box.West <= box.East {
		g.bounds = []Bounds{{box.West, box.South, box.East, box.North}}
	} else {
		g.bounds = []Bounds{{box.West, box.South, 180, box.North}, {-180, box.South, box.East, box.North}}
	}
	parts := make([]geom.Geometry, len(g.bounds))
	for i, b := range g.bounds {
		g.boxes = append(g.boxes, geom.NewEnvelope(geom.XY{X: b.MinX, Y: b.MinY}, geom.XY{X: b.MaxX, Y: b.MaxY}))
		parts[i] = g.boxes[i].AsGeometry()
	}
	g.region = parts[0]
	if len(parts) > 1 {
		g.region = geom.NewGeometryCollection(parts).AsGeometry()
	}
	return g
}

// NewGeoPolygon is a polygon relation (within, intersects or disjoint)
// with a valid polygon.
func NewGeoPolygon(r GeoRelation, polygon geom.Geometry) *Geo {
	g := &Geo{Relation: r, Polygon: polygon, region: polygon}
	lo, hi, _ := polygon.Envelope().MinMaxXYs()
	g.bounds = []Bounds{{lo.X, lo.Y, hi.X, hi.Y}}
	return g
}

// Bounds are the boxes that hold every geometry the filter matches, but
// for a disjoint relation, which holds those its complement matches.
func (g *Geo) Bounds() []Bounds { return g.bounds }

// CoversBox reports whether the region of a box relation covers a box
// (edges included): a geometry whose bounding box it covers meets the
// region, so the index takes it as a match without a test. For the other
// relations it reports false.
func (g *Geo) CoversBox(b Bounds) bool {
	env := geom.NewEnvelope(geom.XY{X: b.MinX, Y: b.MinY}, geom.XY{X: b.MaxX, Y: b.MaxY})
	for _, r := range g.boxes { // set for box relations only
		if r.Covers(env) {
			return true
		}
	}
	return false
}

// Intersects reports whether a value (an objects.GeoPoint or
// objects.GeoShape) meets the filter's region, or for a distance is
// within it; a disjoint relation's Matches is its negation.
func (g *Geo) Intersects(v any) bool {
	switch x := v.(type) {
	case objects.GeoPoint:
		if g.Relation == GeoWithinDistance {
			return s2.LatLngFromDegrees(x.Lat, x.Lon).Distance(g.center) <= g.angle
		}
		return geom.Intersects(x.Geometry(), g.region)
	case objects.GeoShape:
		if g.Relation == GeoWithinDistance {
			return false // the API takes distances on points only
		}
		if len(g.boxes) > 0 {
			// A shape inside a box, or with a vertex in one, meets it: no
			// need for the full predicate, which takes the shape's edges
			// apart into an R-tree.
			env := x.Geometry.Envelope()
			for _, b := range g.boxes {
				if b.Covers(env) {
					return true
				}
			}
			coords := x.Geometry.DumpCoordinates()
			for i := range coords.Length() {
				xy := coords.GetXY(i)
				for _, b := range g.boxes {
					if b.Contains(xy) {
						return true
					}
				}
			}
		}
		if g.Polygon.IsPolygon() { // a vertex in the polygon meets it, and costs the polygon's edges only
			if coords := x.Geometry.DumpCoordinates(); coords.Length() > 0 {
				vertex := geom.NewPoint(geom.Coordinates{XY: coords.GetXY(0), Type: geom.DimXY}).AsGeometry()
				if geom.Intersects(vertex, g.region) {
					return true
				}
			}
		}
		return geom.Intersects(x.Geometry, g.region)
	}
	return false
}

// Matches reports whether a value passes the filter; null never does.
func (g *Geo) Matches(v any) bool {
	if v == nil {
		return false
	}
	return g.Intersects(v) != g.Relation.Disjoint()
}

// String renders the filter for messages and tests.
func (g *Geo) String() string {
	switch g.Relation {
	case GeoWithinDistance:
		return fmt.Sprintf("%s %gm of %v", g.Relation, g.Meters, g.Center)
	case GeoWithinBox, GeoIntersectsBox, GeoDisjointBox:
		return fmt.Sprintf("%s %v", g.Relation, g.Box)
	}
	return fmt.Sprintf("%s %s", g.Relation, g.Polygon.AsText())
}

// GeoFilter is a geo filter on a property.
func GeoFilter(property string, g *Geo) *Filter {
	return &Filter{Op: OpGeo, Property: property, Geo: g}
}
