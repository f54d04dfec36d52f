package opensearch

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// dsl renders a query for comparison with a literal.
func dsl(t *testing.T, q any) string {
	t.Helper()
	raw, err := json.Marshal(q)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func TestTranslator_filter(t *testing.T) {
	tr := translator{typ: geoItemType()}
	key := []byte{0x01, 0x02}
	tests := []struct {
		name   string
		filter *query.Filter
		want   string
	}{
		{"nil", nil, `{"match_all":{}}`},
		{"and of none", query.And(), `{"match_all":{}}`},
		{"or of none", query.Or(), `{"match_none":{}}`},
		{"not", query.Not(query.Eq("city", "Oslo")), `{"bool":{"must_not":[{"term":{"city":"Oslo"}}]}}`},
		{"or", query.Or(query.Eq("visits", int64(3)), query.IsNull("visits", true)),
			`{"bool":{"minimum_should_match":1,"should":[{"term":{"visits":3}},{"term":{"__nulls":"visits"}}]}}`},
		{"keys", query.Keys(key), `{"terms":{"__key":["` + objects.DocID(key) + `"]}}`},
		{"not null", query.IsNull("tags", false), `{"bool":{"must_not":[{"term":{"__nulls":"tags"}}]}}`},
		{"null of a field kept in _source only", query.IsNull("blob", true), `{"term":{"__nulls":"blob"}}`},
		{"eq on text is on the exact value", query.Eq("name", "Amber"), `{"term":{"name.keyword":"Amber"}}`},
		{"struct field", query.Eq("crew.size", int64(4)), `{"term":{"crew.size":4}}`},
		{"in", query.In("day", objects.Date(19000)), `{"terms":{"day":["2022-01-08"]}}`},
		{"in of none", query.In("day"), `{"match_all":{}}`},
		{"range", query.Compare(query.OpGte, "at", time.UnixMilli(1.7e12).UTC()), `{"range":{"at":{"gte":"2023-11-14T22:13:20Z"}}}`},
		{"negative zero", query.Compare(query.OpLt, "balance", math.Copysign(0, -1)), `{"range":{"balance":{"lt":-0.0}}}`},
		{"startsWith keyword", query.Text(query.OpStartsWith, "code", "c01"), `{"prefix":{"code":{"value":"c01"}}}`},
		{"startsWith text is a phrase prefix", query.Text(query.OpStartsWith, "name", "Amber"), `{"prefix":{"name":{"value":"amber"}}}`},
		{"all terms, analyzed here", query.Text(query.OpAllTerms, "notes", "Cedar, DELTA"),
			`{"bool":{"filter":[{"term":{"notes":"cedar"}},{"term":{"notes":"delta"}}]}}`},
		{"fuzzy", &query.Filter{Op: query.OpAnyTerm, Property: "name", Text: "ab cedar kestrel", Fuzzy: true},
			`{"bool":{"minimum_should_match":1,"should":[{"term":{"name":"ab"}},` +
				`{"fuzzy":{"name":{"fuzziness":1,"prefix_length":0,"rewrite":"constant_score","transpositions":true,"value":"cedar"}}},` +
				`{"fuzzy":{"name":{"fuzziness":2,"prefix_length":0,"rewrite":"constant_score","transpositions":true,"value":"kestrel"}}}]}}`},
		{"phrase", query.Text(query.OpPhrase, "name", "cedar-delta"),
			`{"span_near":{"clauses":[{"span_term":{"name":"cedar"}},{"span_term":{"name":"delta"}}],"in_order":true,"slop":0}}`},
		{"phrase prefix", query.Text(query.OpPhrasePrefix, "name", "cedar del"),
			`{"span_near":{"clauses":[{"span_term":{"name":"cedar"}},{"span_multi":{"match":{"prefix":{"name":{"value":"del"}}}}}],"in_order":true,"slop":0}}`},
		{"box across the antimeridian", query.GeoFilter("loc", query.NewGeoBox(query.GeoDisjointBox, query.GeoBox{West: 170, South: -10, East: -170, North: 10})),
			`{"bool":{"filter":[{"exists":{"field":"loc"}}],"must_not":[{"bool":{"minimum_should_match":1,"should":[` +
				`{"geo_bounding_box":{"loc":{"bottom_right":{"lat":-10,"lon":180},"top_left":{"lat":10,"lon":170}}}},` +
				`{"geo_bounding_box":{"loc":{"bottom_right":{"lat":-10,"lon":-170},"top_left":{"lat":10,"lon":-180}}}}]}}]}}`},
		{"shape box across the antimeridian", query.GeoFilter("area", query.NewGeoBox(query.GeoDisjointBox, query.GeoBox{West: 170, South: -10, East: -170, North: 10})),
			`{"bool":{"filter":[{"exists":{"field":"area"}}],"must_not":[{"bool":{"minimum_should_match":1,"should":[` +
				`{"geo_shape":{"area":{"relation":"intersects","shape":{"coordinates":[[170,10],[180,-10]],"type":"envelope"}}}},` +
				`{"geo_shape":{"area":{"relation":"intersects","shape":{"coordinates":[[-180,10],[-170,-10]],"type":"envelope"}}}}]}}]}}`},
		{"shape polygon", query.GeoFilter("area", query.NewGeoPolygon(query.GeoIntersectsPolygon, mustShape(t, "POLYGON((0 0,0 1,1 1,0 0))").Geometry)),
			`{"geo_shape":{"area":{"relation":"intersects","shape":{"type":"Polygon","coordinates":[[[0,0],[0,1],[1,1],[0,0]]]}}}}`},
		{"shape polygon wider than 180 degrees, rewound", query.GeoFilter("area", query.NewGeoPolygon(query.GeoIntersectsPolygon, mustShape(t, "POLYGON((-170 0,-170 1,170 1,-170 0))").Geometry)),
			`{"geo_shape":{"area":{"relation":"intersects","shape":{"type":"Polygon","coordinates":[[[-170,0],[170,1],[-170,1],[-170,0]]]}}}}`},
		{"interval match", query.Interval("name", &query.Rule{Kind: query.RuleMatch, Query: "Cedar, delta", Ordered: true, MaxGaps: 2}),
			`{"intervals":{"name":{"match":{"analyzer":"whitespace","max_gaps":2,"ordered":true,"query":"cedar delta"}}}}`},
		{"interval anyOf", query.Interval("notes", &query.Rule{Kind: query.RuleAnyOf, Rules: []*query.Rule{
			{Kind: query.RuleFuzzy, Query: "Cedar", Fuzziness: -1}, {Kind: query.RulePrefix, Query: "cedar del"}, {Kind: query.RuleMatch, Query: "a b", MaxGaps: 99}}}),
			`{"intervals":{"notes":{"any_of":{"intervals":[` +
				`{"fuzzy":{"analyzer":"keyword","fuzziness":1,"prefix_length":0,"term":"cedar","transpositions":true}},` +
				`{"all_of":{"intervals":[{"match":{"analyzer":"whitespace","max_gaps":0,"ordered":true,"query":"cedar"}},{"prefix":{"analyzer":"keyword","prefix":"del"}}],"max_gaps":0,"ordered":true}},` +
				`{"match":{"analyzer":"whitespace","max_gaps":99,"ordered":false,"query":"a b"}}]}}}}`},
		{"distance", query.GeoFilter("loc", query.NewGeoDistance(objects.GeoPoint{Lon: 2, Lat: 48}, 1500)),
			`{"geo_distance":{"distance":"1500m","distance_type":"arc","loc":{"lat":48,"lon":2}}}`},
		{"wildcard", query.Text(query.OpWildcard, "city", "O?l*"),
			`{"regexp":{"city":{"flags":"NONE","max_determinized_states":100000,"value":"((O)[^\\\n](l)([^\\\n])*)"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tr.filter(tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			if s := dsl(t, got); s != tt.want {
				t.Errorf("query\n got %s\nwant %s", s, tt.want)
			}
		})
	}
}

func TestTranslator_filterRefused(t *testing.T) {
	tr := translator{typ: geoItemType()}
	tests := []struct {
		name   string
		filter *query.Filter
		want   string
	}{
		{"no such property", query.Eq("nope", "x"), `has no property "nope"`},
		{"not searchable", query.Eq("blob", "x"), "not searchable"},
		{"wrong type", query.Eq("visits", "3"), "does not compare"},
		{"text op on keyword", query.Text(query.OpPhrase, "city", "x"), "not a text property"},
		{"no terms", query.Text(query.OpAllTerms, "name", " ,"), "holds no terms"},
		{"anchor", query.Text(query.OpRegex, "city", "^Oslo"), "regular expression"},
		{"startsWith on numbers", query.Text(query.OpStartsWith, "visits", "1"), "not supported by the OpenSearch backend"},
		{"interval allOf", query.Interval("name", &query.Rule{Kind: query.RuleAllOf, Rules: []*query.Rule{{Kind: query.RuleMatch, Query: "a"}}}), "not supported by the OpenSearch backend"},
		{"interval allOf under anyOf", query.Interval("name", &query.Rule{Kind: query.RuleAnyOf, Rules: []*query.Rule{
			{Kind: query.RuleMatch, Query: "a"}, {Kind: query.RuleAllOf, Rules: []*query.Rule{{Kind: query.RuleMatch, Query: "a"}}}}}), "not supported by the OpenSearch backend"},
		{"interval without a rule", &query.Filter{Op: query.OpInterval, Property: "name"}, "without a rule"},
		{"interval on keyword", query.Interval("city", &query.Rule{Kind: query.RuleMatch, Query: "a"}), "not a text property"},
		{"interval of no terms", query.Interval("name", &query.Rule{Kind: query.RuleMatch, Query: " - "}), "holds no terms"},
		{"interval fuzziness", query.Interval("name", &query.Rule{Kind: query.RuleFuzzy, Query: "cedar", Fuzziness: 3}), "at most 2"},
		{"interval unlimited match on a list", query.Interval("notes", &query.Rule{Kind: query.RuleMatch, Query: "a b", MaxGaps: query.NoGapLimit}), "not supported by the OpenSearch backend"},
		{"interval wide match on a list", query.Interval("notes", &query.Rule{Kind: query.RuleMatch, Query: "a b", MaxGaps: 100}), "not supported by the OpenSearch backend"},
		{"within on a geoshape", query.GeoFilter("area", query.NewGeoBox(query.GeoWithinBox, query.GeoBox{West: 1, South: 1, East: 2, North: 2})), "applies to geopoint properties"},
		{"geo on no geo property", query.GeoFilter("city", query.NewGeoBox(query.GeoIntersectsBox, query.GeoBox{West: 1, South: 1, East: 2, North: 2})), "not a geopoint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tr.filter(tt.filter)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}

// TestLuceneRegexp checks the translation on the strings that tell the two
// syntaxes apart, with Go's regexp of the translation as Lucene's stand-in
// where they agree: a translation must match what the RE2 pattern
// matches, whole.
func TestLuceneRegexp(t *testing.T) {
	tests := []struct {
		pattern string
		want    string
	}{
		{"a.c", "((a)[^\\\n](c))"}, // an escaped newline
		{"(?i)ab", `([Aa][Bb])`},
		{`\d{2,}`, `([0-9]([0-9])+)`},
		{"x|y+", `((x)|((y))+)`},
		{`a\.b@c`, `(a\.b\@c)`},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			f, err := translator{typ: itemType()}.pattern(itemType().Properties[2], query.Text(query.OpRegex, "city", tt.pattern))
			if err != nil {
				t.Fatal(err)
			}
			got := f["regexp"].(map[string]any)["city"].(map[string]any)["value"].(string)
			if got != tt.want {
				t.Errorf("translation of %q: %q, want %q", tt.pattern, got, tt.want)
			}
			// Without Lucene at hand: the translation, read as RE2 with
			// Lucene's escapes, matches the same strings.
			re := regexp.MustCompile(`^(?:` + strings.ReplaceAll(got, `\@`, `@`) + `)$`)
			orig := regexp.MustCompile(`^(?:` + tt.pattern + `)$`)
			for _, s := range []string{"abc", "a\nc", "AB", "ab", "12", "123", "x", "yyy", "a.b@c", "axb@c", ""} {
				if re.MatchString(s) != orig.MatchString(s) {
					t.Errorf("%q: translation %q matches %v, pattern %v", s, got, re.MatchString(s), orig.MatchString(s))
				}
			}
		})
	}
}

// geoItemType is itemType with a geopoint and a geoshape.
func geoItemType() *objects.Type {
	t := *itemType()
	t.Properties = append(t.Properties[:len(t.Properties):len(t.Properties)],
		objects.Property{APIName: "loc", Column: "loc", Type: objects.DataType{Kind: objects.KindGeoPoint}, Search: objects.SearchNone},
		objects.Property{APIName: "area", Column: "area", Type: objects.DataType{Kind: objects.KindGeoShape}, Search: objects.SearchNone})
	return objects.NewType(t)
}

func mustShape(t *testing.T, wkt string) objects.GeoShape {
	t.Helper()
	s, err := objects.ParseGeoShape(wkt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPlanarShapes checks which shapes a document holds rewound: only
// polygons wider than 180 degrees wound clockwise, which OpenSearch would
// otherwise split at the antimeridian.
func TestPlanarShapes(t *testing.T) {
	tests := []struct {
		name      string
		value     any
		want      any
		unchanged bool
	}{
		{"narrow clockwise polygon", mustShape(t, "POLYGON((0 0,0 1,1 1,0 0))"), nil, true},
		{"wide counterclockwise polygon", mustShape(t, "POLYGON((-170 0,170 0,170 1,-170 0))"), nil, true},
		{"wide line", mustShape(t, "LINESTRING(-170 0,170 0)"), nil, true},
		{"wide clockwise polygon", mustShape(t, "POLYGON((-170 0,-170 1,170 1,-170 0))"),
			mustShape(t, "POLYGON((-170 0,170 1,-170 1,-170 0))"), false},
		{"list", []any{mustShape(t, "POINT(1 2)"), mustShape(t, "MULTIPOLYGON(((-170 0,-170 1,170 1,-170 0)))")},
			[]any{mustShape(t, "POINT(1 2)"), mustShape(t, "MULTIPOLYGON(((-170 0,170 1,-170 1,-170 0)))")}, false},
		{"not a shape", "x", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			if tt.unchanged {
				want = tt.value
			}
			if got := planarShapes(tt.value); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("planarShapes(%v) = %v, want %v", tt.value, got, want)
			}
		})
	}
}
