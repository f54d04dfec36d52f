package wire_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

func intervalType() *objects.Type {
	str := objects.DataType{Kind: objects.KindString}
	return &objects.Type{APIName: "Employee", PrimaryKey: []string{"id"}, Properties: []objects.Property{
		{APIName: "id", Type: str, Search: objects.SearchKeyword},
		{APIName: "bio", Type: str, Search: objects.SearchText},
		{APIName: "dept", Type: str, Search: objects.SearchKeyword},
	}}
}

func TestWhereDecoder_Interval(t *testing.T) {
	typ := intervalType()
	for _, tc := range []struct {
		name, where, want string
	}{
		{"match", `{"type":"interval","field":"bio","rule":{"type":"match","query":"Data Pipelines","ordered":true,"maxGaps":2}}`,
			`bio interval match("Data Pipelines" ordered maxGaps=2)`},
		{"client omits ordered and maxGaps", `{"type":"interval","field":"bio","rule":{"type":"match","query":"data"}}`,
			`bio interval match("data")`},
		{"nested", `{"type":"interval","propertyIdentifier":{"type":"property","apiName":"bio"},"rule":{"type":"allOf","ordered":false,"rules":[{"type":"prefixOnLastToken","query":"data pip"},{"type":"anyOf","rules":[{"type":"fuzzy","term":"spark","fuzziness":1},{"type":"fuzzy","term":"kafka"}]}]}}`,
			`bio interval allOf(prefixOnLastToken("data pip"), anyOf(fuzzy("spark", 1), fuzzy("kafka", -1)))`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := wire.Where(typ, json.RawMessage(tc.where), 10, 100)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.String(); got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
			if f.Op != query.OpInterval {
				t.Fatalf("op %s", f.Op)
			}
		})
	}
}

func TestWhereDecoder_IntervalErrors(t *testing.T) {
	typ := intervalType()
	for _, tc := range []struct {
		name, where string
		errName     wire.Name
		mentions    string // the message names the field at fault
	}{
		{"no rule", `{"type":"interval","field":"bio"}`, wire.NameMalformedPropertyFilters, "rule"},
		{"unknown key", `{"type":"interval","field":"bio","value":"x","rule":{"type":"match","query":"a"}}`, wire.NameMalformedPropertyFilters, `"value"`},
		{"no field", `{"type":"interval","rule":{"type":"match","query":"a"}}`, wire.NameMalformedPropertyFilters, "field or propertyIdentifier"},
		{"keyword property", `{"type":"interval","field":"dept","rule":{"type":"match","query":"a"}}`, wire.NamePropertyFiltersNotSupported, "text properties"},
		{"unknown property", `{"type":"interval","field":"nope","rule":{"type":"match","query":"a"}}`, wire.NamePropertiesNotFound, ""},
		{"unknown rule type", `{"type":"interval","field":"bio","rule":{"type":"near","query":"a"}}`, wire.NameMalformedPropertyFilters, `rule: unknown rule type "near"`},
		{"rule not an object", `{"type":"interval","field":"bio","rule":[1]}`, wire.NameMalformedPropertyFilters, "rule: a rule must be a JSON object"},
		{"match without terms", `{"type":"interval","field":"bio","rule":{"type":"match","query":" - "}}`, wire.NameMalformedPropertyFilters, "rule: match needs query"},
		{"query not a string", `{"type":"interval","field":"bio","rule":{"type":"match","query":3}}`, wire.NameMalformedPropertyFilters, "rule: query must be a string"},
		{"negative maxGaps", `{"type":"interval","field":"bio","rule":{"type":"match","query":"a b","maxGaps":-1}}`, wire.NameMalformedPropertyFilters, "rule: maxGaps must be a non-negative integer"},
		{"ordered not a boolean", `{"type":"interval","field":"bio","rule":{"type":"match","query":"a","ordered":"yes"}}`, wire.NameMalformedPropertyFilters, "rule: ordered must be a boolean"},
		{"key of another rule", `{"type":"interval","field":"bio","rule":{"type":"fuzzy","query":"a"}}`, wire.NameMalformedPropertyFilters, `rule: json: unknown field "query"`},
		{"fuzziness too large", `{"type":"interval","field":"bio","rule":{"type":"fuzzy","term":"spark","fuzziness":3}}`, wire.NameMalformedPropertyFilters, "rule: fuzziness must be 0, 1 or 2"},
		{"fuzzy of two terms", `{"type":"interval","field":"bio","rule":{"type":"fuzzy","term":"big data"}}`, wire.NameMalformedPropertyFilters, "holds 2 terms"},
		{"empty rules", `{"type":"interval","field":"bio","rule":{"type":"anyOf","rules":[]}}`, wire.NameMalformedPropertyFilters, "rule: rules must be a non-empty array"},
		{"nested error path", `{"type":"interval","field":"bio","rule":{"type":"allOf","rules":[{"type":"match","query":"a"},{"type":"anyOf","rules":[{"type":"fuzzy","term":"x","fuzziness":"1"}]}]}}`,
			wire.NameMalformedPropertyFilters, "rule.rules[1].rules[0]: fuzziness"},
		{"too deep", `{"type":"interval","field":"bio","rule":{"type":"anyOf","rules":[{"type":"anyOf","rules":[{"type":"anyOf","rules":[{"type":"match","query":"a"}]}]}]}}`,
			wire.NameWhereClauseTooComplex, "rule.rules[0].rules[0].rules[0] is nested"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := wire.Where(typ, json.RawMessage(tc.where), 4, 100)
			var we *wire.Error
			if !errors.As(err, &we) {
				t.Fatalf("err = %v, want a *wire.Error", err)
			}
			if we.Name != tc.errName {
				t.Fatalf("error %s, want %s: %v", we.Name, tc.errName, we.Params)
			}
			if msg := we.Message(); !strings.Contains(msg, tc.mentions) {
				t.Fatalf("message %q does not name %q", msg, tc.mentions)
			}
		})
	}
}
