package index

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/golang/geo/s1"
	"github.com/golang/geo/s2"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
	"github.com/peterstace/simplefeatures/geom"
)

// The geo oracle tests every object with the libraries' predicates
// (oracleGeoMeets), without the R-tree, its boxes or query.Geo's
// shortcuts: the engine's candidates, the matches it takes from their
// boxes and its updates must neither lose nor add a match.

func geoType() *objects.Type {
	return objects.NewType(objects.Type{APIName: "Place", PrimaryKey: []string{"id"}, TitleProperty: "id", Properties: []objects.Property{
		{APIName: "id", Type: objects.DataType{Kind: objects.KindLong}, Search: objects.SearchNumeric},
		{APIName: "kind", Type: objects.DataType{Kind: objects.KindString}, Search: objects.SearchKeyword},
		{APIName: "score", Type: objects.DataType{Kind: objects.KindDouble}, Search: objects.SearchNumeric},
		{APIName: "loc", Type: objects.DataType{Kind: objects.KindGeoPoint}, Search: objects.SearchNone},
		{APIName: "area", Type: objects.DataType{Kind: objects.KindGeoShape}, Search: objects.SearchNone},
	}})
}

// randLonLat draws a place: anywhere, or near the antimeridian, a pole or
// a small hot spot, where the edge cases are.
func randLonLat(r *rand.Rand) (lon, lat float64) {
	switch r.IntN(4) {
	case 0:
		lon = 178 + r.Float64()*2
		if r.IntN(2) == 0 {
			lon = -lon
		}
		return lon, r.Float64()*40 - 20
	case 1:
		return r.Float64()*360 - 180, 85 + r.Float64()*5
	case 2:
		return 10 + r.Float64()*2, 50 + r.Float64()*2
	}
	return r.Float64()*360 - 180, r.Float64()*180 - 90
}

func clampLon(x float64) float64 { return max(-180, min(180, x)) }
func clampLat(y float64) float64 { return max(-90, min(90, y)) }

// randShape draws a valid geometry around a place: a box, a triangle, a
// line, a point or two boxes.
func randShape(r *rand.Rand) objects.GeoShape {
	for {
		if s, ok := tryShape(r); ok {
			return s
		}
	}
}

// tryShape draws a shape that may be invalid (clamped to the earth's
// edge, parts of a multipolygon may overlap).
func tryShape(r *rand.Rand) (objects.GeoShape, bool) {
	lon, lat := randLonLat(r)
	w, h := r.Float64()*3+0.01, r.Float64()*3+0.01
	box := func(x, y float64) string {
		x0, y0, x1, y1 := clampLon(x), clampLat(y), clampLon(x+w), clampLat(y+h)
		if x1 == x0 {
			x0 = x1 - 0.5
		}
		if y1 == y0 {
			y0 = y1 - 0.5
		}
		return fmt.Sprintf("((%g %g,%g %g,%g %g,%g %g,%g %g))", x0, y0, x1, y0, x1, y1, x0, y1, x0, y0)
	}
	var wkt string
	switch r.IntN(5) {
	case 0:
		wkt = "POLYGON" + box(lon-w/2, lat-h/2)
	case 1:
		x0, y0 := clampLon(lon), clampLat(lat)
		wkt = fmt.Sprintf("POLYGON((%g %g,%g %g,%g %g,%g %g))", x0, y0, clampLon(x0+w), y0, x0, clampLat(y0+h), x0, y0)
		if clampLon(x0+w) == x0 || clampLat(y0+h) == y0 {
			wkt = fmt.Sprintf("POINT(%g %g)", x0, y0)
		}
	case 2:
		wkt = fmt.Sprintf("LINESTRING(%g %g,%g %g)", clampLon(lon), clampLat(lat), clampLon(lon+w), clampLat(lat-h))
	case 3:
		wkt = fmt.Sprintf("POINT(%g %g)", lon, lat)
	default:
		wkt = "MULTIPOLYGON(" + box(lon-w*2, lat) + "," + box(lon+w*2, lat) + ")"
	}
	s, err := objects.ParseGeoShape(wkt)
	return s, err == nil
}

func randGeoObject(r *rand.Rand, id int64) *objects.Object {
	v := []any{id, []string{"a", "b", "c"}[r.IntN(3)], r.Float64() * 100, nil, nil}
	if r.IntN(8) != 0 {
		lon, lat := randLonLat(r)
		v[3] = objects.GeoPoint{Lon: lon, Lat: lat}
	}
	if r.IntN(8) != 0 {
		v[4] = randShape(r)
	}
	return &objects.Object{Values: v}
}

// reshape moves a point a little or gives a shape another form, the edits
// an incremental build sees.
func reshape(r *rand.Rand, o *objects.Object) *objects.Object {
	v := slices.Clone(o.Values)
	if p, ok := v[3].(objects.GeoPoint); ok && r.IntN(2) == 0 {
		v[3] = objects.GeoPoint{Lon: clampLon(p.Lon + r.Float64() - 0.5), Lat: clampLat(p.Lat + r.Float64() - 0.5)}
	} else if r.IntN(4) == 0 {
		v[3] = nil
	} else {
		lon, lat := randLonLat(r)
		v[3] = objects.GeoPoint{Lon: lon, Lat: lat}
	}
	if r.IntN(5) == 0 {
		v[4] = nil
	} else {
		v[4] = randShape(r)
	}
	v[2] = r.Float64() * 100
	return &objects.Object{Values: v}
}

func randPolygon(r *rand.Rand) geom.Geometry {
	for {
		lon, lat := randLonLat(r)
		w, h := r.Float64()*30+0.1, r.Float64()*30+0.1
		x0, y0, x1, y1 := clampLon(lon-w), clampLat(lat-h), clampLon(lon+w), clampLat(lat+h)
		// a pentagon with a notch, so that it is not its bounding box
		wkt := fmt.Sprintf("POLYGON((%g %g,%g %g,%g %g,%g %g,%g %g,%g %g))", x0, y0, x1, y0, x1, y1, (x0+x1)/2, (y0+y1)/2, x0, y1, x0, y0)
		if s, err := objects.ParseGeoShape(wkt); err == nil {
			return s.Geometry
		}
	}
}

func randGeoFilter(r *rand.Rand) *query.Filter {
	switch n := r.IntN(9); n {
	case 0, 1:
		lon, lat := randLonLat(r)
		meters := []float64{1000, 50_000, 300_000, 2_000_000, 15_000_000}[r.IntN(5)]
		return query.GeoFilter("loc", query.NewGeoDistance(objects.GeoPoint{Lon: lon, Lat: lat}, meters))
	case 2, 3, 4:
		lon, lat := randLonLat(r)
		w, h := r.Float64()*40, r.Float64()*30
		box := query.GeoBox{West: lon, South: clampLat(lat - h), East: lon + w, North: clampLat(lat + h)}
		if box.East > 180 {
			box.East -= 360 // across the antimeridian: west > east
		}
		rel := []query.GeoRelation{query.GeoWithinBox, query.GeoIntersectsBox, query.GeoDisjointBox}[n-2]
		prop := "area"
		if rel == query.GeoWithinBox || r.IntN(3) == 0 {
			prop = "loc"
		}
		return query.GeoFilter(prop, query.NewGeoBox(rel, box))
	default:
		rel := []query.GeoRelation{query.GeoWithinPolygon, query.GeoIntersectsPolygon, query.GeoDisjointPolygon, query.GeoIntersectsPolygon}[n-5]
		prop := "area"
		if rel == query.GeoWithinPolygon {
			prop = "loc"
		}
		return query.GeoFilter(prop, query.NewGeoPolygon(rel, randPolygon(r)))
	}
}

// randGeoQuery combines a geo filter with others.
func randGeoQuery(r *rand.Rand) *query.Filter {
	f := randGeoFilter(r)
	switch r.IntN(5) {
	case 0:
		return query.And(f, query.Eq("kind", "a"))
	case 1:
		return query.Or(f, query.Compare(query.OpGt, "score", 90.0))
	case 2:
		return query.Not(f)
	case 3:
		return query.And(f, randGeoFilter(r))
	}
	return f
}

func geoOracleMatch(t *objects.Type, f *query.Filter, o *objects.Object) bool {
	switch f.Op {
	case query.OpAnd:
		for _, k := range f.Kids {
			if !geoOracleMatch(t, k, o) {
				return false
			}
		}
		return true
	case query.OpOr:
		return slices.ContainsFunc(f.Kids, func(k *query.Filter) bool { return geoOracleMatch(t, k, o) })
	case query.OpNot:
		return !geoOracleMatch(t, f.Kids[0], o)
	case query.OpGeo:
		v := o.Values[t.PropertyIndex(f.Property)]
		return v != nil && oracleGeoMeets(f.Geo, v) != f.Geo.Relation.Disjoint()
	}
	return (&oracle{t: t}).match(f, o, nil)
}

// oracleGeoMeets decides whether a value meets a filter's region with the
// libraries' predicates alone, without the shortcuts of query.Geo or the
// index: s2's distance on the sphere, simplefeatures' Intersects with the
// box (split at the antimeridian) or the polygon.
func oracleGeoMeets(g *query.Geo, v any) bool {
	var value geom.Geometry
	switch x := v.(type) {
	case objects.GeoPoint:
		if g.Relation == query.GeoWithinDistance {
			center := s2.LatLngFromDegrees(g.Center.Lat, g.Center.Lon)
			return s2.LatLngFromDegrees(x.Lat, x.Lon).Distance(center) <= s1.Angle(g.Meters/query.EarthRadiusMeters)
		}
		value = x.Geometry()
	case objects.GeoShape:
		if g.Relation == query.GeoWithinDistance {
			return false
		}
		value = x.Geometry
	default:
		panic(fmt.Sprintf("a %T geo value", v))
	}
	if !g.Relation.Box() {
		return geom.Intersects(value, g.Polygon)
	}
	box := func(w, s, e, n float64) geom.Geometry {
		return geom.NewEnvelope(geom.XY{X: w, Y: s}, geom.XY{X: e, Y: n}).AsGeometry()
	}
	b := g.Box
	if b.West <= b.East {
		return geom.Intersects(value, box(b.West, b.South, b.East, b.North))
	}
	return geom.Intersects(value, box(b.West, b.South, 180, b.North)) || geom.Intersects(value, box(-180, b.South, b.East, b.North))
}

func checkGeoSearches(t *testing.T, r *rand.Rand, s *Snapshot, want state, round int) {
	t.Helper()
	keys := geoKeys(t, s, want)
	for i := range oracleCases(40) {
		sorts := [][]query.Sort{nil, {{Property: "score", Desc: true}}}[r.IntN(2)]
		checkGeoFilter(t, r, s, want, keys, randGeoQuery(r), sorts, fmt.Sprintf("round %d, %d", round, i))
	}
}

func geoKeys(t *testing.T, s *Snapshot, want state) map[uint32][]byte {
	keys := map[uint32][]byte{}
	for d, o := range want {
		keys[d] = mustKey(t, s.Type(), o)
	}
	return keys
}

// checkGeoFilter checks one filter against the oracle: every page of a
// search in every plan, its total, and its count.
func checkGeoFilter(t *testing.T, r *rand.Rand, s *Snapshot, want state, keys map[uint32][]byte, f *query.Filter, sorts []query.Sort, label string) {
	t.Helper()
	typ := s.Type()
	var exp []uint32
	for d, o := range want {
		if geoOracleMatch(typ, f, o) {
			exp = append(exp, d)
		}
	}
	or := &oracle{t: typ}
	slices.SortFunc(exp, func(a, b uint32) int {
		if sorts != nil {
			if c := or.sortCompare(want, sorts, a, b); c != 0 {
				return c
			}
		}
		return bytes.Compare(keys[a], keys[b])
	})
	pages := []int{7, 100, 5000}
	if len(exp) > 300 {
		pages = pages[1:] // each page costs the matches: a page of 7 over thousands is slow, not harder
	}
	q := query.Search{Filter: f, Sort: sorts, PageSize: pages[r.IntN(len(pages))]}
	for _, opt := range []searchOptions{{}, {plan: PlanWalk}, {plan: PlanCollect}, {plan: PlanCollect, sparse: true}} {
		got, total, err := pageAll(t, s, q, opt)
		if err != nil {
			t.Fatalf("%s: %v %+v: %v", label, f, opt, err)
		}
		if total != int64(len(exp)) || !slices.Equal(got, exp) {
			t.Fatalf("%s: %v %+v: total %d, want %d\ngot  %v\nwant %v", label, f, opt, total, len(exp), head(got), head(exp))
		}
	}
	ar, err := s.Aggregate(t.Context(), &query.Aggregate{Filter: f, Metrics: []query.Metric{{Kind: query.Count}}}, nil)
	if err != nil || len(ar.Groups) != 1 || ar.Groups[0].Count != int64(len(exp)) {
		t.Fatalf("%s: count %v = %+v, %v; want %d", label, f, ar, err, len(exp))
	}
}

// sortCompare orders two documents by sorts, nulls last.
func (or *oracle) sortCompare(want state, sorts []query.Sort, a, b uint32) int {
	for _, s := range sorts {
		i := or.t.PropertyIndex(s.Property)
		va, vb := want[a].Values[i], want[b].Values[i]
		switch {
		case va == nil && vb == nil:
			continue
		case va == nil:
			return 1
		case vb == nil:
			return -1
		}
		c := oracleCompare(va, vb)
		if s.Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// TestSnapshot_Search_geo checks geo filters, alone and combined, sorted
// and counted, against the oracle after builds, rounds of updates that
// move points, reshape polygons, delete and insert (enough to load the
// R-tree again), and a save and load.
func TestSnapshot_Search_geo(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 1))
	typ := geoType()
	want := state{}
	for i := range 3000 {
		want[uint32(i)] = randGeoObject(r, int64(i))
	}
	s := mustBuild(t, typ, want)
	checkGeoSearches(t, r, s, want, 0)
	next := int64(len(want))
	for round := 1; round <= 4; round++ {
		var changes []Change
		alloc := s.NewAllocator()
		for _, d := range want.docs() {
			o := want[d]
			switch n := r.IntN(10); {
			case n == 0:
				changes = append(changes, Change{Doc: d})
				delete(want, d)
			case n < 4:
				no := reshape(r, o)
				changes = append(changes, Change{Doc: d, Key: mustKey(t, typ, no), Object: no})
				want[d] = no
			}
		}
		for range 100 {
			d := alloc.Next()
			if _, taken := want[d]; taken || slices.ContainsFunc(changes, func(c Change) bool { return c.Doc == d }) {
				continue
			}
			o := randGeoObject(r, next)
			next++
			changes = append(changes, Change{Doc: d, Key: mustKey(t, typ, o), Object: o})
			want[d] = o
		}
		var err error
		if s, err = s.Apply(changes, uint64(round+1)); err != nil {
			t.Fatal(err)
		}
		checkGeoSearches(t, r, s, want, round)
	}
	var buf bytes.Buffer
	if _, err := s.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	loaded, err := Read(&buf, typ)
	if err != nil {
		t.Fatal(err)
	}
	checkGeoSearches(t, r, loaded, want, 99)
}

func TestSnapshot_Search_geoErrors(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	typ := geoType()
	s := mustBuild(t, typ, state{0: randGeoObject(r, 0)})
	tests := []struct {
		f    *query.Filter
		want string
	}{
		{query.GeoFilter("area", query.NewGeoDistance(objects.GeoPoint{}, 10)), "applies to geopoint properties"},
		{query.GeoFilter("score", query.NewGeoBox(query.GeoIntersectsBox, query.GeoBox{West: 0, South: 0, East: 1, North: 1})), "not a geopoint or geoshape"},
	}
	for _, tt := range tests {
		_, err := s.Search(t.Context(), &query.Search{Filter: tt.f, PageSize: 10})
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte(tt.want)) {
			t.Errorf("%v: err = %v, want %q", tt.f, err, tt.want)
		}
	}
}
