package api_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
)

func baseSet(typ string) map[string]any { return map[string]any{"type": "base", "objectType": typ} }

func aroundSet(set map[string]any, link string) map[string]any {
	return map[string]any{"type": "searchAround", "objectSet": set, "link": link}
}

func filterSet(set map[string]any, where map[string]any) map[string]any {
	return map[string]any{"type": "filter", "objectSet": set, "where": where}
}

// loadAll loads every page of an object set (small pages, to follow page
// tokens) and checks that totalCount counts them.
func (e *linksEnv) loadAll(tb testing.TB, set map[string]any) []string {
	tb.Helper()
	var out []string
	body := map[string]any{"objectSet": set, "pageSize": 7}
	for {
		objs, m := e.load(tb, body)
		out = append(out, ids(objs)...)
		if m["totalCount"] != fmt.Sprint(len(out)) && m["nextPageToken"] == nil {
			tb.Fatalf("totalCount %v, %d objects: %v", m["totalCount"], len(out), set)
		}
		tok, ok := m["nextPageToken"].(string)
		if !ok {
			return out
		}
		body["pageToken"] = tok
	}
}

// sourceSet draws a set of one type and returns it with its rows.
func (e *linksEnv) sourceSet(r *rand.Rand, typ string) (map[string]any, []icebergtest.Row) {
	all := map[string][]icebergtest.Row{"Customer": e.rows.customers, "Order": e.rows.orders, "Tag": e.rows.tags}[typ]
	keep := func(f func(icebergtest.Row) bool) []icebergtest.Row {
		var out []icebergtest.Row
		for _, row := range all {
			if f(row) {
				out = append(out, row)
			}
		}
		return out
	}
	if r.IntN(4) == 0 {
		return baseSet(typ), all
	}
	switch typ {
	case "Customer":
		city := linkCities[r.IntN(len(linkCities))]
		return filterSet(baseSet(typ), map[string]any{"type": "eq", "field": "city", "value": city}),
			keep(func(row icebergtest.Row) bool { return row["city"] == city })
	case "Order":
		lim := float64(r.IntN(1000))
		return filterSet(baseSet(typ), map[string]any{"type": "lt", "field": "amount", "value": lim}),
			keep(func(row icebergtest.Row) bool { return row["amount"].(float64) < lim })
	}
	codes := []any{fmt.Sprintf("t%d", r.IntN(10)), fmt.Sprintf("t%d", r.IntN(10))}
	return filterSet(baseSet(typ), map[string]any{"type": "in", "field": "code", "value": codes}),
		keep(func(row icebergtest.Row) bool { return slices.Contains(codes, any(row["code"])) })
}

// TestLinks_searchAround follows every link side, one and two steps, from
// random sets, and compares each answer (pages, order, totalCount) with a
// brute-force join of the table rows.
func TestLinks_searchAround(t *testing.T) {
	e := mustLinksEnv(t, 1)
	r := rand.New(rand.NewPCG(2, 3))
	sides := []struct{ src, link, dst string }{
		{"Order", "customer", "Customer"}, {"Customer", "orders", "Order"}, {"Order", "tags", "Tag"}, {"Tag", "orders", "Order"},
	}
	for i := range 24 {
		s := sides[i%len(sides)]
		set, rows := e.sourceSet(r, s.src)
		want := e.rows.around(s.src, s.link, rows)
		if got := e.loadAll(t, aroundSet(set, s.link)); !slices.Equal(got, want) {
			t.Fatalf("%s.%s from %v:\n got %v\nwant %v", s.src, s.link, set, got, want)
		}
		// A second step from the first one's target.
		for _, n := range sides {
			if n.src != s.dst {
				continue
			}
			want2 := e.rows.around(n.src, n.link, e.rows.rowsOf(s.dst, want))
			if got := e.loadAll(t, aroundSet(aroundSet(set, s.link), n.link)); !slices.Equal(got, want2) {
				t.Fatalf("%s.%s.%s from %v:\n got %v\nwant %v", s.src, s.link, n.link, set, got, want2)
			}
		}
	}
	t.Run("filter and union after the link", func(t *testing.T) {
		city := linkCities[0]
		var rows []icebergtest.Row
		for _, c := range e.rows.customers {
			if c["city"] == city {
				rows = append(rows, c)
			}
		}
		orders := e.rows.rowsOf("Order", e.rows.around("Customer", "orders", rows))
		var want []string
		for _, o := range orders {
			if o["status"] == "paid" {
				want = append(want, key(o))
			}
		}
		around := aroundSet(filterSet(baseSet("Customer"), map[string]any{"type": "eq", "field": "city", "value": city}), "orders")
		got := e.loadAll(t, filterSet(around, map[string]any{"type": "eq", "field": "status", "value": "paid"}))
		if !slices.Equal(got, want) {
			t.Fatalf("paid orders of %s: got %v, want %v", city, got, want)
		}
		both := e.loadAll(t, map[string]any{"type": "union", "objectSets": []any{around, aroundSet(baseSet("Tag"), "orders")}})
		wantBoth := e.rows.around("Customer", "orders", rows)
		for _, k := range e.rows.around("Tag", "orders", e.rows.tags) {
			if !slices.Contains(wantBoth, k) {
				wantBoth = append(wantBoth, k)
			}
		}
		slices.SortFunc(wantBoth, func(a, b string) int { return cmpNumeric(a, b) })
		if !slices.Equal(both, wantBoth) {
			t.Fatalf("union: got %v, want %v", both, wantBoth)
		}
	})
	t.Run("aggregate over a link", func(t *testing.T) {
		m := e.ok(t, http.MethodPost, ontologyPath+"/objectSets/aggregate", map[string]any{
			"objectSet": aroundSet(baseSet("Tag"), "orders"), "aggregation": []any{map[string]any{"type": "count", "name": "n"}}, "groupBy": []any{}})
		want := len(e.rows.around("Tag", "orders", e.rows.tags))
		if got := fmt.Sprint(m["data"].([]any)[0].(map[string]any)["metrics"].([]any)[0].(map[string]any)["value"]); got != fmt.Sprint(want) {
			t.Fatalf("count of tagged orders: got %s, want %d: %v", got, want, m)
		}
	})
}

func cmpNumeric(a, b string) int {
	var x, y int
	fmt.Sscan(a, &x)
	fmt.Sscan(b, &y)
	return x - y
}

// TestLinks_endpoints: the link types of each type, the objects one object
// links to, one linked object, and the errors.
func TestLinks_endpoints(t *testing.T) {
	e := mustLinksEnv(t, 4)
	m := e.ok(t, http.MethodGet, ontologyPath+"/objectTypes/Order/outgoingLinkTypes", nil)
	var got []string
	for _, d := range m["data"].([]any) {
		l := d.(map[string]any)
		got = append(got, fmt.Sprintf("%v>%v %v fk=%v", l["apiName"], l["objectTypeApiName"], l["cardinality"], l["foreignKeyPropertyApiName"]))
	}
	if want := []string{"customer>Customer ONE fk=customerId", "tags>Tag MANY fk=<nil>"}; !slices.Equal(got, want) {
		t.Fatalf("Order's link types: %v, want %v", got, want)
	}
	one := e.ok(t, http.MethodGet, ontologyPath+"/objectTypes/Customer/outgoingLinkTypes/orders", nil)
	if one["objectTypeApiName"] != "Order" || one["cardinality"] != "MANY" || one["linkTypeRid"] == "" {
		t.Fatalf("Customer.orders: %v", one)
	}
	back := e.ok(t, http.MethodGet, ontologyPath+"/objectTypes/Order/outgoingLinkTypes/customer", nil)
	if back["linkTypeRid"] != one["linkTypeRid"] {
		t.Fatalf("the two sides of one link type have rids %v and %v", back["linkTypeRid"], one["linkTypeRid"])
	}
	e.fail(t, http.MethodGet, ontologyPath+"/objectTypes/Order/outgoingLinkTypes/nope", nil, 404, "LinkTypeNotFound")

	for _, c := range e.rows.customers[:8] {
		want := e.rows.around("Customer", "orders", []icebergtest.Row{c})
		m := e.ok(t, http.MethodGet, ontologyPath+"/objects/Customer/"+key(c)+"/links/orders?pageSize=1000", nil)
		if got := ids(objectsOf(t, m)); !slices.Equal(got, want) {
			t.Fatalf("orders of customer %s: got %v, want %v", key(c), got, want)
		}
		for _, o := range want {
			lo := e.ok(t, http.MethodGet, ontologyPath+"/objects/Customer/"+key(c)+"/links/orders/"+o, nil)
			if fmt.Sprint(lo["__primaryKey"]) != o || lo["__apiName"] != "Order" {
				t.Fatalf("linked order %s: %v", o, lo)
			}
		}
	}
	for _, o := range e.rows.orders[:8] {
		want := e.rows.around("Order", "tags", []icebergtest.Row{o})
		m := e.ok(t, http.MethodGet, ontologyPath+"/objects/Order/"+key(o)+"/links/tags?orderBy=properties.code:desc", nil)
		slices.Reverse(want)
		if got := ids(objectsOf(t, m)); !slices.Equal(got, want) {
			t.Fatalf("tags of order %s: got %v, want %v", key(o), got, want)
		}
	}
	// An order that names no customer is linked to none.
	for _, o := range e.rows.orders {
		if len(e.rows.around("Order", "customer", []icebergtest.Row{o})) == 0 {
			m := e.ok(t, http.MethodGet, ontologyPath+"/objects/Order/"+key(o)+"/links/customer", nil)
			if len(objectsOf(t, m)) != 0 {
				t.Fatalf("order %s has no customer, got %v", key(o), m)
			}
			e.fail(t, http.MethodGet, ontologyPath+"/objects/Order/"+key(o)+"/links/customer/1", nil, 404, "LinkedObjectNotFound")
			break
		}
	}
	e.fail(t, http.MethodGet, ontologyPath+"/objects/Order/999999/links/customer", nil, 404, "ObjectNotFound")
	e.fail(t, http.MethodGet, ontologyPath+"/objects/Order/1/links/nope", nil, 404, "LinkTypeNotFound")
	e.fail(t, http.MethodGet, ontologyPath+"/objects/Order/x/links/customer", nil, 400, "InvalidPropertyValue")

	t.Run("a link to a type the token cannot see does not exist for it", func(t *testing.T) {
		m := e.do(t, http.MethodGet, ontologyPath+"/objectTypes/Order/outgoingLinkTypes", ordersOnlyToken, nil).json(t)
		if d := m["data"].([]any); len(d) != 0 {
			t.Fatalf("link types of Order for a token that sees only Order: %v", d)
		}
		e.failAs(t, ordersOnlyToken, http.MethodGet, ontologyPath+"/objects/Order/1/links/customer", nil, 404, "LinkTypeNotFound")
		e.failAs(t, ordersOnlyToken, http.MethodPost, ontologyPath+"/objectSets/loadObjects",
			map[string]any{"objectSet": aroundSet(baseSet("Order"), "tags")}, 404, "LinkTypeNotFound")
		e.failAs(t, ordersOnlyToken, http.MethodPost, ontologyPath+"/objectSets/loadObjects",
			map[string]any{"objectSet": aroundSet(baseSet("Customer"), "orders")}, 404, "ObjectTypeNotFound")
	})
	t.Run("link tables are no object types", func(t *testing.T) {
		e.fail(t, http.MethodGet, ontologyPath+"/objects/Order.tags", nil, 404, "ObjectTypeNotFound")
		for _, d := range e.ok(t, http.MethodGet, ontologyPath+"/objectTypes", nil)["data"].([]any) {
			if n := d.(map[string]any)["apiName"]; n != "Customer" && n != "Order" && n != "Tag" {
				t.Fatalf("object types list %v", n)
			}
		}
	})
}

// TestLinks_edits: a copy-on-write edit of a foreign key, and of the join
// table, moves an object from one linked set to another after that table's
// build alone.
func TestLinks_edits(t *testing.T) {
	ctx := context.Background()
	e := mustLinksEnv(t, 5)
	orderOf := func(c string) []string {
		return ids(objectsOf(t, e.ok(t, http.MethodGet, ontologyPath+"/objects/Customer/"+c+"/links/orders?pageSize=1000", nil)))
	}
	build := func(name string) {
		t.Helper()
		if _, err := e.ix.Build(ctx, name, indexer.BuildOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// Order 1 moves to customer 2 (or 3 when it was 2's).
	o := e.rows.orders[0]
	to := int32(2)
	if o["customer_id"] == to {
		to = 3
	}
	moved := icebergtest.Row{"id": o["id"], "customer_id": to, "amount": o["amount"], "status": o["status"]}
	if err := e.orders.Overwrite(ctx, iceberg.EqualTo(iceberg.Reference("id"), int64(1)), []icebergtest.Row{moved}); err != nil {
		t.Fatal(err)
	}
	build("Order")
	if from, ok := o["customer_id"]; ok && slices.Contains(orderOf(fmt.Sprint(from)), "1") {
		t.Fatalf("order 1 still linked from customer %v", from)
	}
	if !slices.Contains(orderOf(fmt.Sprint(to)), "1") {
		t.Fatalf("order 1 not linked from customer %d: %v", to, orderOf(fmt.Sprint(to)))
	}
	if c := e.ok(t, http.MethodGet, ontologyPath+"/objects/Order/1/links/customer/"+fmt.Sprint(to), nil); fmt.Sprint(c["__primaryKey"]) != fmt.Sprint(to) {
		t.Fatalf("customer of order 1: %v", c)
	}

	// Order 2 loses its tags and gets t9 only.
	tagsOf := func() []string {
		return ids(objectsOf(t, e.ok(t, http.MethodGet, ontologyPath+"/objects/Order/2/links/tags", nil)))
	}
	before := tagsOf()
	if err := e.orderTags.Overwrite(ctx, iceberg.EqualTo(iceberg.Reference("order_id"), int64(2)),
		[]icebergtest.Row{{"order_id": int64(2), "tag_code": "t9"}}); err != nil {
		t.Fatal(err)
	}
	if got := tagsOf(); !slices.Equal(got, before) {
		t.Fatalf("tags changed before the join table's build: %v, were %v", got, before)
	}
	build("Order.tags")
	if got := tagsOf(); !slices.Equal(got, []string{"t9"}) {
		t.Fatalf("tags of order 2 after the edit: %v, want [t9]", got)
	}
	orders9 := e.loadAll(t, aroundSet(filterSet(baseSet("Tag"), map[string]any{"type": "eq", "field": "code", "value": "t9"}), "orders"))
	if !slices.Contains(orders9, "2") {
		t.Fatalf("orders of t9 miss order 2: %v", orders9)
	}
}

// TestLinks_joinTableColumns: a join table without the configured key
// column fails the build of its link table with an error naming the link
// table and the column; the object types build.
func TestLinks_joinTableColumns(t *testing.T) {
	ctx := context.Background()
	w := icebergtest.MustWarehouse(t)
	for ident, sc := range map[string]*iceberg.Schema{"shop.customers": customerSchema, "shop.orders": orderSchema, "shop.tags": tagSchema, "shop.order_tags": orderTagSchema} {
		if _, err := w.CreateTable(ctx, ident, sc, nil); err != nil {
			t.Fatal(err)
		}
	}
	specs := linkSpecs()
	specs[1].Links[1].Through.SourceKey = "ord_id"
	ix := indexertest.Open(t, indexertest.Config(t, w, specs...))
	for _, res := range ix.BuildAll(ctx, indexer.BuildOptions{}) {
		switch {
		case res.ObjectType == "Order.tags":
			if res.Error == nil || !strings.Contains(res.Error.Message, "Order.tags") || !strings.Contains(res.Error.Message, `"ord_id"`) {
				t.Fatalf("build of the link table: %+v", res.Error)
			}
		case res.Error != nil:
			t.Fatalf("build %s: %s", res.ObjectType, res.Error.Message)
		}
	}
}
