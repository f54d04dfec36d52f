package config

import (
	"strings"
	"testing"
)

func TestParse_unknownKeys(t *testing.T) {
	const base = `
catalogs:
  warehouse: {type: hadoop, warehouse: ./warehouse}
objectTypes:
  - apiName: Customer
    table: warehouse.sales.customers
    primaryKey: [customer_id]
    titleProperty: name
    properties:
      customerId: {column: customer_id}
      name: {column: name, search: text}
`
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"misspelt type key", strings.Replace(base, "titleProperty", "titleProprety", 1),
			[]string{`line 8: objectTypes[0].titleProprety: unknown key "titleProprety"; did you mean titleProperty?`}},
		{"misspelt property key", strings.Replace(base, "search: text", "serach: text", 1),
			[]string{`objectTypes[0].properties.name.serach: unknown key "serach"; did you mean search?`}},
		{"misspelt top-level key", base + "daemon: {pollIntervall: 5s}\n",
			[]string{`daemon.pollIntervall: unknown key "pollIntervall"; did you mean pollInterval?`}},
		{"misspelt server key", base + "server: {listne: '127.0.0.1:1'}\n",
			[]string{`server.listne: unknown key "listne"; did you mean listen?`}},
		{"key of the second type", base + "  - apiName: Order\n    table: warehouse.sales.orders\n    primaryKy: [id]\n",
			[]string{`line 14: objectTypes[1].primaryKy: unknown key "primaryKy"; did you mean primaryKey?`}},
		{"nothing close", base + "ontology: {apiName: x, colour: blue}\n",
			[]string{`ontology.colour: unknown key "colour"; the keys here are apiName, displayName, description, rid`}},
		{"two at once", strings.Replace(strings.Replace(base, "titleProperty", "titleProprety", 1), "table:", "tabel:", 1),
			[]string{`objectTypes[0].tabel: unknown key "tabel"; did you mean table?`, `objectTypes[0].titleProprety: unknown key "titleProprety"; did you mean titleProperty?`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml), "/tmp")
			if err == nil {
				t.Fatal("Parse accepted an unknown key")
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("err = %v\nwant it to contain %q", err, want)
				}
			}
		})
	}
}
