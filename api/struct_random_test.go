package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/objects"
)

// A brute-force check of filters on struct fields: random rows of a struct
// of every scalar kind a field takes, random where clauses on its fields
// (every operator of each field's type, under and, or and not), each
// answered by the API and by a plain evaluation of the rows.

var probeSchema = iceberg.NewSchemaWithIdentifiers(1, []int{1},
	iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
	iceberg.NestedField{ID: 2, Name: "probe", Type: &iceberg.StructType{FieldList: []iceberg.NestedField{
		{ID: 3, Name: "label", Type: iceberg.PrimitiveTypes.String},
		{ID: 4, Name: "count", Type: iceberg.PrimitiveTypes.Int32},
		{ID: 5, Name: "total", Type: iceberg.PrimitiveTypes.Int64},
		{ID: 6, Name: "ratio", Type: iceberg.PrimitiveTypes.Float64},
		{ID: 7, Name: "ok", Type: iceberg.PrimitiveTypes.Bool},
		{ID: 8, Name: "day", Type: iceberg.PrimitiveTypes.Date},
		{ID: 9, Name: "at", Type: iceberg.PrimitiveTypes.TimestampTz},
		{ID: 10, Name: "price", Type: iceberg.DecimalTypeOf(8, 2)},
	}}},
)

// probeField generates the values of one field: as written to the table
// (JSON), as sent in a filter, and as compared (an int64, float64, string
// or bool that orders as the field does).
type probeField struct {
	name    string
	text    bool
	ordered bool
	draw    func(r *rand.Rand) (row, wire, cmp any)
}

var probeFields = []probeField{
	{"label", true, true, func(r *rand.Rand) (any, any, any) {
		s := []string{"alpha beta", "alpha", "beta gamma", "gamma", "delta alpha", "Beta"}[r.IntN(6)]
		return s, s, s
	}},
	{"count", false, true, func(r *rand.Rand) (any, any, any) { n := int64(r.IntN(21) - 10); return n, n, n }},
	{"total", false, true, func(r *rand.Rand) (any, any, any) {
		n := int64(r.IntN(7)) * 1_000_000_007
		return n, fmt.Sprint(n), n
	}},
	{"ratio", false, true, func(r *rand.Rand) (any, any, any) { f := float64(r.IntN(9)) / 4; return f, f, f }},
	{"ok", false, false, func(r *rand.Rand) (any, any, any) { b := r.IntN(2) == 0; return b, b, b }},
	{"day", false, true, func(r *rand.Rand) (any, any, any) {
		d := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, r.IntN(12)).Format(time.DateOnly)
		return d, d, d
	}},
	{"at", false, true, func(r *rand.Rand) (any, any, any) {
		t := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.IntN(12)) * time.Hour).Format(time.RFC3339)
		return t, t, t
	}},
	{"price", false, true, func(r *rand.Rand) (any, any, any) {
		cents := int64(r.IntN(11)*25 - 100)
		s := fmt.Sprintf("%.2f", float64(cents)/100)
		return s, s, cents
	}},
}

// probeRow is one row: nil for a null struct, else a field's compared
// value or nil.
type probeRow map[string]any

func probeRows(r *rand.Rand, n int) ([]icebergtest.Row, []probeRow) {
	var rows []icebergtest.Row
	var values []probeRow
	for i := range n {
		row := icebergtest.Row{"id": int64(i)}
		if r.IntN(10) == 0 {
			rows, values = append(rows, row), append(values, nil)
			continue
		}
		st, v := map[string]any{}, probeRow{}
		for _, f := range probeFields {
			if r.IntN(6) == 0 {
				continue // a null field
			}
			st[f.name], _, v[f.name] = f.draw(r)
		}
		row["probe"] = st
		rows, values = append(rows, row), append(values, v)
	}
	return rows, values
}

// probeWhere is a where clause and its meaning on a row.
type probeWhere struct {
	wire  map[string]any
	match func(v probeRow) bool
}

func compareProbe(a, b any) int {
	switch x := a.(type) {
	case int64:
		return int(x - b.(int64))
	case float64:
		switch y := b.(float64); {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case string:
		return strings.Compare(x, b.(string))
	}
	panic(fmt.Sprintf("no order for %T", a))
}

func randomProbeWhere(r *rand.Rand, depth int) probeWhere {
	if depth > 0 && r.IntN(3) == 0 {
		switch r.IntN(3) {
		case 0:
			k := randomProbeWhere(r, depth-1)
			return probeWhere{map[string]any{"type": "not", "value": k.wire}, func(v probeRow) bool { return !k.match(v) }}
		default:
			op := []string{"and", "or"}[r.IntN(2)]
			a, b := randomProbeWhere(r, depth-1), randomProbeWhere(r, depth-1)
			return probeWhere{map[string]any{"type": op, "value": []any{a.wire, b.wire}}, func(v probeRow) bool {
				if op == "and" {
					return a.match(v) && b.match(v)
				}
				return a.match(v) || b.match(v)
			}}
		}
	}
	f := probeFields[r.IntN(len(probeFields))]
	pi := map[string]any{"type": "structField", "propertyApiName": "probe", "structFieldApiName": f.name}
	field := func(v probeRow) any {
		if v == nil {
			return nil // a field of a null struct is null
		}
		return v[f.name]
	}
	ops := []string{"eq", "in", "isNull"}
	if f.ordered {
		ops = append(ops, "gt", "gte", "lt", "lte")
	}
	if f.text {
		ops = append(ops, "startsWith", "containsAnyTerm")
	}
	op := ops[r.IntN(len(ops))]
	_, wire, want := f.draw(r)
	w := map[string]any{"type": op, "propertyIdentifier": pi, "value": wire}
	switch op {
	case "isNull":
		null := r.IntN(2) == 0
		w["value"] = null
		return probeWhere{w, func(v probeRow) bool { return (field(v) == nil) == null }}
	case "in":
		_, wire2, want2 := f.draw(r)
		w["value"] = []any{wire, wire2}
		return probeWhere{w, func(v probeRow) bool { x := field(v); return x != nil && (x == want || x == want2) }}
	case "startsWith":
		prefix := want.(string)[:2]
		w["value"] = prefix
		// startsWith matches a prefix of a word, as Foundry's does (the
		// analyzed terms, lowercased).
		return probeWhere{w, func(v probeRow) bool {
			x, ok := field(v).(string)
			return ok && slices.ContainsFunc(strings.Fields(strings.ToLower(x)), func(t string) bool { return strings.HasPrefix(t, strings.ToLower(prefix)) })
		}}
	case "containsAnyTerm":
		return probeWhere{w, func(v probeRow) bool {
			x, ok := field(v).(string)
			terms := strings.Fields(strings.ToLower(x))
			return ok && slices.ContainsFunc(strings.Fields(strings.ToLower(want.(string))), func(t string) bool { return slices.Contains(terms, t) })
		}}
	}
	return probeWhere{w, func(v probeRow) bool {
		x := field(v)
		if x == nil {
			return false
		}
		if op == "eq" {
			return x == want
		}
		c := compareProbe(x, want)
		return op == "gt" && c > 0 || op == "gte" && c >= 0 || op == "lt" && c < 0 || op == "lte" && c <= 0
	}}
}

func TestStruct_randomFilters(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(25, 1))
	rows, values := probeRows(r, 300)
	e := mustEnv(t, func(cfg *config.Config) {
		w, err := icebergtest.NewWarehouse(cfg.Catalogs["warehouse"].Properties["warehouse"])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.WriteTable(ctx, "demo.probes", probeSchema, nil, rows[:150], rows[150:]); err != nil {
			t.Fatal(err)
		}
		cfg.ObjectTypes = append(cfg.ObjectTypes, objects.TypeSpec{APIName: "Probe", Table: "warehouse.demo.probes"})
	})
	if _, err := e.ix.Build(ctx, "Probe", indexer.BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	matched := 0
	for i := range 300 {
		w := randomProbeWhere(r, 2)
		var want []string
		for id, v := range values {
			if w.match(v) {
				want = append(want, fmt.Sprint(id))
			}
		}
		var got []string
		token := ""
		for {
			body := map[string]any{"where": w.wire, "pageSize": 1000, "orderBy": map[string]any{"fields": []any{map[string]any{"field": "id"}}}}
			if token != "" {
				body["pageToken"] = token
			}
			objs, m := e.search(t, "Probe", body)
			got = append(got, ids(objs)...)
			if token, _ = m["nextPageToken"].(string); token == "" {
				break
			}
		}
		if !slices.Equal(got, want) {
			js, _ := json.Marshal(w.wire)
			t.Fatalf("case %d: %s\nAPI:   %v\nrows:  %v", i, js, got, want)
		}
		if len(want) > 0 {
			matched++
		}
	}
	if matched < 150 {
		t.Errorf("only %d of 300 filters matched something: the generator is too narrow", matched)
	}
}
