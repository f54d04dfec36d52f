package benchdata

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
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

// TestWriteCustomerRange checks that two tables of adjacent ranges hold
// between them exactly the rows of one table of the whole range.
func TestWriteCustomerRange(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := WriteCustomerRange(ctx, dir, "bench.low", 3, 0, 40, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteCustomerRange(ctx, dir, "bench.high", 3, 40, 60, 2); err != nil {
		t.Fatal(err)
	}
	cat, err := OpenWarehouse(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []Customer
	for _, ident := range []string{"bench.low", "bench.high"} {
		tbl, err := cat.LoadTable(ctx, catalog.ToIdentifier(ident))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, mustCustomers(t, tbl)...)
	}
	if len(got) != 100 {
		t.Fatalf("%d rows, want 100", len(got))
	}
	slices.SortFunc(got, func(a, b Customer) int { return cmp.Compare(a.ID, b.ID) })
	for i, c := range got {
		if want := NewCustomer(3, int64(i)); c != want {
			t.Fatalf("row %d: %+v, want %+v", i, c, want)
		}
	}
	for _, bad := range [][3]int{{-1, 10, 1}, {0, 0, 1}, {0, 2, 3}} {
		if _, err := WriteCustomerRange(ctx, dir, "bench.bad", 3, bad[0], bad[1], bad[2]); err == nil {
			t.Errorf("from %d, %d rows, %d files: no error", bad[0], bad[1], bad[2])
		}
	}
}

// mustCustomers reads every row of a customers table.
func mustCustomers(tb testing.TB, tbl *table.Table) []Customer {
	tb.Helper()
	_, it, err := tbl.Scan().ToArrowRecords(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	var out []Customer
	for rec, err := range it {
		if err != nil {
			tb.Fatal(err)
		}
		cols := rec.Columns()
		ids, names, cities := cols[0].(*array.Int64), cols[1].(*array.String), cols[2].(*array.String)
		balances, visits, active := cols[3].(*array.Float64), cols[4].(*array.Int32), cols[5].(*array.Boolean)
		for i := range int(rec.NumRows()) {
			out = append(out, Customer{ID: ids.Value(i), Name: names.Value(i), City: cities.Value(i),
				Balance: balances.Value(i), Visits: visits.Value(i), Active: active.Value(i)})
		}
		rec.Release()
	}
	return out
}
