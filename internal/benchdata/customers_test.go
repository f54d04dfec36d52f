package benchdata

import (
	"context"
	"strings"
	"testing"
)

func TestNewCustomer_deterministic(t *testing.T) {
	for id := range int64(100) {
		a, b := NewCustomer(7, id), NewCustomer(7, id)
		if a != b {
			t.Fatalf("id %d: %+v != %+v", id, a, b)
		}
	}
	if NewCustomer(7, 3) == NewCustomer(8, 3) {
		t.Fatal("seed does not change the rows")
	}
}

// TestNewCustomer_distribution checks what the benchmark queries rely on:
// value ranges, and selectivities of names, cities and flags.
func TestNewCustomer_distribution(t *testing.T) {
	const n = 200_000
	pairs := map[string]int{}
	cities := map[string]int{}
	active := 0
	for id := range int64(n) {
		c := NewCustomer(1, id)
		if c.ID != id || c.Balance < 0 || c.Balance >= MaxBalance || c.Visits < 0 || c.Visits >= MaxVisits {
			t.Fatalf("out of range: %+v", c)
		}
		if len(strings.Fields(c.Name)) != 2 {
			t.Fatalf("name %q", c.Name)
		}
		pairs[c.Name]++
		cities[c.City]++
		if c.Active {
			active++
		}
	}
	if len(pairs) != len(FirstNames)*len(LastNames) {
		t.Fatalf("%d distinct names, want %d", len(pairs), len(FirstNames)*len(LastNames))
	}
	for name, k := range pairs {
		if f := float64(k) / n; f < 0.001 || f > 0.02 {
			t.Errorf("name %q matches %.4f of the rows, want 0.1%%..2%%", name, f)
		}
	}
	for city, k := range cities {
		if f := float64(k) / n; f < 0.11 || f > 0.14 {
			t.Errorf("city %q: %.3f of the rows", city, f)
		}
	}
	if f := float64(active) / n; f < 0.48 || f > 0.52 {
		t.Errorf("active: %.3f of the rows", f)
	}
}

func TestWriteCustomers(t *testing.T) {
	ctx := context.Background()
	tbl, err := WriteCustomers(ctx, t.TempDir(), 1, 1000, 3)
	if err != nil {
		t.Fatal(err)
	}
	_, it, err := tbl.Scan().ToArrowRecords(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for rec, err := range it {
		if err != nil {
			t.Fatal(err)
		}
		rows += int(rec.NumRows())
		rec.Release()
	}
	if rows != 1000 {
		t.Fatalf("%d rows", rows)
	}
	if _, err := WriteCustomers(ctx, t.TempDir(), 1, 2, 3); err == nil {
		t.Fatal("more files than rows: no error")
	}
}
