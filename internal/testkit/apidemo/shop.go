package apidemo

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/objects"
)

// The shop is a second, linked part of the demo: customers, their orders
// (a foreign key to the customer) and tags on orders (a join table). It
// is separate from Specs, whose three types the other API tests count on:
// a test or the end-to-end seed adds ShopSpecs to serve it too.

// Sizes of the shop tables.
const (
	Customers = 12
	Orders    = 40
)

var (
	customerNames = []string{"Alice Archer", "Bob Baker", "Carol Cooper", "Dave Dyer", "Erin Evans", "Frank Fisher",
		"Gina Gale", "Hugo Hale", "Ines Ito", "Jon Jones", "Kim Kent", "Liam Lowe"}
	cities      = []string{"Berlin", "Paris", "Rome", "Lisbon"}
	orderStates = []string{"open", "shipped", "delivered", "cancelled"}
	// TagLabels are the labels of the tags t1..t6; the last one tags no order.
	TagLabels = []string{"gold", "fragile", "gift", "express", "bulk", "eco"}
)

// CustomerID is the primary key of customer i (1-based).
func CustomerID(i int) string { return fmt.Sprintf("c%02d", i) }

// CustomerRows returns the customer rows. Customers 11 and 12 place no
// order; visits is a long, balance a double, since a date.
func CustomerRows() []icebergtest.Row {
	rows := make([]icebergtest.Row, 0, Customers)
	for i := 1; i <= Customers; i++ {
		rows = append(rows, icebergtest.Row{
			"customer_id": CustomerID(i),
			"name":        customerNames[i-1],
			"city":        cities[i%len(cities)],
			"vip":         i%3 == 0,
			"balance":     float64(i*125)/8 - 20,
			"visits":      int64(i * i * 7),
			"since":       time.Date(2019, 3, 1, 0, 0, 0, 0, time.UTC).AddDate(0, i*2, i).Format(time.DateOnly),
		})
	}
	return rows
}

// OrderRows returns the order rows: orders 1..40 of customers 1..10, except
// every 13th order, which has no customer (a null foreign key).
func OrderRows() []icebergtest.Row {
	placed := time.Date(2024, 5, 1, 8, 30, 0, 0, time.UTC)
	rows := make([]icebergtest.Row, 0, Orders)
	for i := 1; i <= Orders; i++ {
		r := icebergtest.Row{
			"order_id":    int32(i),
			"customer_id": CustomerID((i*7)%10 + 1),
			"amount":      fmt.Sprintf("%d.%02d", 10+(i*37)%290, (i*13)%100),
			"placed_at":   placed.Add(time.Duration(i*29) * time.Hour).Format(time.RFC3339),
			"status":      orderStates[i%len(orderStates)],
		}
		if i%13 == 0 {
			r["customer_id"] = nil
		}
		rows = append(rows, r)
	}
	return rows
}

// TagID is the primary key of tag i (1-based).
func TagID(i int) string { return fmt.Sprintf("t%d", i) }

// TagRows returns the tag rows.
func TagRows() []icebergtest.Row {
	var rows []icebergtest.Row
	for i, l := range TagLabels {
		rows = append(rows, icebergtest.Row{"tag_id": TagID(i + 1), "label": l})
	}
	return rows
}

// OrderTagRows returns the rows of the join table: order i has tag j
// (1..5) when (i+j)%3 == 0 or i*j%7 == 1, except every 10th order, which
// has none; most have several, and tag 6 tags no order.
func OrderTagRows() []icebergtest.Row {
	var rows []icebergtest.Row
	for i := 1; i <= Orders; i++ {
		for j := 1; j < len(TagLabels); j++ {
			if i%10 != 0 && ((i+j)%3 == 0 || (i*j)%7 == 1) {
				rows = append(rows, icebergtest.Row{"order_id": int32(i), "tag_id": TagID(j)})
			}
		}
	}
	return rows
}

var (
	customerSchema = iceberg.NewSchemaWithIdentifiers(1, []int{1},
		iceberg.NestedField{ID: 1, Name: "customer_id", Type: iceberg.PrimitiveTypes.String, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "city", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 4, Name: "vip", Type: iceberg.PrimitiveTypes.Bool},
		iceberg.NestedField{ID: 5, Name: "balance", Type: iceberg.PrimitiveTypes.Float64},
		iceberg.NestedField{ID: 6, Name: "visits", Type: iceberg.PrimitiveTypes.Int64},
		iceberg.NestedField{ID: 7, Name: "since", Type: iceberg.PrimitiveTypes.Date},
	)
	orderSchema = iceberg.NewSchemaWithIdentifiers(1, []int{1},
		iceberg.NestedField{ID: 1, Name: "order_id", Type: iceberg.PrimitiveTypes.Int32, Required: true},
		iceberg.NestedField{ID: 2, Name: "customer_id", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "amount", Type: iceberg.DecimalTypeOf(10, 2)},
		iceberg.NestedField{ID: 4, Name: "placed_at", Type: iceberg.PrimitiveTypes.TimestampTz},
		iceberg.NestedField{ID: 5, Name: "status", Type: iceberg.PrimitiveTypes.String},
	)
	tagSchema = iceberg.NewSchemaWithIdentifiers(1, []int{1},
		iceberg.NestedField{ID: 1, Name: "tag_id", Type: iceberg.PrimitiveTypes.String, Required: true},
		iceberg.NestedField{ID: 2, Name: "label", Type: iceberg.PrimitiveTypes.String},
	)
	orderTagSchema = iceberg.NewSchemaWithIdentifiers(1, []int{1, 2},
		iceberg.NestedField{ID: 1, Name: "order_id", Type: iceberg.PrimitiveTypes.Int32, Required: true},
		iceberg.NestedField{ID: 2, Name: "tag_id", Type: iceberg.PrimitiveTypes.String, Required: true},
	)
)

// CreateShop writes the shop tables into w: demo.customers, demo.orders
// (in two commits), demo.tags and the join table demo.order_tags.
func CreateShop(ctx context.Context, w *icebergtest.Warehouse) error {
	orders := OrderRows()
	for _, tb := range []struct {
		ident string
		sc    *iceberg.Schema
		parts [][]icebergtest.Row
	}{
		{"demo.customers", customerSchema, [][]icebergtest.Row{CustomerRows()}},
		{"demo.orders", orderSchema, [][]icebergtest.Row{orders[:Orders/2], orders[Orders/2:]}},
		{"demo.tags", tagSchema, [][]icebergtest.Row{TagRows()}},
		{"demo.order_tags", orderTagSchema, [][]icebergtest.Row{OrderTagRows()}},
	} {
		if _, err := w.WriteTable(ctx, tb.ident, tb.sc, nil, tb.parts...); err != nil {
			return err
		}
	}
	return nil
}

// ShopSpecs are the object types of the shop, over a catalog named
// catalog. Order declares both links: customer (a foreign key; the
// reverse side is Customer.orders) and tags (through demo.order_tags; the
// reverse side is Tag.orders).
func ShopSpecs(catalog string) []objects.TypeSpec {
	col := func(c string) objects.PropertySpec { return objects.PropertySpec{Column: c} }
	kw := func(c string) objects.PropertySpec {
		return objects.PropertySpec{Column: c, Search: objects.SearchKeyword}
	}
	return []objects.TypeSpec{
		{
			APIName: "Customer", DisplayName: "Customer", PluralDisplayName: "Customers", Table: catalog + ".demo.customers", TitleProperty: "name",
			Properties: map[string]objects.PropertySpec{"customerId": kw("customer_id"), "name": col("name"), "city": kw("city"),
				"vip": col("vip"), "balance": col("balance"), "visits": col("visits"), "since": col("since")},
		},
		{
			APIName: "Order", DisplayName: "Order", PluralDisplayName: "Orders", Table: catalog + ".demo.orders",
			Properties: map[string]objects.PropertySpec{"orderId": col("order_id"), "customerId": kw("customer_id"),
				"amount": col("amount"), "placedAt": col("placed_at"), "status": kw("status")},
			Links: []objects.LinkSpec{
				{APIName: "customer", Target: "Customer", ForeignKey: "customerId", ReverseAPIName: "orders"},
				{APIName: "tags", Target: "Tag", ReverseAPIName: "orders",
					Through: &objects.ThroughSpec{Table: catalog + ".demo.order_tags", SourceKey: "order_id", TargetKey: "tag_id"}},
			},
		},
		{
			APIName: "Tag", DisplayName: "Tag", PluralDisplayName: "Tags", Table: catalog + ".demo.tags", TitleProperty: "label",
			Properties: map[string]objects.PropertySpec{"tagId": kw("tag_id"), "label": kw("label")},
		},
	}
}

// ShopTypes are the types a shop build builds: the object types, then the
// link table of Order.tags.
func ShopTypes() []string {
	return []string{"Customer", "Order", "Tag", objects.LinkTableName("Order", "tags")}
}
