package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/api"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

const createTemporaryPath = ontologyPath + "/objectSets/createTemporary"

func referenceSet(rid string) map[string]any {
	return map[string]any{"type": "reference", "reference": rid}
}

// createTemporary stores a set with a token and returns its rid.
func (e *linksEnv) createTemporary(tb testing.TB, token string, set map[string]any) string {
	tb.Helper()
	r := e.do(tb, http.MethodPost, createTemporaryPath, token, map[string]any{"objectSet": set})
	if r.status != http.StatusOK {
		tb.Fatalf("createTemporary %v: status %d: %s", set, r.status, r.body)
	}
	rid, ok := r.json(tb)["objectSetRid"].(string)
	if !ok || rid == "" {
		tb.Fatalf("createTemporary: no objectSetRid: %s", r.body)
	}
	return rid
}

// fakeClock is a clock the test moves.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func mustClock(e *linksEnv) *fakeClock {
	c := &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	api.SetTemporaryObjectSetClock(e.api, c.Now)
	return c
}

// customersIn is the keys of the customers of a city, in key order.
func (lr linkRows) customersIn(city string) []string {
	var out []string
	for _, c := range lr.customers {
		if c["city"] == city {
			out = append(out, key(c))
		}
	}
	return out
}

func cityFilter(city string) map[string]any {
	return filterSet(baseSet("Customer"), map[string]any{"type": "eq", "field": "city", "value": city})
}

// TestTemporaryObjectSets_reference: a stored set answers as its
// definition does, alone and nested in filter, union, searchAround, another
// stored set and an aggregation; and it is evaluated at each use, so a
// build after it was created shows.
func TestTemporaryObjectSets_reference(t *testing.T) {
	e := mustLinksEnv(t, 11)
	city := linkCities[0]
	oslo := e.rows.customersIn(city)
	rid := e.createTemporary(t, appToken, cityFilter(city))
	ref := referenceSet(rid)

	t.Run("alone", func(t *testing.T) {
		if got := e.loadAll(t, ref); !slices.Equal(got, oslo) {
			t.Fatalf("got %v, want %v", got, oslo)
		}
	})
	t.Run("nested", func(t *testing.T) {
		var small []string
		for _, k := range oslo {
			if cmpNumeric(k, "20") < 0 {
				small = append(small, k)
			}
		}
		lima := e.rows.customersIn(linkCities[1])
		both := append(slices.Clone(oslo), lima...)
		slices.SortFunc(both, cmpNumeric)
		tests := []struct {
			name string
			set  map[string]any
			want []string
		}{
			{"filter", filterSet(ref, map[string]any{"type": "lt", "field": "id", "value": 20}), small},
			{"union", map[string]any{"type": "union", "objectSets": []any{ref, cityFilter(linkCities[1])}}, both},
			{"subtract", map[string]any{"type": "subtract", "objectSets": []any{baseSet("Customer"), ref}}, subtract(e.rows.customers, oslo)},
			{"searchAround", aroundSet(ref, "orders"), e.rows.around("Customer", "orders", e.rows.rowsOf("Customer", oslo))},
			{"a stored set of a stored set", referenceSet(e.createTemporary(t, appToken, filterSet(ref, map[string]any{"type": "lt", "field": "id", "value": 20}))), small},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				if got := e.loadAll(t, tt.set); !slices.Equal(got, tt.want) {
					t.Fatalf("got %v, want %v", got, tt.want)
				}
			})
		}
	})
	t.Run("aggregate", func(t *testing.T) {
		m := e.ok(t, http.MethodPost, ontologyPath+"/objectSets/aggregate", map[string]any{
			"objectSet": ref, "aggregation": []any{map[string]any{"type": "count", "name": "n"}}, "groupBy": []any{}})
		if got := metricsOf(m["data"].([]any)[0])["n"]; got != fmt.Sprint(len(oslo)) {
			t.Fatalf("count %v, want %d", got, len(oslo))
		}
	})
	t.Run("get returns the definition", func(t *testing.T) {
		got := e.ok(t, http.MethodGet, ontologyPath+"/objectSets/"+rid, nil)
		want, _ := json.Marshal(cityFilter(city))
		if gotJSON, _ := json.Marshal(got); string(gotJSON) != string(want) {
			t.Fatalf("got %s, want %s", gotJSON, want)
		}
	})
	t.Run("evaluated at each use", func(t *testing.T) {
		ctx := context.Background()
		added := icebergtest.Row{"id": int64(1000), "name": "customer 1000", "city": city}
		if err := e.customers.Append(ctx, []icebergtest.Row{added}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.ix.Build(ctx, "Customer", indexer.BuildOptions{}); err != nil {
			t.Fatal(err)
		}
		if got := e.loadAll(t, ref); !slices.Equal(got, append(slices.Clone(oslo), "1000")) {
			t.Fatalf("after the build: got %v, want %v and 1000", got, oslo)
		}
	})
}

// subtract is the keys of rows not in drop.
func subtract(rows []icebergtest.Row, drop []string) []string {
	var out []string
	for _, r := range rows {
		if !slices.Contains(drop, key(r)) {
			out = append(out, key(r))
		}
	}
	return out
}

// TestTemporaryObjectSets_expiry: a set is usable until its expiry (one
// hour, or server.temporaryObjectSets.expiry) and then a 404 that names
// it, on the server's clock.
func TestTemporaryObjectSets_expiry(t *testing.T) {
	tests := []struct {
		name   string
		expiry time.Duration // 0: the default
		want   time.Duration
	}{
		{"default", 0, time.Hour},
		{"configured", 5 * time.Minute, 5 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := mustLinksEnv(t, 12, func(cfg *config.Config) { cfg.Server.TemporaryObjectSets.Expiry = tt.expiry })
			clock := mustClock(e)
			rid := e.createTemporary(t, appToken, cityFilter(linkCities[0]))
			clock.advance(tt.want - time.Second)
			e.loadAll(t, referenceSet(rid))
			clock.advance(time.Second)
			m := e.fail(t, http.MethodPost, ontologyPath+"/objectSets/loadObjects", map[string]any{"objectSet": referenceSet(rid)}, 404, "ObjectSetNotFound")
			if got := m["parameters"].(map[string]any)["objectSetRid"]; got != rid {
				t.Fatalf("the error names %v, want %s", got, rid)
			}
			e.fail(t, http.MethodGet, ontologyPath+"/objectSets/"+rid, nil, 404, "ObjectSetNotFound")
			if n := api.TemporaryObjectSets(e.api); n != 0 {
				t.Fatalf("%d sets held after they expired", n)
			}
		})
	}
}

// TestTemporaryObjectSets_eviction: past maxSets (or maxBytes) sets, the
// oldest go first.
func TestTemporaryObjectSets_eviction(t *testing.T) {
	tests := []struct {
		name string
		edit func(*config.Config)
		kept int
	}{
		{"maxSets", func(cfg *config.Config) { cfg.Server.TemporaryObjectSets.MaxSets = 3 }, 3},
		// Each definition below is 115 bytes: two fit.
		{"maxBytes", func(cfg *config.Config) { cfg.Server.TemporaryObjectSets.MaxBytes = 300 }, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := mustLinksEnv(t, 13, tt.edit)
			var rids []string
			for i := range 5 {
				rids = append(rids, e.createTemporary(t, appToken, filterSet(baseSet("Customer"), map[string]any{"type": "lt", "field": "id", "value": 10 + i})))
			}
			for i, rid := range rids {
				if i < len(rids)-tt.kept {
					e.fail(t, http.MethodGet, ontologyPath+"/objectSets/"+rid, nil, 404, "ObjectSetNotFound")
					continue
				}
				if got := e.loadAll(t, referenceSet(rid)); len(got) != 9+i {
					t.Fatalf("set %d: %d customers, want %d", i, len(got), 9+i)
				}
			}
			if n := api.TemporaryObjectSets(e.api); n != tt.kept {
				t.Fatalf("%d sets held, want %d", n, tt.kept)
			}
		})
	}
}

// TestTemporaryObjectSets_refused: a set that could not be loaded is
// refused when it is created, with the error loading it gives, and nothing
// is stored.
func TestTemporaryObjectSets_refused(t *testing.T) {
	e := mustLinksEnv(t, 14)
	tests := []struct {
		name   string
		body   any
		status int
		error  string
	}{
		{"no set", map[string]any{}, 400, "MalformedObjectSet"},
		{"malformed", map[string]any{"objectSet": map[string]any{"type": "base"}}, 400, "MalformedObjectSet"},
		{"unknown type", map[string]any{"objectSet": baseSet("Ghost")}, 404, "ObjectTypeNotFound"},
		{"unknown property", map[string]any{"objectSet": filterSet(baseSet("Customer"), map[string]any{"type": "eq", "field": "nope", "value": 1})}, 404, "PropertiesNotFound"},
		{"unknown link", map[string]any{"objectSet": aroundSet(baseSet("Customer"), "nope")}, 404, "LinkTypeNotFound"},
		{"unknown reference", map[string]any{"objectSet": referenceSet("ri.ontoindex.main.object-set.nope")}, 404, "ObjectSetNotFound"},
		{"reference without rid", map[string]any{"objectSet": map[string]any{"type": "reference"}}, 400, "MalformedObjectSet"},
		{"reference not a string", map[string]any{"objectSet": map[string]any{"type": "reference", "reference": 7}}, 400, "MalformedObjectSet"},
		{"unknown key", map[string]any{"objectSet": baseSet("Customer"), "ttl": 5}, 400, "MalformedRequestBody"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.fail(t, http.MethodPost, createTemporaryPath, tt.body, tt.status, tt.error)
		})
	}
	if n := api.TemporaryObjectSets(e.api); n != 0 {
		t.Fatalf("%d sets stored by refused requests", n)
	}
	t.Run("GET of a POST endpoint", func(t *testing.T) {
		for _, name := range []string{"createTemporary", "loadLinks", "loadObjects", "aggregate"} {
			r := e.do(t, http.MethodGet, ontologyPath+"/objectSets/"+name, appToken, nil)
			if r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != "POST" {
				t.Errorf("GET %s: status %d, Allow %q: %s", name, r.status, r.header.Get("Allow"), r.body)
			}
		}
		e.fail(t, http.MethodGet, ontologyPath+"/objectSets/loadEverything", nil, 404, "ObjectSetNotFound")
	})
}

// TestTemporaryObjectSets_scope: a stored set is decoded with the scope of
// the token that uses it, whoever created it.
func TestTemporaryObjectSets_scope(t *testing.T) {
	e := mustLinksEnv(t, 15)
	customers := e.createTemporary(t, appToken, cityFilter(linkCities[0]))
	orders := e.createTemporary(t, appToken, filterSet(baseSet("Order"), map[string]any{"type": "eq", "field": "status", "value": "paid"}))
	ordersByCustomer := e.createTemporary(t, appToken, aroundSet(cityFilter(linkCities[0]), "orders"))
	var paid []string
	for _, o := range e.rows.orders {
		if o["status"] == "paid" {
			paid = append(paid, key(o))
		}
	}
	load := func(ref string) map[string]any {
		return map[string]any{"objectSet": referenceSet(ref), "pageSize": 1000}
	}
	t.Run("a type the token may not see", func(t *testing.T) {
		e.failAs(t, ordersOnlyToken, http.MethodPost, ontologyPath+"/objectSets/loadObjects", load(customers), 404, "ObjectTypeNotFound")
		e.failAs(t, ordersOnlyToken, http.MethodPost, ontologyPath+"/objectSets/loadObjects", load(ordersByCustomer), 404, "ObjectTypeNotFound")
		e.failAs(t, ordersOnlyToken, http.MethodGet, ontologyPath+"/objectSets/"+customers, nil, 404, "ObjectSetNotFound")
		e.failAs(t, ordersOnlyToken, http.MethodGet, ontologyPath+"/objectSets/"+ordersByCustomer, nil, 404, "ObjectSetNotFound")
	})
	t.Run("types the token may see", func(t *testing.T) {
		r := e.do(t, http.MethodPost, ontologyPath+"/objectSets/loadObjects", ordersOnlyToken, load(orders))
		if r.status != http.StatusOK {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
		if got := ids(objectsOf(t, r.json(t))); !slices.Equal(got, paid) {
			t.Fatalf("got %v, want %v", got, paid)
		}
		mine := e.createTemporary(t, ordersOnlyToken, baseSet("Order"))
		if got := e.loadAll(t, referenceSet(mine)); len(got) != len(e.rows.orders) {
			t.Fatalf("the app token loads %d orders of a set the orders token stored, want %d", len(got), len(e.rows.orders))
		}
	})
	t.Run("create with a type the token may not see", func(t *testing.T) {
		e.failAs(t, ordersOnlyToken, http.MethodPost, createTemporaryPath, map[string]any{"objectSet": referenceSet(customers)}, 404, "ObjectTypeNotFound")
	})
}
