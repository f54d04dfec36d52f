package benchdata

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/internal/icebergwrite"
)

// The orders dataset of the search benchmark's links: id long key,
// customer_id the key of a customer, amount double, status keyword of a
// few values, placed_at timestamp. customer_id is uniform over the
// customers, so with as many orders as customers the orders per customer
// are about Poisson(1): a third of the customers have none, a third one,
// the rest two or more (up to about ten in a million). A filter on
// customers that matches a fraction f of them thus matches about f of the
// orders through the link. Like customers, every row is a pure function
// of (seed, id).

// OrdersIdent is the orders table, in catalog "warehouse".
const OrdersIdent = "bench.orders"

// MaxAmount bounds the amounts: whole cents in [0, MaxAmount).
const MaxAmount = 1000

// Statuses are the values of status.
var Statuses = []string{"placed", "paid", "shipped", "delivered", "returned"}

// ordersEpoch and ordersSpan bound placed_at: two years from 2024, whole
// microseconds, as Iceberg and PostgreSQL both store them exactly.
var (
	ordersEpoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	ordersSpan  = uint64(2 * 365 * 24 * time.Hour / time.Microsecond)
)

// ordersStream keeps an order's random stream apart from the customer's
// of the same id, so that customer_id does not follow the customer's own
// values.
const ordersStream = 0x6f7264657273 // "orders"

// Order is one row of the orders table.
type Order struct {
	ID         int64
	CustomerID int64
	Amount     float64
	Status     string
	PlacedAt   time.Time // UTC, whole microseconds
}

// NewOrder returns the order with key id for seed, placed by one of the
// customers 0..customers-1.
func NewOrder(seed uint64, customers, id int64) Order {
	r := splitmix{(seed ^ ordersStream) ^ uint64(id)*0xbf58476d1ce4e5b9}
	return Order{
		ID:         id,
		CustomerID: int64(r.next() % uint64(customers)),
		Amount:     float64(r.next()%(MaxAmount*100)) / 100,
		Status:     Statuses[r.next()%uint64(len(Statuses))],
		PlacedAt:   ordersEpoch.Add(time.Duration(r.next()%ordersSpan) * time.Microsecond),
	}
}

// OrderSchema is the Iceberg schema of the orders table; id is its
// identifier field.
func OrderSchema() *iceberg.Schema {
	return iceberg.NewSchemaWithIdentifiers(1, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "customer_id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 3, Name: "amount", Type: iceberg.PrimitiveTypes.Float64, Required: true},
		iceberg.NestedField{ID: 4, Name: "status", Type: iceberg.PrimitiveTypes.String, Required: true},
		iceberg.NestedField{ID: 5, Name: "placed_at", Type: iceberg.PrimitiveTypes.TimestampTz, Required: true})
}

// WriteOrders writes table bench.orders with orders 0..rows-1 of customers
// 0..customers-1 in files data files, in one snapshot, into the hadoop
// warehouse under dir, creating namespace bench unless WriteCustomers did.
func WriteOrders(ctx context.Context, dir string, seed uint64, rows, customers, files int) (*table.Table, error) {
	if rows < 1 || customers < 1 || files < 1 || files > rows {
		return nil, fmt.Errorf("write orders: need rows >= 1, customers >= 1 and 1 <= files <= rows, got %d rows of %d customers in %d files", rows, customers, files)
	}
	cat, err := OpenWarehouse(dir)
	if err != nil {
		return nil, err
	}
	return writeTable(ctx, cat, OrdersIdent, OrderSchema(), rows, files, func(from, n int) icebergwrite.Rows {
		return icebergwrite.Build(func(b *icebergwrite.Builder) {
			for id := from; id < from+n; id++ {
				o := NewOrder(seed, int64(customers), int64(id))
				b.Add(o.ID, o.CustomerID, o.Amount, o.Status, o.PlacedAt)
			}
		})
	})
}
