package api_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"testing"
)

// TestDerived_differential draws where clauses over derived and stored
// properties, an order (with nulls: customers without orders have no
// total) and a page size, and compares every page with a brute-force
// evaluation of the rows: on a small set, and on one whose links are
// followed and accumulated in several batches (addBatch).
func TestDerived_differential(t *testing.T) {
	for _, size := range []struct {
		name              string
		customers, orders int
		cases             int
	}{{"small", 40, 160, 30}, {"batches", 600, 3000, 8}} {
		t.Run(size.name, func(t *testing.T) {
			testDerivedDifferential(t, mustSizedLinksEnv(t, 14, size.customers, size.orders), size.cases)
		})
	}
}

func testDerivedDifferential(t *testing.T, e *linksEnv, cases int) {
	r := rand.New(rand.NewPCG(14, 1))
	defs := map[string]any{
		"n":     sel(pivot("orders"), "count"),
		"total": sel(pivot("orders"), "sum", "selectedPropertyApiName", "amount"),
		"tags":  sel(pivot("orders", "tags"), "exactDistinct", "selectedPropertyApiName", "code"),
		"ratio": map[string]any{"type": "divide", "left": sel(pivot("orders"), "sum", "selectedPropertyApiName", "amount"), "right": sel(pivot("orders"), "count")},
	}
	type stats struct {
		id, city     string
		n, tags      float64
		total, ratio any
	}
	var all []stats
	for _, c := range e.rows.customers {
		os := e.rows.ordersOf(c)
		s := stats{id: key(c), city: c["city"].(string), n: float64(len(os)), tags: float64(len(e.rows.around("Order", "tags", os)))}
		if len(os) > 0 {
			sum := 0.0
			for _, x := range amounts(os) {
				sum += x
			}
			s.total, s.ratio = sum, sum/float64(len(os))
		}
		all = append(all, s)
	}
	field := func(s stats, name string) any {
		return map[string]any{"n": s.n, "tags": s.tags, "total": s.total, "ratio": s.ratio, "city": s.city}[name]
	}
	for i := range cases {
		// where: derived >= k, or city = X or derived < k (a clause mixing stored and derived).
		k := float64(r.IntN(6))
		dp := []string{"n", "tags"}[r.IntN(2)]
		city := linkCities[r.IntN(len(linkCities))]
		mixed := r.IntN(2) == 0
		w := fmt.Sprintf(`{"type":"gte","field":%q,"value":%v}`, dp, k)
		keep := func(s stats) bool { return field(s, dp).(float64) >= k }
		if mixed {
			w = fmt.Sprintf(`{"type":"or","value":[{"type":"eq","field":"city","value":%q},{"type":"lt","propertyIdentifier":{"type":"property","apiName":%q},"value":%v}]}`, city, dp, k)
			keep = func(s stats) bool { return s.city == city || field(s, dp).(float64) < k }
		}
		ob := []string{"n", "total", "tags", "ratio", "city"}[r.IntN(5)]
		desc := r.IntN(2) == 0
		size := 1 + r.IntN(12)
		t.Run(fmt.Sprintf("%d %s by %s desc=%v size %d", i, w, ob, desc, size), func(t *testing.T) {
			dir := map[bool]string{true: "desc", false: "asc"}[desc]
			body := map[string]any{"objectSet": map[string]any{"type": "filter", "objectSet": withProps(baseSet("Customer"), defs), "where": where(w)},
				"orderBy": map[string]any{"fields": []any{map[string]any{"field": ob, "direction": dir}}}}
			objs, _ := e.pageAll(t, http.MethodPost, ontologyPath+"/objectSets/loadObjects", body, size)
			var want []stats
			for _, s := range all {
				if keep(s) {
					want = append(want, s)
				}
			}
			slices.SortStableFunc(want, func(a, b stats) int {
				x, y := field(a, ob), field(b, ob)
				switch {
				case x == nil && y != nil:
					return 1
				case y == nil && x != nil:
					return -1
				case x != nil:
					var c int
					if xs, ok := x.(string); ok {
						c = cmp.Compare(xs, y.(string))
					} else {
						c = cmp.Compare(x.(float64), y.(float64))
					}
					if desc {
						c = -c
					}
					if c != 0 {
						return c
					}
				}
				return cmp.Compare(len(a.id), len(b.id))*10 + cmp.Compare(a.id, b.id)
			})
			if len(objs) != len(want) {
				t.Fatalf("%d objects, want %d", len(objs), len(want))
			}
			for j, o := range objs {
				s := want[j]
				if fmt.Sprint(o["__primaryKey"]) != s.id || number(o["n"]) != s.n || number(o["tags"]) != s.tags ||
					!sameNumber(o["total"], s.total) || !sameNumber(o["ratio"], s.ratio) {
					t.Fatalf("object %d: %v, want %+v", j, o, s)
				}
			}
		})
	}
}
