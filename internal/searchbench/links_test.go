package searchbench

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/benchdata"
	"github.com/ontoindex/ontoindex/internal/pgserver"
	"github.com/ontoindex/ontoindex/objects"
)

// TestServerConfig checks the config the bench serves with as the server
// reads it: it validates, each object type resolves against the schema
// benchdata writes, and Customer has the side "orders" the searchAround
// follows, through Order's foreign key, of the type of Customer's key.
func TestServerConfig(t *testing.T) {
	dir := t.TempDir()
	path, err := writeServerConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]*objects.Type{}
	for name, sc := range map[string]*iceberg.Schema{objectType: benchdata.CustomerSchema(), orderType: benchdata.OrderSchema()} {
		spec, ok := cfg.TypeSpec(name)
		if !ok {
			t.Fatalf("no object type %s", name)
		}
		typ, err := spec.Resolve(changelog.Columns(sc), changelog.IdentifierColumns(sc))
		if err != nil {
			t.Fatalf("%s against its table: %v", name, err)
		}
		if len(typ.Properties) != len(sc.Fields()) {
			t.Errorf("%s maps %d properties of %d columns: the bench compares whole rows", name, len(typ.Properties), len(sc.Fields()))
		}
		types[name] = typ
	}
	var side *objects.LinkSide
	for _, l := range cfg.Links()[objectType] {
		if l.APIName == aroundLink {
			side = &l
		}
	}
	if side == nil || side.Target != orderType || !side.Many || side.TargetProperty == "" {
		t.Fatalf("link side %s of %s: %+v; links %+v", aroundLink, objectType, side, cfg.Links())
	}
	order, customer := types[orderType], types[objectType]
	fk := order.Properties[order.PropertyIndex(side.TargetProperty)]
	pk := customer.Properties[customer.PropertyIndex(customer.PrimaryKey[0])]
	if fk.Column != "customer_id" || fk.Type != pk.Type || !fk.Searchable() {
		t.Errorf("foreign key %+v does not hold a %s key (%+v)", fk, objectType, pk)
	}
}

// TestAroundRequest checks the body sent to loadObjects against the shape
// the links issue names.
func TestAroundRequest(t *testing.T) {
	req := aroundRequest(params{city: "Oslo", lo: 1000, hi: 81000})
	req.ExcludeRid = true // as loadObjects sends it
	got, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"objectSet":{"type":"searchAround","link":"orders","objectSet":{"type":"filter",
		"objectSet":{"type":"base","objectType":"Customer"},
		"where":{"type":"and","value":[{"type":"eq","field":"city","value":"Oslo"},
			{"type":"gte","field":"balance","value":1000},{"type":"lt","field":"balance","value":81000}]}}},
		"orderBy":{"fields":[{"field":"id","direction":"asc"}]},"pageSize":100,"excludeRid":true}`
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if gj, wj := mustJSON(t, g), mustJSON(t, w); gj != wj {
		t.Fatalf("body\n%s\nwant\n%s", gj, wj)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v) // sorts the keys of maps
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestGenAround checks the customer filter: whole numbers (the JSON and
// the SQL name the same doubles), within the balances, 8% wide, and 1% of
// the customers on average.
func TestGenAround(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const customers, rounds = 5000, 100
	matched := 0
	for range rounds {
		p := genAround(r)
		if p.lo != float64(int64(p.lo)) || p.lo < 0 || p.hi > benchdata.MaxBalance || p.hi-p.lo != 80_000 || !slices.Contains(benchdata.Cities, p.city) {
			t.Fatalf("params %+v", p)
		}
		for id := range int64(customers) {
			if aroundMatches(benchdata.NewCustomer(1, id), p) {
				matched++
			}
		}
	}
	if f := float64(matched) / (customers * rounds); f < 0.008 || f > 0.012 {
		t.Errorf("the filter matches %.4f of the customers, want about 0.01", f)
	}
	if got := queryByID(queries(1_000_000, &deepPage{page: 2}), "around").name; !strings.Contains(got, "10,000 customers") {
		t.Errorf("name at 1,000,000 rows: %q", got)
	}
}

// aroundMatches is the customer filter of the links row, in Go.
func aroundMatches(c benchdata.Customer, p params) bool {
	return c.City == p.city && c.Balance >= p.lo && c.Balance < p.hi
}

// aroundAnswer computes the links row's answer from the generators: the
// first page of order ids and the total.
func aroundAnswer(seed uint64, rows int, p params) result {
	var r result
	for id := range int64(rows) {
		o := benchdata.NewOrder(seed, int64(rows), id)
		if aroundMatches(benchdata.NewCustomer(seed, o.CustomerID), p) {
			if len(r.ids) < pageSize {
				r.ids = append(r.ids, o.ID)
			}
			r.total++
		}
	}
	r.counted = true
	return r
}

// TestPostgresAround loads both tables into a real PostgreSQL and checks
// the links row's join and count against the answer computed from the
// generators, and that verification compares ontoindex's totalCount with
// the count (the ontoindex side here is that computed answer, changed).
func TestPostgresAround(t *testing.T) {
	if _, err := pgserver.FindBinDir(""); errors.Is(err, pgserver.ErrNotFound) && os.Getenv("CI") != "true" {
		t.Skip(err)
	}
	ctx := context.Background()
	pg, err := startPostgres(ctx, "", 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := pg.close(); err != nil {
			t.Error(err)
		}
	}()
	const seed, rows = 3, 5000
	if _, err := pg.load(ctx, seed, rows); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	// Drawn filters match about 50 customers here; a whole city, ~625
	// orders, makes the LIMIT and the order matter.
	ps := []params{genAround(r), genAround(r), {city: "Paris", lo: 0, hi: benchdata.MaxBalance}}
	for _, p := range ps {
		want := aroundAnswer(seed, rows, p)
		got, err := pgAround(ctx, pg, p)
		if err != nil {
			t.Fatal(err)
		}
		if got.total, err = pgAroundTotal(ctx, pg, p); err != nil {
			t.Fatal(err)
		}
		got.counted = true
		if d := diff(want, got); d != "" || want.total == 0 {
			t.Fatalf("%+v: %s (total %d; \"ontoindex\" is the answer computed from the generators)", p, d, want.total)
		}
	}
	if want := aroundAnswer(seed, rows, ps[2]); want.total <= pageSize {
		t.Fatalf("a whole city has %d orders: the LIMIT is not exercised", want.total)
	}

	for _, tt := range []struct {
		name  string
		onto  func(result) result
		wrong string // "" when verification passes
	}{
		{"same", func(r result) result { return r }, ""},
		{"total off by one", func(r result) result { r.total++; return r }, "totalCount differs"},
		{"no total", func(r result) result { r.counted = false; return r }, "totalCount differs: ontoindex none"},
		{"one more id", func(r result) result { r.ids = append(slices.Clone(r.ids), -1); return r }, "ids differ from position"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q := query{id: "around", name: "around", gen: genAround, pg: pgAround, pgTotal: pgAroundTotal,
				onto: func(_ context.Context, _ *ontoClient, p params) (result, error) {
					return tt.onto(aroundAnswer(seed, rows, p)), nil
				}}
			err := verify(ctx, []query{q}, nil, pg, seed)
			var mm *MismatchError
			switch {
			case tt.wrong == "" && err != nil:
				t.Fatal(err)
			case tt.wrong != "" && (!errors.As(err, &mm) || !strings.Contains(mm.Mismatches[0], tt.wrong)):
				t.Fatalf("err %v, want a mismatch with %q", err, tt.wrong)
			}
		})
	}
}
