package api_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/api"
	"github.com/ontoindex/ontoindex/api/serverconfig"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
	"github.com/ontoindex/ontoindex/objects"
)

// ordersOnlyToken sees Order and no other type of the links env.
const ordersOnlyToken = "orders-only-token-0123456789"

// linksEnv serves Customer, Order and Tag over random rows: an Order links
// to its Customer by the foreign key customerId (ONE; the reverse, orders,
// MANY) and to Tags through the join table order_tags (MANY both ways).
// Some foreign keys are null and some name no customer, some join rows no
// order or no tag: links to nothing are not links.
type linksEnv struct {
	*testEnv
	customers, orders, tags, orderTags *icebergtest.Table
	rows                               linkRows
}

// linkRows are the rows of the four tables, for brute-force answers.
type linkRows struct {
	customers, orders, tags, orderTags []icebergtest.Row
}

var (
	customerSchema = iceberg.NewSchemaWithIdentifiers(1, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "city", Type: iceberg.PrimitiveTypes.String})
	orderSchema = iceberg.NewSchemaWithIdentifiers(1, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "customer_id", Type: iceberg.PrimitiveTypes.Int32},
		iceberg.NestedField{ID: 3, Name: "amount", Type: iceberg.PrimitiveTypes.Float64},
		iceberg.NestedField{ID: 4, Name: "status", Type: iceberg.PrimitiveTypes.String})
	tagSchema = iceberg.NewSchemaWithIdentifiers(1, []int{1},
		iceberg.NestedField{ID: 1, Name: "code", Type: iceberg.PrimitiveTypes.String, Required: true},
		iceberg.NestedField{ID: 2, Name: "label", Type: iceberg.PrimitiveTypes.String})
	orderTagSchema = iceberg.NewSchema(1,
		iceberg.NestedField{ID: 1, Name: "order_id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "tag_code", Type: iceberg.PrimitiveTypes.String, Required: true})
)

var linkCities = []string{"Oslo", "Lima", "Pune", "Kobe"}

// randomLinkRows draws the rows: customer ids 1..nc, order ids 1..no, a
// foreign key from -2 to nc+2 (0 and below: null; above nc: no customer),
// tag codes t0..t9, and join rows that may name no order or no tag.
func randomLinkRows(r *rand.Rand, nc, no int) linkRows {
	var lr linkRows
	for i := 1; i <= nc; i++ {
		lr.customers = append(lr.customers, icebergtest.Row{"id": int64(i), "name": fmt.Sprintf("customer %d", i), "city": linkCities[r.IntN(len(linkCities))]})
	}
	for i := 1; i <= no; i++ {
		row := icebergtest.Row{"id": int64(i), "amount": float64(r.IntN(1000)), "status": []string{"open", "paid", "void"}[r.IntN(3)]}
		if fk := r.IntN(nc+5) - 2; fk > 0 {
			row["customer_id"] = int32(fk)
		}
		lr.orders = append(lr.orders, row)
	}
	for i := range 10 {
		lr.tags = append(lr.tags, icebergtest.Row{"code": fmt.Sprintf("t%d", i), "label": fmt.Sprintf("tag %d", i)})
	}
	seen := map[string]bool{}
	for range no * 2 {
		o, t := int64(r.IntN(no+3)+1), fmt.Sprintf("t%d", r.IntN(12))
		if k := fmt.Sprint(o, t); !seen[k] {
			seen[k] = true
			lr.orderTags = append(lr.orderTags, icebergtest.Row{"order_id": o, "tag_code": t})
		}
	}
	return lr
}

// linkSpecs are the object types of the links env.
func linkSpecs() []objects.TypeSpec {
	return []objects.TypeSpec{
		{APIName: "Customer", Table: "warehouse.shop.customers", TitleProperty: "name"},
		{APIName: "Order", Table: "warehouse.shop.orders",
			Properties: map[string]objects.PropertySpec{"id": {Column: "id"}, "customerId": {Column: "customer_id"},
				"amount": {Column: "amount"}, "status": {Column: "status", Search: objects.SearchKeyword}},
			Links: []objects.LinkSpec{
				{APIName: "customer", Target: "Customer", ForeignKey: "customerId", ReverseAPIName: "orders"},
				{APIName: "tags", Target: "Tag", Through: &objects.ThroughSpec{Table: "warehouse.shop.order_tags", SourceKey: "order_id", TargetKey: "tag_code"},
					ReverseAPIName: "orders"},
			}},
		{APIName: "Tag", Table: "warehouse.shop.tags", TitleProperty: "label"},
	}
}

// mustLinksEnv writes the tables (each in two files), builds every indexed
// type and serves them. edit may change the config before it is validated.
func mustLinksEnv(tb testing.TB, seed uint64, edit ...func(*config.Config)) *linksEnv {
	tb.Helper()
	return mustSizedLinksEnv(tb, seed, 40, 160, edit...)
}

// mustSizedLinksEnv is mustLinksEnv with customers and orders customers
// and orders.
func mustSizedLinksEnv(tb testing.TB, seed uint64, customers, orders int, edit ...func(*config.Config)) *linksEnv {
	tb.Helper()
	ctx := context.Background()
	w := icebergtest.MustWarehouse(tb)
	e := &linksEnv{rows: randomLinkRows(rand.New(rand.NewPCG(seed, 7)), customers, orders)}
	for _, t := range []struct {
		dst   **icebergtest.Table
		ident string
		sc    *iceberg.Schema
		rows  []icebergtest.Row
	}{
		{&e.customers, "shop.customers", customerSchema, e.rows.customers},
		{&e.orders, "shop.orders", orderSchema, e.rows.orders},
		{&e.tags, "shop.tags", tagSchema, e.rows.tags},
		{&e.orderTags, "shop.order_tags", orderTagSchema, e.rows.orderTags},
	} {
		tbl, err := w.CreateTable(ctx, t.ident, t.sc, nil)
		if err != nil {
			tb.Fatal(err)
		}
		half := len(t.rows) / 2
		for _, part := range [][]icebergtest.Row{t.rows[:half], t.rows[half:]} {
			if err := tbl.Append(ctx, part); err != nil {
				tb.Fatal(err)
			}
		}
		*t.dst = tbl
	}
	cfg := indexertest.Config(tb, w, linkSpecs()...)
	cfg.Ontology.APIName = "demo"
	cfg.Auth.Tokens = []serverconfig.Token{
		{Name: "app", Token: appToken, ObjectTypes: []string{"*"}},
		{Name: "orders", Token: ordersOnlyToken, ObjectTypes: []string{"Order"}},
	}
	for _, fn := range edit {
		fn(cfg)
	}
	if err := cfg.Validate(); err != nil {
		tb.Fatal(err)
	}
	ix := indexertest.Open(tb, cfg)
	for _, res := range ix.BuildAll(ctx, indexer.BuildOptions{}) {
		if res.Error != nil {
			tb.Fatalf("build %s: %s", res.ObjectType, res.Error.Message)
		}
	}
	logs := &bytes.Buffer{}
	s, err := api.New(ix, api.Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	tb.Cleanup(srv.Close)
	e.testEnv = &testEnv{ix: ix, cfg: cfg, srv: srv, api: s, logs: logs}
	return e
}

// key is the text of a row's primary key, as __primaryKey prints it.
func key(r icebergtest.Row) string {
	if c, ok := r["code"]; ok {
		return fmt.Sprint(c)
	}
	return fmt.Sprint(r["id"])
}

// around is the brute-force answer of a searchAround: the primary keys of
// the objects of the link's target that the rows of from (of type src)
// link to, sorted as the engine sorts them.
func (lr linkRows) around(src, link string, from []icebergtest.Row) []string {
	keys := map[string]bool{}
	for _, r := range from {
		keys[key(r)] = true
	}
	var out []string
	add := func(r icebergtest.Row) { out = append(out, key(r)) }
	switch src + "." + link {
	case "Order.customer":
		fks := map[string]bool{}
		for _, o := range from {
			if fk, ok := o["customer_id"]; ok {
				fks[fmt.Sprint(fk)] = true
			}
		}
		for _, c := range lr.customers {
			if fks[key(c)] {
				add(c)
			}
		}
	case "Customer.orders":
		for _, o := range lr.orders {
			if fk, ok := o["customer_id"]; ok && keys[fmt.Sprint(fk)] {
				add(o)
			}
		}
	case "Order.tags", "Tag.orders":
		mine, theirs, targets := "order_id", "tag_code", lr.tags
		if src == "Tag" {
			mine, theirs, targets = "tag_code", "order_id", lr.orders
		}
		linked := map[string]bool{}
		for _, j := range lr.orderTags {
			if keys[fmt.Sprint(j[mine])] {
				linked[fmt.Sprint(j[theirs])] = true
			}
		}
		for _, t := range targets {
			if linked[key(t)] {
				add(t)
			}
		}
	default:
		panic("no link " + src + "." + link)
	}
	return out
}

// rowsOf returns the rows of a type whose keys are in keys.
func (lr linkRows) rowsOf(typ string, keys []string) []icebergtest.Row {
	all := map[string][]icebergtest.Row{"Customer": lr.customers, "Order": lr.orders, "Tag": lr.tags}[typ]
	var out []icebergtest.Row
	for _, r := range all {
		if slices.Contains(keys, key(r)) {
			out = append(out, r)
		}
	}
	return out
}
