package api_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"testing"

	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

// Derived properties (withProperties) checked against a brute-force
// evaluation over the rows of the links env.

func withProps(set any, defs map[string]any) map[string]any {
	return map[string]any{"type": "withProperties", "objectSet": set, "derivedProperties": defs}
}

// pivot is the selection object set that follows links from methodInput.
func pivot(links ...string) map[string]any {
	s := map[string]any{"type": "methodInput"}
	for _, l := range links {
		s = map[string]any{"type": "searchAround", "objectSet": s, "link": l}
	}
	return s
}

func sel(set map[string]any, op string, fields ...any) map[string]any {
	o := map[string]any{"type": op}
	for i := 0; i+1 < len(fields); i += 2 {
		o[fields[i].(string)] = fields[i+1]
	}
	return map[string]any{"type": "selection", "objectSet": set, "operation": o}
}

func prop(name string) map[string]any { return map[string]any{"type": "property", "apiName": name} }

// ordersOf are the orders of customer c.
func (lr linkRows) ordersOf(c icebergtest.Row) []icebergtest.Row {
	var out []icebergtest.Row
	for _, o := range lr.orders {
		if fk, ok := o["customer_id"]; ok && fmt.Sprint(fk) == key(c) {
			out = append(out, o)
		}
	}
	return out
}

// number is a JSON number as a float64, or v.
func number(v any) any {
	if n, ok := v.(json.Number); ok {
		f, err := n.Float64()
		if err == nil {
			return f
		}
	}
	return v
}

func sameNumber(a, b any) bool {
	a, b = number(a), number(b)
	x, ok1 := a.(float64)
	y, ok2 := b.(float64)
	if !ok1 || !ok2 {
		return a == b
	}
	return math.Abs(x-y) <= 1e-9*math.Max(1, math.Abs(y))
}

func amounts(os []icebergtest.Row) []float64 {
	var out []float64
	for _, o := range os {
		out = append(out, o["amount"].(float64))
	}
	return out
}

func TestDerived_loadObjects(t *testing.T) {
	e := mustLinksEnv(t, 11)
	lr := e.rows
	byKey := map[string]icebergtest.Row{}
	for _, c := range lr.customers {
		byKey[key(c)] = c
	}
	nilIfEmpty := func(xs []float64, f func([]float64) float64) any {
		if len(xs) == 0 {
			return nil
		}
		return f(xs)
	}
	sum := func(xs []float64) float64 {
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s
	}
	customerTests := []struct {
		name string
		def  map[string]any
		want func(c icebergtest.Row) any
	}{
		{"count", sel(pivot("orders"), "count"), func(c icebergtest.Row) any { return float64(len(lr.ordersOf(c))) }},
		{"sum", sel(pivot("orders"), "sum", "selectedPropertyApiName", "amount"), func(c icebergtest.Row) any { return nilIfEmpty(amounts(lr.ordersOf(c)), sum) }},
		{"avg", sel(pivot("orders"), "avg", "selectedPropertyApiName", "amount"), func(c icebergtest.Row) any {
			return nilIfEmpty(amounts(lr.ordersOf(c)), func(xs []float64) float64 { return sum(xs) / float64(len(xs)) })
		}},
		{"min", sel(pivot("orders"), "min", "selectedPropertyApiName", "amount"), func(c icebergtest.Row) any { return nilIfEmpty(amounts(lr.ordersOf(c)), slices.Min) }},
		{"max", sel(pivot("orders"), "max", "selectedPropertyApiName", "amount"), func(c icebergtest.Row) any { return nilIfEmpty(amounts(lr.ordersOf(c)), slices.Max) }},
		{"exactDistinct", sel(pivot("orders"), "exactDistinct", "selectedPropertyApiName", "status"), func(c icebergtest.Row) any {
			seen := map[any]bool{}
			for _, o := range lr.ordersOf(c) {
				seen[o["status"]] = true
			}
			return float64(len(seen))
		}},
		{"approximateDistinct", sel(pivot("orders"), "approximateDistinct", "selectedPropertyApiName", "amount"), func(c icebergtest.Row) any {
			seen := map[float64]bool{}
			for _, x := range amounts(lr.ordersOf(c)) {
				seen[x] = true
			}
			return float64(len(seen))
		}},
		{"chain of links", sel(pivot("orders", "tags"), "count"), func(c icebergtest.Row) any {
			return float64(len(lr.around("Order", "tags", lr.ordersOf(c))))
		}},
		{"filter in the chain", sel(map[string]any{"type": "filter", "objectSet": pivot("orders"), "where": where(`{"type":"eq","field":"status","value":"paid"}`)}, "count"),
			func(c icebergtest.Row) any {
				n := 0
				for _, o := range lr.ordersOf(c) {
					if o["status"] == "paid" {
						n++
					}
				}
				return float64(n)
			}},
		{"arithmetic", map[string]any{"type": "subtract", "left": sel(pivot("orders"), "max", "selectedPropertyApiName", "amount"),
			"right": map[string]any{"type": "negate", "property": sel(pivot("orders"), "count")}}, func(c icebergtest.Row) any {
			os := lr.ordersOf(c)
			if len(os) == 0 {
				return nil
			}
			return slices.Max(amounts(os)) + float64(len(os))
		}},
		{"property alias", prop("name"), func(c icebergtest.Row) any { return c["name"] }},
	}
	for _, tc := range customerTests {
		t.Run("Customer "+tc.name, func(t *testing.T) {
			objs, _ := e.pageAll(t, http.MethodPost, ontologyPath+"/objectSets/loadObjects",
				map[string]any{"objectSet": withProps(baseSet("Customer"), map[string]any{"d": tc.def})}, 7)
			if len(objs) != len(lr.customers) {
				t.Fatalf("%d objects, want %d", len(objs), len(lr.customers))
			}
			for _, o := range objs {
				c := byKey[fmt.Sprint(o["__primaryKey"])]
				if got, want := number(o["d"]), tc.want(c); !sameNumber(got, want) {
					t.Fatalf("customer %v: d = %v, want %v", o["__primaryKey"], got, want)
				}
				if o["name"] != c["name"] {
					t.Fatalf("customer %v: name %v, want %v", o["__primaryKey"], o["name"], c["name"])
				}
			}
		})
	}
	t.Run("Order get of a ONE link and collectSet", func(t *testing.T) {
		objs, _ := e.pageAll(t, http.MethodPost, ontologyPath+"/objectSets/loadObjects",
			map[string]any{"objectSet": withProps(baseSet("Order"), map[string]any{
				"who":  sel(pivot("customer"), "get", "selectedPropertyApiName", "name"),
				"tags": sel(pivot("tags"), "collectSet", "selectedPropertyApiName", "code", "limit", 3),
			})}, 50)
		orders := map[string]icebergtest.Row{}
		for _, o := range lr.orders {
			orders[key(o)] = o
		}
		for _, o := range objs {
			row := orders[fmt.Sprint(o["__primaryKey"])]
			var want any
			if c, ok := byKey[fmt.Sprint(row["customer_id"])]; ok {
				want = c["name"]
			}
			if o["who"] != want {
				t.Fatalf("order %v: who = %v, want %v", o["__primaryKey"], o["who"], want)
			}
			tags := lr.around("Order", "tags", []icebergtest.Row{row})
			got, _ := o["tags"].([]any)
			if len(got) != min(3, len(tags)) {
				t.Fatalf("order %v: tags %v, want %d of %v", o["__primaryKey"], o["tags"], min(3, len(tags)), tags)
			}
			for _, g := range got {
				if !slices.Contains(tags, g.(string)) {
					t.Fatalf("order %v: tag %v is not linked (%v)", o["__primaryKey"], g, tags)
				}
			}
		}
	})
}

// customerStats are the count and sum of each customer's orders.
type customerStats struct {
	id    string
	n     float64
	total any
}

func (lr linkRows) stats() []customerStats {
	var out []customerStats
	for _, c := range lr.customers {
		os := lr.ordersOf(c)
		s := customerStats{id: key(c), n: float64(len(os))}
		if len(os) > 0 {
			t := 0.0
			for _, x := range amounts(os) {
				t += x
			}
			s.total = t
		}
		out = append(out, s)
	}
	return out
}

func TestDerived_whereOrderAndPages(t *testing.T) {
	e := mustLinksEnv(t, 12)
	defs := map[string]any{"n": sel(pivot("orders"), "count"), "total": sel(pivot("orders"), "sum", "selectedPropertyApiName", "amount")}
	set := map[string]any{"type": "filter", "objectSet": withProps(baseSet("Customer"), defs),
		"where": where(`{"type":"gte","propertyIdentifier":{"type":"property","apiName":"n"},"value":3}`)}
	for _, desc := range []bool{true, false} {
		t.Run(fmt.Sprint("desc ", desc), func(t *testing.T) {
			dir := "asc"
			if desc {
				dir = "desc"
			}
			body := map[string]any{"objectSet": set, "orderBy": map[string]any{"fields": []any{map[string]any{"field": "total", "direction": dir}}}}
			for _, size := range []int{1, 4, 100} {
				objs, first := e.pageAll(t, http.MethodPost, ontologyPath+"/objectSets/loadObjects", body, size)
				var want []customerStats
				for _, s := range e.rows.stats() {
					if s.n >= 3 {
						want = append(want, s)
					}
				}
				slices.SortStableFunc(want, func(a, b customerStats) int {
					x, y := a.total.(float64), b.total.(float64) // n >= 3: never null
					c := cmp.Compare(x, y)
					if desc {
						c = -c
					}
					if c != 0 {
						return c
					}
					return cmp.Compare(len(a.id), len(b.id))*10 + cmp.Compare(a.id, b.id)
				})
				if len(objs) != len(want) || first["totalCount"] != fmt.Sprint(len(want)) {
					t.Fatalf("size %d: %d objects (total %v), want %d", size, len(objs), first["totalCount"], len(want))
				}
				for i, o := range objs {
					if fmt.Sprint(o["__primaryKey"]) != want[i].id || !sameNumber(o["total"], want[i].total) || number(o["n"]) != want[i].n {
						t.Fatalf("size %d: object %d is %v (n %v, total %v), want %+v", size, i, o["__primaryKey"], o["n"], o["total"], want[i])
					}
				}
			}
		})
	}
	t.Run("aggregate grouped by a derived property", func(t *testing.T) {
		m := e.ok(t, http.MethodPost, ontologyPath+"/objectSets/aggregate", map[string]any{
			"objectSet":   withProps(baseSet("Customer"), defs),
			"aggregation": []any{map[string]any{"type": "count", "name": "c"}, map[string]any{"type": "max", "field": "total", "name": "top"}},
			"groupBy":     []any{map[string]any{"type": "exact", "field": "n"}},
		})
		want := map[float64][2]float64{}
		for _, s := range e.rows.stats() {
			w := want[s.n]
			w[0]++
			if s.total != nil {
				w[1] = math.Max(w[1], s.total.(float64))
			}
			want[s.n] = w
		}
		data := m["data"].([]any)
		if len(data) != len(want) {
			t.Fatalf("%d groups, want %d: %v", len(data), len(want), m)
		}
		for _, g := range data {
			g := g.(map[string]any)
			n := number(g["group"].(map[string]any)["n"]).(float64)
			ms := g["metrics"].([]any)
			if c := number(ms[0].(map[string]any)["value"]); c != want[n][0] {
				t.Fatalf("group n=%v: count %v, want %v", n, c, want[n][0])
			}
			if top := ms[1].(map[string]any)["value"]; n > 0 && !sameNumber(top, want[n][1]) {
				t.Fatalf("group n=%v: max total %v, want %v", n, top, want[n][1])
			}
		}
	})
	t.Run("aggregate of a set filtered on a derived property", func(t *testing.T) {
		m := e.ok(t, http.MethodPost, ontologyPath+"/objectSets/aggregate", map[string]any{
			"objectSet": set, "aggregation": []any{map[string]any{"type": "count", "name": "c"}}, "groupBy": []any{},
		})
		want := 0
		for _, s := range e.rows.stats() {
			if s.n >= 3 {
				want++
			}
		}
		got := number(m["data"].([]any)[0].(map[string]any)["metrics"].([]any)[0].(map[string]any)["value"])
		if got != float64(want) {
			t.Fatalf("count %v, want %d", got, want)
		}
	})
}

func TestDerived_errors(t *testing.T) {
	e := mustLinksEnv(t, 13)
	tests := []struct {
		name, field string
		def         any
	}{
		{"unknown type", "derivedProperties.d.type", map[string]any{"type": "square"}},
		{"selection without objectSet", "derivedProperties.d.objectSet", map[string]any{"type": "selection", "operation": map[string]any{"type": "count"}}},
		{"unknown operation", "derivedProperties.d.operation.type", sel(pivot("orders"), "median")},
		{"unknown selected property", "derivedProperties.d.operation.selectedPropertyApiName", sel(pivot("orders"), "sum", "selectedPropertyApiName", "nope")},
		{"sum of a string", "derivedProperties.d.operation.selectedPropertyApiName", sel(pivot("orders"), "sum", "selectedPropertyApiName", "status")},
		{"get over a MANY link", "derivedProperties.d.operation.type", sel(pivot("orders"), "get", "selectedPropertyApiName", "status")},
		{"collectList without limit", "derivedProperties.d.operation.limit", sel(pivot("orders"), "collectList", "selectedPropertyApiName", "status")},
		{"selection of methodInput", "derivedProperties.d.objectSet", sel(pivot(), "count")},
		{"base in a selection", "derivedProperties.d.objectSet.type", sel(baseSet("Order"), "count")},
		{"alias of nothing", "derivedProperties.d.apiName", prop("nope")},
		{"add of one", "derivedProperties.d.properties", map[string]any{"type": "add", "properties": []any{prop("id")}}},
		{"add of a string", "derivedProperties.d.properties[1]", map[string]any{"type": "add", "properties": []any{prop("id"), prop("name")}}},
		{"extract of a number", "derivedProperties.d.property", map[string]any{"type": "extract", "part": "YEARS", "property": prop("id")}},
		{"name taken", "derivedProperties", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defs := map[string]any{"d": tc.def}
			if tc.def == nil {
				defs = map[string]any{"name": sel(pivot("orders"), "count")}
			}
			m := e.fail(t, http.MethodPost, ontologyPath+"/objectSets/loadObjects",
				map[string]any{"objectSet": withProps(baseSet("Customer"), defs)}, http.StatusBadRequest, "MalformedObjectSet")
			p := m["parameters"].(map[string]any)
			if p["field"] != tc.field && !(tc.name == "add of a string" && p["field"] == "derivedProperties.d") {
				t.Fatalf("field %v, want %s: %v", p["field"], tc.field, m)
			}
		})
	}
	t.Run("loadLinks refuses derived properties", func(t *testing.T) {
		e.fail(t, http.MethodPost, ontologyPath+"/objectSets/loadLinks",
			map[string]any{"objectSet": withProps(baseSet("Customer"), map[string]any{"n": sel(pivot("orders"), "count")}), "links": []string{"orders"}},
			http.StatusBadRequest, "UnsupportedObjectSet")
	})
}
