package api_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/internal/testkit/apidemo"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

func has(r icebergtest.Row, col string) bool { return r[col] != nil }

func intOf(v any) int64 {
	switch x := v.(type) {
	case int:
		return int64(x)
	case int64:
		return x
	}
	panic(fmt.Sprintf("not an int: %T", v))
}

func bioIs(ks ...int) func(icebergtest.Row) bool {
	return func(r icebergtest.Row) bool {
		b, _ := r["bio"].(string)
		for _, k := range ks {
			if b == bioText(k) {
				return true
			}
		}
		return false
	}
}

// bioText is the k-th bio of the demo rows.
func bioText(k int) string { return apidemo.Bio(k) }

func hasTag(r icebergtest.Row, tag string) bool {
	tags, _ := r["tags"].([]string)
	return slices.Contains(tags, tag)
}

func TestSearch_queryTypes(t *testing.T) {
	e := mustEnv(t)
	all := func(icebergtest.Row) bool { return true }
	tests := []struct {
		name  string
		where string
		want  func(icebergtest.Row) bool
	}{
		{"eq text exact", `{"type":"eq","field":"title","value":"Chief Pilot"}`, func(r icebergtest.Row) bool { return r["title"] == "Chief Pilot" }},
		{"eq text is not analyzed", `{"type":"eq","field":"title","value":"pilot"}`, func(icebergtest.Row) bool { return false }},
		{"eq keyword", `{"type":"eq","field":"dept","value":"Sales"}`, func(r icebergtest.Row) bool { return r["dept"] == "Sales" }},
		{"eq integer", `{"type":"eq","field":"age","value":34}`, func(r icebergtest.Row) bool { return has(r, "age") && intOf(r["age"]) == 34 }},
		{"eq integer as string", `{"type":"eq","field":"age","value":"34"}`, func(r icebergtest.Row) bool { return has(r, "age") && intOf(r["age"]) == 34 }},
		// 2^53+2 is a float64, so the search field holds it exactly.
		{"eq long beyond 2^53", `{"type":"eq","field":"big","value":"9007199254740994"}`, func(r icebergtest.Row) bool { return r["big"] == apidemo.BigBase+1 }},
		{"eq long primary key", `{"type":"eq","field":"id","value":120}`, func(r icebergtest.Row) bool { return r["id"] == int64(120) }},
		{"eq decimal", `{"type":"eq","field":"salary","value":"41234.01"}`, func(r icebergtest.Row) bool { return r["salary"] == "41234.01" }},
		{"eq decimal as number", `{"type":"eq","field":"salary","value":41234.01}`, func(r icebergtest.Row) bool { return r["salary"] == "41234.01" }},
		{"eq double", `{"type":"eq","field":"rating","value":0.75}`, func(r icebergtest.Row) bool { return r["rating"] == 0.75 }},
		{"eq date", `{"type":"eq","field":"hired","value":"2015-02-07"}`, func(r icebergtest.Row) bool { return r["hired"] == "2015-02-07" }},
		{"eq timestamp", `{"type":"eq","field":"updated","value":"2024-01-01T03:01:00Z"}`, func(r icebergtest.Row) bool { return r["updated"] == "2024-01-01T03:01:00Z" }},
		{"eq timestamp other zone", `{"type":"eq","field":"updated","value":"2024-01-01T05:01:00+02:00"}`, func(r icebergtest.Row) bool { return r["updated"] == "2024-01-01T03:01:00Z" }},
		{"eq boolean", `{"type":"eq","field":"active","value":false}`, func(r icebergtest.Row) bool { return r["active"] == false }},
		{"eq on array element", `{"type":"eq","field":"tags","value":"remote"}`, func(r icebergtest.Row) bool { return hasTag(r, "remote") }},
		{"propertyIdentifier", `{"type":"eq","propertyIdentifier":{"type":"property","apiName":"dept"},"value":"Research"}`, func(r icebergtest.Row) bool { return r["dept"] == "Research" }},
		{"gt integer", `{"type":"gt","field":"age","value":50}`, func(r icebergtest.Row) bool { return has(r, "age") && intOf(r["age"]) > 50 }},
		{"gte integer", `{"type":"gte","field":"age","value":50}`, func(r icebergtest.Row) bool { return has(r, "age") && intOf(r["age"]) >= 50 }},
		{"lt integer", `{"type":"lt","field":"age","value":30}`, func(r icebergtest.Row) bool { return has(r, "age") && intOf(r["age"]) < 30 }},
		{"lte integer", `{"type":"lte","field":"age","value":30}`, func(r icebergtest.Row) bool { return has(r, "age") && intOf(r["age"]) <= 30 }},
		{"gt decimal", `{"type":"gt","field":"salary","value":"90000.00"}`, func(r icebergtest.Row) bool { return r["salary"].(string) > "90000.00" }},
		{"gte date", `{"type":"gte","field":"hired","value":"2018-01-01"}`, func(r icebergtest.Row) bool { return r["hired"].(string) >= "2018-01-01" }},
		// Dates of any year: the index compares days, not nanoseconds.
		{"gt date of year 1", `{"type":"gt","field":"hired","value":"0001-01-01"}`, func(r icebergtest.Row) bool { return has(r, "hired") }},
		{"lt date of year 9999", `{"type":"lt","field":"hired","value":"9999-12-31"}`, func(r icebergtest.Row) bool { return has(r, "hired") }},
		{"lt timestamp", `{"type":"lt","field":"updated","value":"2024-01-02T00:00:00Z"}`, func(r icebergtest.Row) bool { return r["updated"].(string) < "2024-01-02T00:00:00Z" }},
		{"gt text exact order", `{"type":"gt","field":"name","value":"Linus"}`, func(r icebergtest.Row) bool { return r["name"].(string) > "Linus" }},
		{"lte keyword", `{"type":"lte","field":"dept","value":"Maintenance"}`, func(r icebergtest.Row) bool { return r["dept"].(string) <= "Maintenance" }},
		{"isNull true", `{"type":"isNull","field":"age","value":true}`, func(r icebergtest.Row) bool { return !has(r, "age") }},
		{"isNull false", `{"type":"isNull","field":"bio","value":false}`, func(r icebergtest.Row) bool { return has(r, "bio") }},
		{"isNull on unsearchable property", `{"type":"isNull","field":"secret","value":false}`, all},
		{"isNull array: null, not empty", `{"type":"isNull","field":"tags","value":true}`, func(r icebergtest.Row) bool { return r["tags"] == nil }},
		{"in", `{"type":"in","field":"dept","value":["Sales","Research"]}`, func(r icebergtest.Row) bool { return r["dept"] == "Sales" || r["dept"] == "Research" }},
		{"in numbers", `{"type":"in","field":"age","value":[34,47,"60"]}`, func(r icebergtest.Row) bool {
			return has(r, "age") && slices.Contains([]int64{34, 47, 60}, intOf(r["age"]))
		}},
		{"in empty matches all", `{"type":"in","field":"dept","value":[]}`, all},
		{"and", `{"type":"and","value":[{"type":"eq","field":"dept","value":"Sales"},{"type":"gt","field":"age","value":40}]}`, func(r icebergtest.Row) bool {
			return r["dept"] == "Sales" && has(r, "age") && intOf(r["age"]) > 40
		}},
		{"or", `{"type":"or","value":[{"type":"eq","field":"dept","value":"Sales"},{"type":"eq","field":"active","value":false}]}`, func(r icebergtest.Row) bool {
			return r["dept"] == "Sales" || r["active"] == false
		}},
		{"not", `{"type":"not","value":{"type":"eq","field":"dept","value":"Sales"}}`, func(r icebergtest.Row) bool { return r["dept"] != "Sales" }},
		{"nested and/or/not", `{"type":"and","value":[
			{"type":"or","value":[{"type":"eq","field":"dept","value":"Flight Ops"},{"type":"eq","field":"dept","value":"Research"}]},
			{"type":"not","value":{"type":"isNull","field":"age","value":true}},
			{"type":"not","value":{"type":"and","value":[{"type":"eq","field":"active","value":true},{"type":"lt","field":"age","value":40}]}}]}`,
			func(r icebergtest.Row) bool {
				return (r["dept"] == "Flight Ops" || r["dept"] == "Research") && has(r, "age") && !(r["active"] == true && intOf(r["age"]) < 40)
			}},
		{"and empty matches all", `{"type":"and","value":[]}`, all},
		{"or empty matches none", `{"type":"or","value":[]}`, func(icebergtest.Row) bool { return false }},
		{"contains", `{"type":"contains","field":"tags","value":"mentor"}`, func(r icebergtest.Row) bool { return hasTag(r, "mentor") }},
		{"startsWith one term", `{"type":"startsWith","field":"name","value":"gra"}`, func(r icebergtest.Row) bool { return strings.HasPrefix(r["name"].(string), "Grace ") }},
		{"startsWith keyword", `{"type":"startsWith","field":"dept","value":"Flight"}`, func(r icebergtest.Row) bool { return r["dept"] == "Flight Ops" }},
		{"startsWith keyword is whole-value prefix", `{"type":"startsWith","field":"dept","value":"Ops"}`, func(icebergtest.Row) bool { return false }},
		{"containsAllTermsInOrderPrefixLastTerm", `{"type":"containsAllTermsInOrderPrefixLastTerm","field":"bio","value":"the boeing 73"}`, bioIs(0)},
		{"containsAllTermsInOrderPrefixLastTerm needs order", `{"type":"containsAllTermsInOrderPrefixLastTerm","field":"bio","value":"boeing the 73"}`, func(icebergtest.Row) bool { return false }},
		{"containsAllTerms", `{"type":"containsAllTerms","field":"bio","value":"pilots, training"}`, bioIs(4)},
		{"containsAllTerms needs all", `{"type":"containsAllTerms","field":"bio","value":"pilots hangar"}`, func(icebergtest.Row) bool { return false }},
		{"containsAllTerms case and punctuation", `{"type":"containsAllTerms","field":"bio","value":"NIGHT-shift"}`, bioIs(1)},
		{"containsAllTerms fuzzy", `{"type":"containsAllTerms","field":"bio","value":"hangr doers","fuzzy":true}`, bioIs(1)},
		{"containsAllTerms not fuzzy", `{"type":"containsAllTerms","field":"bio","value":"hangr doers"}`, func(icebergtest.Row) bool { return false }},
		{"containsAnyTerm", `{"type":"containsAnyTerm","field":"bio","value":"turbofan manuals"}`, bioIs(3, 5)},
		{"containsAnyTerm fuzzy", `{"type":"containsAnyTerm","field":"bio","value":"turbofun zzzzzzz","fuzzy":true}`, bioIs(3)},
		{"containsAllTermsInOrder", `{"type":"containsAllTermsInOrder","field":"bio","value":"North Atlantic"}`, bioIs(0)},
		{"containsAllTermsInOrder needs order", `{"type":"containsAllTermsInOrder","field":"bio","value":"atlantic north"}`, func(icebergtest.Row) bool { return false }},
		{"wildcard", `{"type":"wildcard","field":"title","value":"*Pilot"}`, func(r icebergtest.Row) bool { return strings.HasSuffix(r["title"].(string), "Pilot") }},
		{"wildcard single character", `{"type":"wildcard","field":"title","value":"?unior*"}`, func(r icebergtest.Row) bool { return r["title"] == "Junior Pilot" }},
		{"wildcard is case-sensitive", `{"type":"wildcard","field":"title","value":"*pilot"}`, func(icebergtest.Row) bool { return false }},
		{"wildcard keyword", `{"type":"wildcard","field":"dept","value":"*a*"}`, func(r icebergtest.Row) bool { return strings.Contains(r["dept"].(string), "a") }},
		{"regex", `{"type":"regex","field":"title","value":"(Senior|Chief) Pilot"}`, func(r icebergtest.Row) bool { return r["title"] == "Senior Pilot" || r["title"] == "Chief Pilot" }},
		{"regex is anchored", `{"type":"regex","field":"title","value":"Pilot"}`, func(icebergtest.Row) bool { return false }},
		{"regex classes", `{"type":"regex","field":"name","value":"A[a-z]+ \\w+"}`, func(r icebergtest.Row) bool {
			n := r["name"].(string)
			return n[0] == 'A' && !strings.ContainsAny(n, "'")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, resp := e.search(t, "Employee", map[string]any{"where": where(tt.where), "pageSize": 100})
			got := ids(objs)
			want := employeeIDs(tt.want)
			if want == nil {
				want = []string{}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("got %v, want %v", got, want)
			}
			if resp["totalCount"] != fmt.Sprint(len(want)) {
				t.Fatalf("totalCount %v, want %d", resp["totalCount"], len(want))
			}
		})
	}
}

func TestSearch_whereErrors(t *testing.T) {
	e := mustEnv(t)
	tests := []struct {
		name   string
		where  string
		status int
		error  string
	}{
		{"not an object", `5`, 400, "MalformedPropertyFilters"},
		{"no type", `{"field":"age","value":1}`, 400, "MalformedPropertyFilters"},
		{"unknown type", `{"type":"equals","field":"age","value":1}`, 400, "MalformedPropertyFilters"},
		{"unknown key", `{"type":"eq","field":"age","value":1,"boost":2}`, 400, "MalformedPropertyFilters"},
		{"no field", `{"type":"eq","value":1}`, 400, "MalformedPropertyFilters"},
		{"field and propertyIdentifier", `{"type":"eq","field":"age","propertyIdentifier":{"type":"property","apiName":"age"},"value":1}`, 400, "MalformedPropertyFilters"},
		{"no value", `{"type":"eq","field":"age"}`, 400, "MalformedPropertyFilters"},
		{"and of non-list", `{"type":"and","value":{"type":"eq","field":"age","value":1}}`, 400, "MalformedPropertyFilters"},
		{"and with null", `{"type":"and","value":[null]}`, 400, "MalformedPropertyFilters"},
		{"fuzzy on eq", `{"type":"eq","field":"name","value":"x","fuzzy":true}`, 400, "MalformedPropertyFilters"},
		{"unknown property", `{"type":"eq","field":"salaryy","value":1}`, 404, "PropertiesNotFound"},
		{"unsearchable property", `{"type":"eq","field":"secret","value":"s-1"}`, 400, "PropertiesNotSearchable"},
		{"value of wrong type", `{"type":"eq","field":"age","value":"abc"}`, 400, "InvalidPropertyFilterValue"},
		{"object value", `{"type":"eq","field":"age","value":{"a":1}}`, 400, "InvalidPropertyFilterValue"},
		{"decimal with too many digits", `{"type":"eq","field":"salary","value":"1.234"}`, 400, "InvalidPropertyFilterValue"},
		{"bad date", `{"type":"gt","field":"hired","value":"2015-13-01"}`, 400, "InvalidPropertyFilterValue"},
		{"isNull not boolean", `{"type":"isNull","field":"age","value":"yes"}`, 400, "InvalidPropertyFilterValue"},
		{"in not a list", `{"type":"in","field":"age","value":3}`, 400, "InvalidPropertyFilterValue"},
		{"range on boolean", `{"type":"gt","field":"active","value":false}`, 400, "InvalidRangeQuery"},
		{"contains on non-array", `{"type":"contains","field":"dept","value":"Sales"}`, 400, "PropertyFiltersNotSupported"},
		{"terms on keyword", `{"type":"containsAllTerms","field":"dept","value":"Sales"}`, 400, "PropertyFiltersNotSupported"},
		{"text query on number", `{"type":"startsWith","field":"age","value":"3"}`, 400, "PropertyFiltersNotSupported"},
		{"bad regex", `{"type":"regex","field":"title","value":"(Pilot"}`, 400, "InvalidPropertyFilterValue"},
		{"regex with assertion", `{"type":"regex","field":"title","value":"^Pilot$"}`, 400, "InvalidPropertyFilterValue"},
		{"text without terms", `{"type":"containsAnyTerm","field":"bio","value":" ,.- "}`, 400, "InvalidPropertyFilterValue"},
		{"geo", `{"type":"withinDistanceOf","field":"dept","value":{"center":[0,0],"distance":{"value":1,"unit":"KILOMETERS"}}}`, 400, "PropertyFiltersNotSupported"},
		{"geo polygon", `{"type":"intersectsPolygon","field":"dept","value":{}}`, 400, "PropertyFiltersNotSupported"},
		{"geo shape", `{"type":"geoShapeV2","field":"dept","value":{}}`, 400, "PropertyFiltersNotSupported"},
		{"interval without a rule type", `{"type":"interval","field":"bio","rule":{}}`, 400, "MalformedPropertyFilters"},
		{"interval on keyword", `{"type":"interval","field":"dept","rule":{"type":"match","query":"a","ordered":true}}`, 400, "PropertyFiltersNotSupported"},
		{"struct field of no struct", `{"type":"eq","propertyIdentifier":{"type":"structField","propertyApiName":"a","structFieldApiName":"b"},"value":1}`, 404, "PropertiesNotFound"},
		{"nested error", `{"type":"or","value":[{"type":"eq","field":"dept","value":"Sales"},{"type":"not","value":{"type":"gt","field":"nope","value":1}}]}`, 404, "PropertiesNotFound"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := e.fail(t, http.MethodPost, ontologyPath+"/objects/Employee/search", map[string]any{"where": where(tt.where)}, tt.status, tt.error)
			if tt.error == "PropertyFiltersNotSupported" && m["parameters"].(map[string]any)["reason"] == "" {
				t.Fatalf("no reason: %v", m)
			}
		})
	}
	t.Run("a missing value says what to send", func(t *testing.T) {
		for w, want := range map[string]string{
			`{"type":"isNull","field":"age"}`:              "isNull needs value: true (objects whose age is null) or false (objects whose age is not null)",
			`{"type":"isNull","field":"age","value":null}`: "isNull needs value: true",
			`{"type":"eq","field":"age"}`:                  "eq needs a value (use isNull for nulls)",
		} {
			m := e.fail(t, http.MethodPost, ontologyPath+"/objects/Employee/search", map[string]any{"where": where(w)}, 400, "MalformedPropertyFilters")
			if r := fmt.Sprint(m["parameters"].(map[string]any)["reason"]); !strings.HasPrefix(r, want) {
				t.Errorf("%s: reason %q, want %q", w, r, want)
			}
		}
	})
	t.Run("geo names the reason", func(t *testing.T) {
		m := e.fail(t, http.MethodPost, ontologyPath+"/objects/Employee/search", map[string]any{"where": where(`{"type":"withinBoundingBox","field":"dept","value":{}}`)}, 400, "PropertyFiltersNotSupported")
		if r := fmt.Sprint(m["parameters"].(map[string]any)["reason"]); !strings.Contains(r, "geo") {
			t.Fatalf("reason %q does not say geo", r)
		}
	})
}
