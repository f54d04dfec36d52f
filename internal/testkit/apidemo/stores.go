package apidemo

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/objects"
)

// The stores are a third, separate part of the demo: one object type,
// Store, whose address is an Iceberg struct column (a struct property).
// Like the shop, it leaves Specs alone; a test or the end-to-end seed adds
// StoreSpecs to serve it.

// Stores is the number of store rows.
const Stores = 8

var storeCities = []string{"Paris", "Lyon", "Berlin"}

// StoreID is the primary key of store i (1-based).
func StoreID(i int) string { return fmt.Sprintf("s%d", i) }

// StoreRows returns the store rows: store i is in storeCities[i%3] with zip
// 10000+i*111, opened on 2020-01-01 plus i*40 days, area i*12.5. Store 3
// has no address (a null struct), store 5 an address without a city and
// store 7 one without a zip (null fields).
func StoreRows() []icebergtest.Row {
	rows := make([]icebergtest.Row, 0, Stores)
	for i := 1; i <= Stores; i++ {
		address := map[string]any{
			"street": fmt.Sprintf("%d Main Street", i),
			"city":   storeCities[i%len(storeCities)],
			"zip":    10000 + i*111,
			"opened": time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i*40).Format(time.DateOnly),
			"area":   float64(i) * 12.5,
		}
		switch i {
		case 3:
			address = nil
		case 5:
			address["city"] = nil
		case 7:
			address["zip"] = nil
		}
		r := icebergtest.Row{"store_id": StoreID(i), "name": fmt.Sprintf("Store %d", i), "address": nil}
		if address != nil {
			r["address"] = address
		}
		rows = append(rows, r)
	}
	return rows
}

var storeSchema = iceberg.NewSchemaWithIdentifiers(1, []int{1},
	iceberg.NestedField{ID: 1, Name: "store_id", Type: iceberg.PrimitiveTypes.String, Required: true},
	iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
	iceberg.NestedField{ID: 3, Name: "address", Type: &iceberg.StructType{FieldList: []iceberg.NestedField{
		{ID: 4, Name: "street", Type: iceberg.PrimitiveTypes.String},
		{ID: 5, Name: "city", Type: iceberg.PrimitiveTypes.String},
		{ID: 6, Name: "zip", Type: iceberg.PrimitiveTypes.Int32},
		{ID: 7, Name: "opened", Type: iceberg.PrimitiveTypes.Date},
		{ID: 8, Name: "area", Type: iceberg.PrimitiveTypes.Float64},
	}}},
)

// CreateStores writes demo.stores into w.
func CreateStores(ctx context.Context, w *icebergtest.Warehouse) error {
	_, err := w.WriteTable(ctx, "demo.stores", storeSchema, nil, StoreRows())
	return err
}

// StoreSpecs is the Store object type over a catalog named catalog:
// address maps the struct column like any other column.
func StoreSpecs(catalog string) []objects.TypeSpec {
	return []objects.TypeSpec{{
		APIName: "Store", DisplayName: "Store", PluralDisplayName: "Stores", Table: catalog + ".demo.stores", TitleProperty: "name",
		Properties: map[string]objects.PropertySpec{"storeId": {Column: "store_id", Search: objects.SearchKeyword},
			"name": {Column: "name"}, "address": {Column: "address"}},
	}}
}
