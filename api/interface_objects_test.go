package api_test

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

// ifaceItem is an object of the interfaces env as a brute-force answer
// sees it: its type, key and interface properties.
type ifaceItem struct {
	typ    string
	typeAt int // the type's position in the config
	key    string
	id     int64 // numeric key (Customer, Order)
	label  string
	amount float64 // Order only
	row    icebergtest.Row
}

var ifaceTypes = []string{"Customer", "Order", "Tag"}

// items are the objects of the given types, in the order a set of them
// lists them without orderBy: by type, then by key.
func (lr linkRows) items(types ...string) []ifaceItem {
	var out []ifaceItem
	for _, typ := range types {
		at := slices.Index(ifaceTypes, typ)
		var rows []icebergtest.Row
		label := ""
		switch typ {
		case "Customer":
			rows, label = lr.customers, "name"
		case "Order":
			rows, label = lr.orders, "status"
		case "Tag":
			rows, label = lr.tags, "label"
		}
		for _, r := range rows {
			it := ifaceItem{typ: typ, typeAt: at, key: key(r), label: fmt.Sprint(r[label]), row: r}
			if id, ok := r["id"].(int64); ok {
				it.id = id
			}
			if a, ok := r["amount"].(float64); ok {
				it.amount = a
			}
			out = append(out, it)
		}
	}
	slices.SortStableFunc(out, func(a, b ifaceItem) int {
		return cmp.Or(cmp.Compare(a.typeAt, b.typeAt), cmp.Compare(a.id, b.id), strings.Compare(a.key, b.key))
	})
	return out
}

// itemIDs are "Type:key" of items.
func itemIDs(items []ifaceItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.typ + ":" + it.key
	}
	return out
}

// objectIDs are "Type:key" of returned objects.
func objectIDs(objs []map[string]any) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = fmt.Sprint(o["__apiName"]) + ":" + fmt.Sprint(o["__primaryKey"])
	}
	return out
}

// pageAll pages a POST body (a map; pageToken is set on it) or a GET path
// to its end with the given page size, and checks that every page reports
// the same total.
func (e *testEnv) pageAll(tb testing.TB, method, path string, body map[string]any, size int) ([]map[string]any, map[string]any) {
	tb.Helper()
	var all []map[string]any
	var first map[string]any
	token := ""
	for pages := 0; ; pages++ {
		if pages > 1000 {
			tb.Fatalf("%s: more than 1000 pages", path)
		}
		var m map[string]any
		if method == http.MethodGet {
			sep := "?"
			if strings.Contains(path, "?") {
				sep = "&"
			}
			p := fmt.Sprintf("%s%spageSize=%d", path, sep, size)
			if token != "" {
				p += "&pageToken=" + token
			}
			m = e.ok(tb, method, p, nil)
		} else {
			b := maps.Clone(body)
			b["pageSize"] = size
			if token != "" {
				b["pageToken"] = token
			}
			m = e.ok(tb, method, path, b)
		}
		if first == nil {
			first = m
		} else if m["totalCount"] != first["totalCount"] {
			tb.Fatalf("%s: totalCount %v on a later page, %v on the first", path, m["totalCount"], first["totalCount"])
		}
		objs := objectsOf(tb, m)
		if len(objs) > size {
			tb.Fatalf("%s: %d objects on a page of %d", path, len(objs), size)
		}
		all = append(all, objs...)
		next, _ := m["nextPageToken"].(string)
		if next == "" {
			return all, first
		}
		token = next
	}
}

func iset(kind string, fields ...any) map[string]any {
	m := map[string]any{"type": kind}
	for i := 0; i+1 < len(fields); i += 2 {
		m[fields[i].(string)] = fields[i+1]
	}
	return m
}

func TestServer_loadObjectsMultipleObjectTypes(t *testing.T) {
	e := mustInterfacesEnv(t, 11)
	lr := e.rows
	path := ontologyPath + "/objectSets/loadObjectsMultipleObjectTypes"
	named := iset("interfaceBase", "interfaceType", "Named")
	byLabel := func(items []ifaceItem, desc bool) []ifaceItem {
		out := slices.Clone(items)
		slices.SortStableFunc(out, func(a, b ifaceItem) int {
			c := strings.Compare(a.label, b.label)
			if desc {
				c = -c
			}
			return cmp.Or(c, cmp.Compare(a.typeAt, b.typeAt), cmp.Compare(a.id, b.id), strings.Compare(a.key, b.key))
		})
		return out
	}
	filterItems := func(items []ifaceItem, keep func(ifaceItem) bool) []ifaceItem {
		return slices.DeleteFunc(slices.Clone(items), func(it ifaceItem) bool { return !keep(it) })
	}
	all := lr.items(ifaceTypes...)
	orders := lr.items("Order")
	cases := []struct {
		name  string
		set   map[string]any
		order any
		want  []ifaceItem
		iface string
	}{
		{"interface, no order", named, nil, all, "Named"},
		{"interface, by label", named, map[string]any{"fields": []any{map[string]any{"field": "label", "direction": "asc"}}}, byLabel(all, false), "Named"},
		{"interface, by label desc", named, map[string]any{"fields": []any{map[string]any{"field": "label", "direction": "desc"}}}, byLabel(all, true), "Named"},
		{"filter on an interface property", iset("filter", "objectSet", named, "where", map[string]any{"type": "eq", "field": "label", "value": "paid"}), nil,
			filterItems(all, func(it ifaceItem) bool { return it.label == "paid" }), "Named"},
		{"filter on an inherited and an own property", iset("filter", "objectSet", iset("interfaceBase", "interfaceType", "Billable"), "where",
			map[string]any{"type": "and", "value": []any{map[string]any{"type": "gte", "field": "amount", "value": 500}, map[string]any{"type": "eq", "field": "label", "value": "open"}}}), nil,
			filterItems(orders, func(it ifaceItem) bool { return it.amount >= 500 && it.label == "open" }), "Billable"},
		{"union of two object types", iset("union", "objectSets", []any{iset("base", "objectType", "Tag"), iset("base", "objectType", "Customer")}), nil,
			append(lr.items("Tag"), lr.items("Customer")...), ""},
		{"asType narrows to an object type", iset("asType", "entityType", "Tag", "objectSet", named), nil, lr.items("Tag"), ""},
		{"asType narrows to an interface", iset("asType", "entityType", "Billable", "objectSet", named), nil, orders, "Billable"},
		{"intersect with interfaceBase", iset("intersect", "objectSets", []any{iset("base", "objectType", "Order"), iset("interfaceBase", "interfaceType", "Named", "includeAllBaseObjectProperties", true)}), nil, orders, "Named"},
		{"subtract across types", iset("subtract", "objectSets", []any{named, iset("base", "objectType", "Customer")}), nil, lr.items("Order", "Tag"), "Named"},
		{"interface link to an object type", iset("interfaceLinkSearchAround", "objectSet", iset("interfaceBase", "interfaceType", "Billable"), "interfaceLink", "payer"), nil,
			lr.itemsOf("Customer", lr.around("Order", "customer", lr.orders)), ""},
		{"interface link to an interface", iset("interfaceLinkSearchAround", "objectSet", iset("interfaceBase", "interfaceType", "Party"), "interfaceLink", "bills"), nil,
			lr.itemsOf("Order", lr.around("Customer", "orders", lr.customers)), "Billable"},
	}
	for _, size := range []int{1, 7, 1000} {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s/page %d", c.name, size), func(t *testing.T) {
				body := map[string]any{"objectSet": c.set}
				if c.order != nil {
					body["orderBy"] = c.order
				}
				got, first := e.pageAll(t, http.MethodPost, path, body, size)
				if g, w := objectIDs(got), itemIDs(c.want); !slices.Equal(g, w) {
					t.Fatalf("got %d objects %v\nwant %d %v", len(g), g, len(w), w)
				}
				if tc := fmt.Sprint(first["totalCount"]); tc != fmt.Sprint(len(c.want)) {
					t.Errorf("totalCount %s, want %d", tc, len(c.want))
				}
				mappings, _ := first["interfaceToObjectTypeMappings"].(map[string]any)
				if c.iface == "" && len(mappings) != 0 || c.iface != "" && mappings[c.iface] == nil {
					t.Errorf("interfaceToObjectTypeMappings %v, want the mappings of %q", mappings, c.iface)
				}
				for _, o := range got {
					if o["__apiName"] == "Customer" && o["name"] == nil {
						t.Fatalf("a Customer without its own property name: %v", o)
					}
				}
			})
		}
	}
}

// itemsOf are the items of typ with the given keys, in key order.
func (lr linkRows) itemsOf(typ string, keys []string) []ifaceItem {
	return slices.DeleteFunc(lr.items(typ), func(it ifaceItem) bool { return !slices.Contains(keys, it.key) })
}

func TestServer_interfaceObjects(t *testing.T) {
	e := mustInterfacesEnv(t, 12)
	lr := e.rows
	all := lr.items(ifaceTypes...)
	t.Run("list shows interface properties only", func(t *testing.T) {
		got, _ := e.pageAll(t, http.MethodGet, ontologyPath+"/interfaces/Named", nil, 9)
		if g, w := objectIDs(got), itemIDs(all); !slices.Equal(g, w) {
			t.Fatalf("got %v\nwant %v", g, w)
		}
		for i, o := range got {
			if o["label"] != all[i].label {
				t.Fatalf("object %d: label %v, want %q", i, o["label"], all[i].label)
			}
			for k := range o {
				if k != "label" && !strings.HasPrefix(k, "__") {
					t.Fatalf("object %d has property %q, which Named does not declare: %v", i, k, o)
				}
			}
		}
	})
	t.Run("search with where, order and selected types", func(t *testing.T) {
		body := map[string]any{"where": map[string]any{"type": "startsWith", "field": "label", "value": "customer 1"},
			"orderBy":             map[string]any{"fields": []any{map[string]any{"field": "label", "direction": "desc"}}},
			"selectedObjectTypes": []any{"Customer", "Tag"}}
		got, _ := e.pageAll(t, http.MethodPost, ontologyPath+"/interfaces/Named/search", body, 4)
		var want []ifaceItem
		for _, it := range lr.items("Customer") {
			if strings.HasPrefix(it.label, "customer 1") {
				want = append(want, it)
			}
		}
		slices.SortStableFunc(want, func(a, b ifaceItem) int { return cmp.Or(-strings.Compare(a.label, b.label), cmp.Compare(a.id, b.id)) })
		if g, w := objectIDs(got), itemIDs(want); !slices.Equal(g, w) {
			t.Fatalf("got %v\nwant %v", g, w)
		}
	})
	t.Run("loadObjectsOrInterfaces", func(t *testing.T) {
		got, _ := e.pageAll(t, http.MethodPost, ontologyPath+"/objectSets/loadObjectsOrInterfaces",
			map[string]any{"objectSet": iset("interfaceBase", "interfaceType", "Billable"), "select": []any{"amount"}}, 50)
		if len(got) != len(lr.orders) {
			t.Fatalf("%d objects, want %d orders", len(got), len(lr.orders))
		}
		for _, o := range got {
			if _, ok := o["label"]; ok {
				t.Fatalf("label was not selected: %v", o)
			}
			if _, ok := o["amount"]; !ok {
				t.Fatalf("amount was selected: %v", o)
			}
		}
	})
	t.Run("aggregate over an interface", func(t *testing.T) {
		body := map[string]any{"aggregation": []any{map[string]any{"type": "count"}},
			"groupBy": []any{map[string]any{"type": "exact", "field": "label"}}}
		m := e.ok(t, http.MethodPost, ontologyPath+"/interfaces/Named/aggregate", body)
		want := map[string]int{}
		for _, it := range all {
			want[it.label]++
		}
		checkCounts(t, m, "label", want)
	})
	t.Run("aggregate a union, with sum, avg, min, max and distinct", func(t *testing.T) {
		body := map[string]any{"objectSet": iset("interfaceBase", "interfaceType", "Billable"),
			"aggregation": []any{map[string]any{"type": "sum", "field": "amount"}, map[string]any{"type": "avg", "field": "amount"},
				map[string]any{"type": "max", "field": "amount"}, map[string]any{"type": "exactDistinct", "field": "label"}},
			"groupBy": []any{}}
		m := e.ok(t, http.MethodPost, ontologyPath+"/objectSets/aggregate", body)
		sum, hi := 0.0, 0.0
		labels := map[string]bool{}
		for _, it := range lr.items("Order") {
			sum, hi = sum+it.amount, max(hi, it.amount)
			labels[it.label] = true
		}
		metrics := objectsOf(t, m)[0]["metrics"].([]any)
		got := map[string]string{}
		for _, x := range metrics {
			mm := x.(map[string]any)
			got[mm["name"].(string)] = fmt.Sprint(mm["value"])
		}
		want := map[string]string{"amount.sum": fmt.Sprint(sum), "amount.avg": fmt.Sprint(sum / float64(len(lr.orders))),
			"amount.max": fmt.Sprint(hi), "label.exactDistinct": fmt.Sprint(len(labels))}
		if !maps.Equal(got, want) {
			t.Fatalf("metrics %v, want %v", got, want)
		}
	})
	t.Run("linked objects through an interface link", func(t *testing.T) {
		for _, c := range lr.customers[:5] {
			got, _ := e.pageAll(t, http.MethodGet, fmt.Sprintf("%s/interfaces/Party/Customer/%s/links/bills", ontologyPath, key(c)), nil, 3)
			want := lr.itemsOf("Order", lr.around("Customer", "orders", []icebergtest.Row{c}))
			if g, w := objectIDs(got), itemIDs(want); !slices.Equal(g, w) {
				t.Fatalf("customer %s: got %v, want %v", key(c), g, w)
			}
			for _, o := range got {
				if _, ok := o["status"]; ok {
					t.Fatalf("an order seen through Billable has no status: %v", o)
				}
			}
		}
	})
	t.Run("static with rids of several types", func(t *testing.T) {
		m := e.ok(t, http.MethodPost, ontologyPath+"/objectSets/loadObjectsMultipleObjectTypes", map[string]any{"objectSet": iset("interfaceBase", "interfaceType", "Named"), "pageSize": 1000})
		objs := objectsOf(t, m)
		var rids []any
		var want []string
		for i, o := range objs {
			if i%5 == 0 {
				rids = append(rids, o["__rid"])
				want = append(want, objectIDs(objs[i : i+1])[0])
			}
		}
		got, _ := e.pageAll(t, http.MethodPost, ontologyPath+"/objectSets/loadObjectsMultipleObjectTypes", map[string]any{"objectSet": iset("static", "objects", rids)}, 4)
		if g := objectIDs(got); !slices.Equal(g, want) {
			t.Fatalf("got %v, want %v", g, want)
		}
	})
	t.Run("errors", func(t *testing.T) {
		e.fail(t, http.MethodGet, ontologyPath+"/interfaces/Nope", nil, http.StatusNotFound, "InterfaceTypeNotFound")
		e.fail(t, http.MethodPost, ontologyPath+"/objectSets/loadObjects", map[string]any{"objectSet": iset("interfaceBase", "interfaceType", "Named")},
			http.StatusBadRequest, "UnsupportedObjectSet")
		e.fail(t, http.MethodPost, ontologyPath+"/objectSets/loadObjectsMultipleObjectTypes",
			map[string]any{"objectSet": iset("filter", "objectSet", iset("interfaceBase", "interfaceType", "Named"), "where", map[string]any{"type": "eq", "field": "name", "value": "x"})},
			http.StatusNotFound, "PropertiesNotFound")
	})
	t.Run("a token sees the implementers it may see", func(t *testing.T) {
		r := e.do(t, http.MethodGet, ontologyPath+"/interfaces/Named?pageSize=1000", ordersOnlyToken, nil)
		if r.status != http.StatusOK {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
		got := objectsOf(t, r.json(t))
		if g, w := objectIDs(got), itemIDs(lr.items("Order")); !slices.Equal(g, w) {
			t.Fatalf("got %v, want the orders only", g)
		}
		e.failAs(t, ordersOnlyToken, http.MethodGet, ontologyPath+"/interfaces/Party", nil, http.StatusNotFound, "InterfaceTypeNotFound")
	})
}

// checkCounts checks the count of each group of an aggregation grouped
// by one property.
func checkCounts(tb testing.TB, m map[string]any, prop string, want map[string]int) {
	tb.Helper()
	got := map[string]int{}
	prev := -1
	for _, item := range objectsOf(tb, m) {
		g := item["group"].(map[string]any)
		n := 0
		fmt.Sscan(fmt.Sprint(item["metrics"].([]any)[0].(map[string]any)["value"]), &n)
		if prev >= 0 && n > prev {
			tb.Fatalf("groups are not ordered by count: %d after %d", n, prev)
		}
		prev = n
		got[fmt.Sprint(g[prop])] = n
	}
	if !maps.Equal(got, want) {
		tb.Fatalf("counts %v, want %v", got, want)
	}
}

// TestServer_setsOfSeveralTypes_random pages random sets over the
// interfaces env (interface views narrowed, filtered, combined across
// types, in random orders and page sizes) and compares every answer with
// a brute-force evaluation of the rows.
func TestServer_setsOfSeveralTypes_random(t *testing.T) {
	e := mustInterfacesEnv(t, 13)
	lr := e.rows
	r := rand.New(rand.NewPCG(13, 14))
	all := lr.items(ifaceTypes...)
	labels := make([]string, 0, len(all))
	for _, it := range all {
		labels = append(labels, it.label)
	}
	// A random set of Named and its brute-force members.
	type gen struct {
		set  map[string]any
		keep func(ifaceItem) bool
	}
	leaf := func() gen {
		switch r.IntN(5) {
		case 4: // all of it: pages of every type, some ending before others
			return gen{iset("interfaceBase", "interfaceType", "Named"), func(ifaceItem) bool { return true }}
		case 0:
			l := labels[r.IntN(len(labels))]
			return gen{iset("filter", "objectSet", iset("interfaceBase", "interfaceType", "Named"), "where", map[string]any{"type": "eq", "field": "label", "value": l}),
				func(it ifaceItem) bool { return it.label == l }}
		case 1:
			p := labels[r.IntN(len(labels))][:1+r.IntN(3)]
			return gen{iset("filter", "objectSet", iset("interfaceBase", "interfaceType", "Named"), "where", map[string]any{"type": "startsWith", "field": "label", "value": p}),
				func(it ifaceItem) bool { return strings.HasPrefix(it.label, p) }}
		case 2:
			typ := ifaceTypes[r.IntN(len(ifaceTypes))]
			return gen{iset("asType", "entityType", "Named", "objectSet", iset("base", "objectType", typ)), func(it ifaceItem) bool { return it.typ == typ }}
		}
		lo := float64(r.IntN(1000))
		return gen{iset("asType", "entityType", "Named", "objectSet", iset("filter", "objectSet", iset("base", "objectType", "Order"), "where", map[string]any{"type": "gte", "field": "amount", "value": lo})),
			func(it ifaceItem) bool { return it.typ == "Order" && it.amount >= lo }}
	}
	for i := range 60 {
		a, b := leaf(), leaf()
		var g gen
		switch r.IntN(3) {
		case 0:
			g = gen{iset("union", "objectSets", []any{a.set, b.set}), func(it ifaceItem) bool { return a.keep(it) || b.keep(it) }}
		case 1:
			g = gen{iset("intersect", "objectSets", []any{a.set, b.set}), func(it ifaceItem) bool { return a.keep(it) && b.keep(it) }}
		default:
			g = gen{iset("subtract", "objectSets", []any{a.set, b.set}), func(it ifaceItem) bool { return a.keep(it) && !b.keep(it) }}
		}
		desc := r.IntN(2) == 0
		var want []ifaceItem
		for _, it := range all {
			if g.keep(it) {
				want = append(want, it)
			}
		}
		slices.SortStableFunc(want, func(x, y ifaceItem) int {
			c := strings.Compare(x.label, y.label)
			if desc {
				c = -c
			}
			return cmp.Or(c, cmp.Compare(x.typeAt, y.typeAt), cmp.Compare(x.id, y.id), strings.Compare(x.key, y.key))
		})
		dir := map[bool]string{false: "asc", true: "desc"}[desc]
		body := map[string]any{"objectSet": g.set, "orderBy": map[string]any{"fields": []any{map[string]any{"field": "label", "direction": dir}}}}
		size := []int{1, 3, 10, 30, 100, 500}[r.IntN(6)]
		got, first := e.pageAll(t, http.MethodPost, ontologyPath+"/objectSets/loadObjectsOrInterfaces", body, size)
		if g, w := objectIDs(got), itemIDs(want); !slices.Equal(g, w) {
			t.Fatalf("%d: %v, page %d: got %v\nwant %v", i, g, size, g, w)
		}
		if tc := fmt.Sprint(first["totalCount"]); tc != fmt.Sprint(len(want)) {
			t.Fatalf("%d: totalCount %s, want %d", i, tc, len(want))
		}
	}
}
