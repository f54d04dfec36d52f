package benchdata

import (
	"context"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

func TestNewOrder_deterministic(t *testing.T) {
	for id := range int64(100) {
		a, b := NewOrder(7, 1000, id), NewOrder(7, 1000, id)
		if a != b {
			t.Fatalf("id %d: %+v != %+v", id, a, b)
		}
	}
	if NewOrder(7, 1000, 3) == NewOrder(8, 1000, 3) {
		t.Fatal("seed does not change the rows")
	}
}

// TestNewOrder_distribution checks what the searchAround query relies on:
// customers have 0..several orders, about Poisson(1), independently of
// their own values, so that a filter matching a fraction of the customers
// matches about that fraction of the orders.
func TestNewOrder_distribution(t *testing.T) {
	const n = 200_000
	perCustomer := make([]int, n)
	statuses := map[string]int{}
	filtered := 0 // orders of customers in Lisbon with a balance below 8%
	for id := range int64(n) {
		o := NewOrder(1, n, id)
		if o.ID != id || o.CustomerID < 0 || o.CustomerID >= n || o.Amount < 0 || o.Amount >= MaxAmount ||
			o.PlacedAt.Before(ordersEpoch) || !o.PlacedAt.Before(ordersEpoch.AddDate(2, 0, 1)) || o.PlacedAt.Nanosecond()%1000 != 0 {
			t.Fatalf("out of range: %+v", o)
		}
		if math.Round(o.Amount*100)/100 != o.Amount {
			t.Fatalf("amount %v is not whole cents", o.Amount)
		}
		perCustomer[o.CustomerID]++
		statuses[o.Status]++
		if c := NewCustomer(1, o.CustomerID); c.City == "Lisbon" && c.Balance < 0.08*MaxBalance {
			filtered++
		}
	}
	hist := map[int]int{}
	most := 0
	for _, k := range perCustomer {
		hist[k]++
		most = max(most, k)
	}
	// Poisson(1): P(0) = P(1) = 0.368, P(2) = 0.184.
	for k, want := range map[int]float64{0: 0.368, 1: 0.368, 2: 0.184} {
		if f := float64(hist[k]) / n; math.Abs(f-want) > 0.01 {
			t.Errorf("%.3f of the customers have %d orders, want about %.3f", f, k, want)
		}
	}
	if most < 4 || most > 12 {
		t.Errorf("the busiest customer has %d orders, want several", most)
	}
	if len(statuses) != len(Statuses) {
		t.Fatalf("statuses %v", statuses)
	}
	for s, k := range statuses {
		if f := float64(k) / n; f < 0.18 || f > 0.22 {
			t.Errorf("status %q: %.3f of the rows", s, f)
		}
	}
	if f := float64(filtered) / n; f < 0.009 || f > 0.011 {
		t.Errorf("orders of 1%% of the customers are %.4f of the orders", f)
	}
}

// TestWriteOrders writes orders next to customers, in the same namespace,
// and reads back the rows NewOrder makes.
func TestWriteOrders(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := WriteCustomers(ctx, dir, 1, 500, 1); err != nil {
		t.Fatal(err)
	}
	tbl, err := WriteOrders(ctx, dir, 1, 1000, 500, 3)
	if err != nil {
		t.Fatal(err)
	}
	_, it, err := tbl.Scan().ToArrowRecords(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	for rec, err := range it {
		if err != nil {
			t.Fatal(err)
		}
		for i := range int(rec.NumRows()) {
			got := Order{
				ID:         rec.Column(0).(*array.Int64).Value(i),
				CustomerID: rec.Column(1).(*array.Int64).Value(i),
				Amount:     rec.Column(2).(*array.Float64).Value(i),
				Status:     rec.Column(3).(*array.String).Value(i),
				PlacedAt:   rec.Column(4).(*array.Timestamp).Value(i).ToTime(arrow.Microsecond),
			}
			want := NewOrder(1, 500, got.ID)
			if got.ID != want.ID || got.CustomerID != want.CustomerID || got.Amount != want.Amount ||
				got.Status != want.Status || !got.PlacedAt.Equal(want.PlacedAt) {
				t.Fatalf("row %+v, want %+v", got, want)
			}
			seen[got.ID] = true
		}
		rec.Release()
	}
	if len(seen) != 1000 {
		t.Fatalf("%d distinct orders", len(seen))
	}
	// Alone, it creates the namespace itself.
	if _, err := WriteOrders(ctx, t.TempDir(), 1, 10, 10, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteOrders(ctx, t.TempDir(), 1, 2, 10, 3); err == nil {
		t.Fatal("more files than rows: no error")
	}
	if _, err := WriteOrders(ctx, t.TempDir(), 1, 10, 0, 1); err == nil {
		t.Fatal("no customers: no error")
	}
}
