package demo

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/iceberg-go"
)

// The generated data: realistic enough to search, deterministic for a seed.
// Every row is a pure function of (seed, key), so the writer can rebuild a
// row to edit it without reading the table.

var (
	firstNames = []string{"Ana", "Bruno", "Carla", "David", "Elena", "Farid", "Greta", "Hugo", "Ines", "Jonas", "Kiri", "Lena", "Mateo",
		"Nadia", "Oskar", "Priya", "Quentin", "Rosa", "Samir", "Tomoko", "Ulla", "Victor", "Wanjiru", "Xavier", "Yara", "Zoltan",
		"Amara", "Bjorn", "Chloe", "Dmitri", "Esther", "Felipe", "Grace", "Hamid", "Ingrid", "Jun", "Kofi", "Lucia", "Miguel", "Noor"}
	lastNames = []string{"Silva", "Okafor", "Novak", "Tanaka", "Schmidt", "Haddad", "Larsen", "Moreau", "Rossi", "Kowalski", "Nguyen",
		"Fernandes", "Ibrahim", "Johansson", "Petrov", "Garcia", "Mensah", "Kaur", "OBrien", "Dubois", "Yilmaz", "Costa", "Andersen",
		"Murphy", "Sato", "Mwangi", "Hopper", "Lovelace", "Turing", "Hamilton", "Varga", "Lindqvist", "Popescu", "Almeida", "Zhou"}
	places = []struct{ city, country string }{
		{"Lisbon", "PT"}, {"Porto", "PT"}, {"Madrid", "ES"}, {"Barcelona", "ES"}, {"Paris", "FR"}, {"Lyon", "FR"}, {"Berlin", "DE"},
		{"Hamburg", "DE"}, {"Munich", "DE"}, {"Vienna", "AT"}, {"Zurich", "CH"}, {"Milan", "IT"}, {"Rome", "IT"}, {"Amsterdam", "NL"},
		{"Brussels", "BE"}, {"Copenhagen", "DK"}, {"Oslo", "NO"}, {"Stockholm", "SE"}, {"Helsinki", "FI"}, {"Warsaw", "PL"},
		{"Prague", "CZ"}, {"Budapest", "HU"}, {"Dublin", "IE"}, {"London", "GB"}, {"Manchester", "GB"}, {"Edinburgh", "GB"},
		{"Nairobi", "KE"}, {"Lagos", "NG"}, {"Accra", "GH"}, {"Cairo", "EG"}, {"Istanbul", "TR"}, {"Dubai", "AE"}, {"Mumbai", "IN"},
		{"Bangalore", "IN"}, {"Singapore", "SG"}, {"Tokyo", "JP"}, {"Osaka", "JP"}, {"Seoul", "KR"}, {"Sydney", "AU"},
		{"Auckland", "NZ"}, {"Toronto", "CA"}, {"Montreal", "CA"}, {"New York", "US"}, {"Chicago", "US"}, {"Austin", "US"},
		{"Seattle", "US"}, {"Mexico City", "MX"}, {"Bogota", "CO"}, {"Lima", "PE"}, {"Sao Paulo", "BR"}, {"Buenos Aires", "AR"}}
	segments = []string{"Consumer", "Consumer", "Consumer", "Small Business", "Small Business", "Enterprise"}
	products = []struct {
		sku, name string
		cents     int64
	}{
		{"TENT-2P", "Two-person dome tent", 18900}, {"TENT-4P", "Four-person family tent", 32900}, {"BAG-DOWN", "Down sleeping bag", 24900},
		{"BAG-SYN", "Synthetic sleeping bag", 11900}, {"PAD-AIR", "Inflatable sleeping pad", 8900}, {"STOVE-GAS", "Compact gas stove", 5400},
		{"POT-TI", "Titanium cook pot", 4900}, {"LAMP-HEAD", "Rechargeable head lamp", 3900}, {"PACK-40", "40 litre backpack", 15900},
		{"PACK-65", "65 litre trekking backpack", 23900}, {"BOOT-HIKE", "Waterproof hiking boots", 17900}, {"JKT-RAIN", "Rain jacket", 12900},
		{"JKT-DOWN", "Down jacket", 19900}, {"POLE-CARB", "Carbon trekking poles", 9900}, {"FILTER-H2O", "Water filter", 4400},
		{"BOTTLE-1L", "Insulated bottle 1 litre", 2900}, {"MAP-GPS", "Handheld GPS unit", 29900}, {"KNIFE-FOLD", "Folding knife", 3400},
		{"CHAIR-CAMP", "Camping chair", 6900}, {"HAMMOCK", "Ultralight hammock", 5900}}
	orderStatuses  = []string{"delivered", "delivered", "delivered", "delivered", "shipped", "shipped", "processing", "returned", "cancelled"}
	aircraftModels = []struct {
		maker, model string
		seats        int32
	}{
		{"Airbus", "A220-300", 140}, {"Airbus", "A320neo", 180}, {"Airbus", "A321neo", 220}, {"Airbus", "A330-900", 287},
		{"Airbus", "A350-900", 325}, {"Boeing", "737-800", 189}, {"Boeing", "737 MAX 8", 178}, {"Boeing", "787-9", 290},
		{"Boeing", "777-300ER", 396}, {"Embraer", "E190-E2", 104}, {"Embraer", "E195-E2", 132}, {"ATR", "72-600", 70},
		{"De Havilland", "Dash 8-400", 78}}
	airports = []string{"LIS", "OPO", "MAD", "BCN", "CDG", "FRA", "MUC", "AMS", "CPH", "OSL", "ARN", "HEL", "DUB", "LHR", "ZRH", "VIE",
		"FCO", "IST", "DXB", "NBO", "JFK", "ORD", "SEA", "YYZ", "GRU", "SIN", "NRT", "SYD"}
)

// epoch anchors the generated dates, so that the data does not depend on
// when it was generated.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func rowRand(seed uint64, table string, key int64) *rand.Rand {
	var h uint64 = 14695981039346656037
	for _, c := range []byte(table) {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return rand.New(rand.NewPCG(seed^h, uint64(key)))
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// Customers.

var customerSchema = iceberg.NewSchemaWithIdentifiers(1, []int{1},
	iceberg.NestedField{ID: 1, Name: "customer_id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
	iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String, Required: true},
	iceberg.NestedField{ID: 3, Name: "email", Type: iceberg.PrimitiveTypes.String},
	iceberg.NestedField{ID: 4, Name: "city", Type: iceberg.PrimitiveTypes.String},
	iceberg.NestedField{ID: 5, Name: "country", Type: iceberg.PrimitiveTypes.String},
	iceberg.NestedField{ID: 6, Name: "segment", Type: iceberg.PrimitiveTypes.String},
	iceberg.NestedField{ID: 7, Name: "signup_date", Type: iceberg.PrimitiveTypes.Date},
	iceberg.NestedField{ID: 8, Name: "lifetime_value", Type: iceberg.DecimalTypeOf(12, 2)},
	iceberg.NestedField{ID: 9, Name: "active", Type: iceberg.PrimitiveTypes.Bool},
	iceberg.NestedField{ID: 10, Name: "updated_at", Type: iceberg.PrimitiveTypes.TimestampTz},
)

// customerRow is one row of sales.customers.
type customerRow struct {
	ID            int64
	Name          string
	Email         string
	City, Country string
	Segment       string
	SignupDate    time.Time
	LifetimeCents int64
	Active        bool
	UpdatedAt     time.Time
}

func genCustomer(seed uint64, id int64) customerRow {
	r := rowRand(seed, "customers", id)
	first, last := pick(r, firstNames), pick(r, lastNames)
	p := pick(r, places)
	signup := epoch.AddDate(0, 0, -r.IntN(8*365))
	c := customerRow{ID: id, Name: first + " " + last, City: p.city, Country: p.country, Segment: pick(r, segments),
		SignupDate: signup, LifetimeCents: int64(r.ExpFloat64() * 60000), Active: r.IntN(10) > 0,
		UpdatedAt: signup.Add(time.Duration(r.IntN(86400)) * time.Second)}
	if r.IntN(20) > 0 { // some customers have no email on file
		c.Email = fmt.Sprintf("%s.%s%d@example.com", lower(first), lower(last), id)
	}
	return c
}

// values is the row in the columns of customerSchema.
func (c customerRow) values() []any {
	return []any{c.ID, c.Name, nullIfEmpty(c.Email), c.City, c.Country, c.Segment, c.SignupDate,
		decimal128.FromI64(c.LifetimeCents), c.Active, c.UpdatedAt}
}

// Order lines: composite key (order_id, line_no).

var orderLineSchema = iceberg.NewSchemaWithIdentifiers(1, []int{1, 2},
	iceberg.NestedField{ID: 1, Name: "order_id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
	iceberg.NestedField{ID: 2, Name: "line_no", Type: iceberg.PrimitiveTypes.Int32, Required: true},
	iceberg.NestedField{ID: 3, Name: "customer_id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
	iceberg.NestedField{ID: 4, Name: "sku", Type: iceberg.PrimitiveTypes.String},
	iceberg.NestedField{ID: 5, Name: "product", Type: iceberg.PrimitiveTypes.String},
	iceberg.NestedField{ID: 6, Name: "quantity", Type: iceberg.PrimitiveTypes.Int32},
	iceberg.NestedField{ID: 7, Name: "unit_price", Type: iceberg.DecimalTypeOf(10, 2)},
	iceberg.NestedField{ID: 8, Name: "status", Type: iceberg.PrimitiveTypes.String},
	iceberg.NestedField{ID: 9, Name: "ordered_at", Type: iceberg.PrimitiveTypes.TimestampTz},
)

// orderLineRow is one row of sales.order_lines.
type orderLineRow struct {
	OrderID    int64
	LineNo     int32
	CustomerID int64
	SKU        string
	Product    string
	Quantity   int32
	PriceCents int64
	Status     string
	OrderedAt  time.Time
}

// genOrder returns the lines of an order (1 to 5).
func genOrder(seed uint64, orderID int64, customers int64) []orderLineRow {
	r := rowRand(seed, "orders", orderID)
	n := 1 + r.IntN(5)
	customer := 1 + r.Int64N(customers)
	at := epoch.Add(-time.Duration(r.Int64N(2*365*24*3600)) * time.Second)
	status := pick(r, orderStatuses)
	lines := make([]orderLineRow, n)
	for i := range lines {
		p := pick(r, products)
		lines[i] = orderLineRow{OrderID: orderID, LineNo: int32(i + 1), CustomerID: customer, SKU: p.sku, Product: p.name,
			Quantity: int32(1 + r.IntN(3)), PriceCents: p.cents, Status: status, OrderedAt: at}
	}
	return lines
}

// values is the row in the columns of orderLineSchema.
func (l orderLineRow) values() []any {
	return []any{l.OrderID, l.LineNo, l.CustomerID, l.SKU, l.Product, l.Quantity,
		decimal128.FromI64(l.PriceCents), l.Status, l.OrderedAt}
}

// aircraftRow: keyed by tail number, in a merge-on-read table.

var aircraftSchema = iceberg.NewSchemaWithIdentifiers(1, []int{1},
	iceberg.NestedField{ID: 1, Name: "tail_number", Type: iceberg.PrimitiveTypes.String, Required: true},
	iceberg.NestedField{ID: 2, Name: "manufacturer", Type: iceberg.PrimitiveTypes.String},
	iceberg.NestedField{ID: 3, Name: "model", Type: iceberg.PrimitiveTypes.String},
	iceberg.NestedField{ID: 4, Name: "seats", Type: iceberg.PrimitiveTypes.Int32},
	iceberg.NestedField{ID: 5, Name: "first_flight", Type: iceberg.PrimitiveTypes.Date},
	iceberg.NestedField{ID: 6, Name: "base_airport", Type: iceberg.PrimitiveTypes.String},
	iceberg.NestedField{ID: 7, Name: "in_service", Type: iceberg.PrimitiveTypes.Bool},
)

// aircraftRow is one row of fleet.aircraft.
type aircraftRow struct {
	TailNumber   string
	Manufacturer string
	Model        string
	Seats        int32
	FirstFlight  time.Time
	Base         string
	InService    bool
}

// tailNumber is the n-th tail number: N + 3 digits + 2 letters, unique
// for n below 900*26*26.
func tailNumber(n int64) string {
	digits := 100 + n%900
	n /= 900
	return fmt.Sprintf("N%d%c%c", digits, 'A'+byte(n%26), 'A'+byte(n/26%26))
}

func genAircraft(seed uint64, n int64) aircraftRow {
	r := rowRand(seed, "aircraft", n)
	m := pick(r, aircraftModels)
	return aircraftRow{TailNumber: tailNumber(n), Manufacturer: m.maker, Model: m.model, Seats: m.seats,
		FirstFlight: epoch.AddDate(-r.IntN(25), -r.IntN(12), -r.IntN(28)), Base: pick(r, airports), InService: r.IntN(12) > 0}
}

// values is the row in the columns of aircraftSchema.
func (a aircraftRow) values() []any {
	return []any{a.TailNumber, a.Manufacturer, a.Model, a.Seats, a.FirstFlight, a.Base, a.InService}
}

// nullIfEmpty is s, or null when it is empty (a value not on file).
func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
