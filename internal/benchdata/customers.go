package benchdata

import (
	"context"
	"fmt"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/internal/icebergwrite"
)

// The customers dataset of the search benchmark: id long key, name text
// (first and last name), city keyword of 8 values, balance double uniform in
// [0, MaxBalance), visits int uniform in [0, MaxVisits), active boolean (half
// of the rows). Every row is a pure function of (seed, id), so the same rows
// can be written to Iceberg and to another database without keeping them.

// CustomersIdent is the customers table, in catalog "warehouse".
const CustomersIdent = "bench.customers"

// Value ranges of the generated customers.
const (
	MaxBalance = 1e6
	MaxVisits  = 1000
)

// Cities are the values of city.
var Cities = []string{"Lisbon", "Berlin", "Paris", "Madrid", "Rome", "Vienna", "Oslo", "Dublin"}

// FirstNames and LastNames make the names: one of each, uniformly, so a
// pair of one first and one last name matches 1/(16*20) = 0.31% of the rows
// and a single name 5-6%.
var (
	FirstNames = []string{"Ana", "Bruno", "Carla", "David", "Elena", "Farid", "Greta", "Hugo",
		"Ines", "Jonas", "Kiri", "Lena", "Mateo", "Nadia", "Oskar", "Priya"}
	LastNames = []string{"Silva", "Okafor", "Novak", "Tanaka", "Schmidt", "Haddad", "Larsen", "Moreau",
		"Rossi", "Kowalski", "Nguyen", "Fernandes", "Ibrahim", "Johansson", "Petrov", "Garcia",
		"Mensah", "Kaur", "Dubois", "Yilmaz"}
)

// Customer is one row of the customers table.
type Customer struct {
	ID      int64
	Name    string
	City    string
	Balance float64
	Visits  int32
	Active  bool
}

// NewCustomer returns the customer with key id for seed.
func NewCustomer(seed uint64, id int64) Customer {
	r := splitmix{seed ^ uint64(id)*0x9e3779b97f4a7c15}
	return Customer{
		ID:      id,
		Name:    FirstNames[r.next()%uint64(len(FirstNames))] + " " + LastNames[r.next()%uint64(len(LastNames))],
		City:    Cities[r.next()%uint64(len(Cities))],
		Balance: float64(r.next()>>11) / (1 << 53) * MaxBalance,
		Visits:  int32(r.next() % MaxVisits),
		Active:  r.next()&1 == 1,
	}
}

// splitmix is the SplitMix64 generator: cheap, allocation-free and good
// enough for test data, so each row can have its own stream.
type splitmix struct{ s uint64 }

func (r *splitmix) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// CustomerSchema is the Iceberg schema of the customers table; id is its
// identifier field.
func CustomerSchema() *iceberg.Schema {
	return iceberg.NewSchemaWithIdentifiers(1, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String, Required: true},
		iceberg.NestedField{ID: 3, Name: "city", Type: iceberg.PrimitiveTypes.String, Required: true},
		iceberg.NestedField{ID: 4, Name: "balance", Type: iceberg.PrimitiveTypes.Float64, Required: true},
		iceberg.NestedField{ID: 5, Name: "visits", Type: iceberg.PrimitiveTypes.Int32, Required: true},
		iceberg.NestedField{ID: 6, Name: "active", Type: iceberg.PrimitiveTypes.Bool, Required: true})
}

// WriteCustomers writes table bench.customers with customers 0..rows-1 in
// files data files, in one snapshot, into the hadoop warehouse under dir.
func WriteCustomers(ctx context.Context, dir string, seed uint64, rows, files int) (*table.Table, error) {
	return WriteCustomerRange(ctx, dir, CustomersIdent, seed, 0, rows, files)
}

// WriteCustomerRange writes table ident (in catalog "warehouse", with
// CustomerSchema) with customers from..from+rows-1 in files data files, in
// one snapshot, into the hadoop warehouse under dir: tables of adjacent
// ranges hold, between them, exactly the rows of one table of the whole
// range.
func WriteCustomerRange(ctx context.Context, dir, ident string, seed uint64, from, rows, files int) (*table.Table, error) {
	if rows < 1 || files < 1 || files > rows || from < 0 {
		return nil, fmt.Errorf("write customers: need rows >= 1, 1 <= files <= rows and from >= 0, got %d rows from %d in %d files", rows, from, files)
	}
	cat, err := OpenWarehouse(dir)
	if err != nil {
		return nil, err
	}
	return writeTable(ctx, cat, ident, CustomerSchema(), rows, files, func(at, n int) icebergwrite.Rows {
		return icebergwrite.Build(func(b *icebergwrite.Builder) {
			for id := from + at; id < from+at+n; id++ {
				b.Add(NewCustomer(seed, int64(id)).Values()...)
			}
		})
	})
}

// Values is the customer's row in the columns of CustomerSchema.
func (c Customer) Values() []any {
	return []any{c.ID, c.Name, c.City, c.Balance, c.Visits, c.Active}
}
