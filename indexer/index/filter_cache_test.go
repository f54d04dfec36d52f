package index

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/query"
)

// TestSnapshot_filterCache checks sorted pages bounded by a range whose
// residual is an intersection of dictionary values, negated or not (city,
// active), each asked three times through the order's bins, so that the
// residual's bitset is made, then read from the cache, then counted from
// its prefix sums over the bins, against the oracle and against the same
// search without the cache; that no query changes a cached bitset (they
// share them); and that the cache keeps within its bound.
func TestSnapshot_filterCache(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	typ := testType(t)
	want := randState(r, 4000)
	s := mustBuild(t, typ, want)
	keys := mustKeys(t, typ, want)
	or := &oracle{t: typ}
	residual := func() *query.Filter {
		var fs []*query.Filter
		for range 2 + r.IntN(2) {
			f := query.Eq("city", testCities[r.IntN(len(testCities))])
			if r.IntN(2) == 0 {
				f = query.Eq("active", r.IntN(2) == 0)
			}
			if r.IntN(3) == 0 {
				f = query.Not(f)
			}
			fs = append(fs, f)
		}
		return query.And(fs...)
	}
	// Each entry's bitset as first seen: no query may change it after.
	seen := map[*cachedFilter]dense{}
	unchanged := func(t *testing.T) {
		for _, e := range s.filters.entries {
			if was, ok := seen[e]; !ok {
				seen[e] = slices.Clone(e.bits)
			} else if !slices.Equal(was, e.bits) {
				t.Fatal("a query changed a cached filter's bitset")
			}
		}
	}
	sorted := []string{"balance", "visits", "day"}
	for i := range oracleCases(60) {
		p := sorted[r.IntN(len(sorted))]
		pos := typ.PropertyIndex(p)
		a, b := randValue(r, typ.Properties[pos], want, pos), randValue(r, typ.Properties[pos], want, pos)
		f := query.And(query.Compare(query.OpGte, p, a), query.Compare(query.OpLt, p, b), residual())
		q := query.Search{Filter: f, Sort: []query.Sort{{Property: p, Desc: r.IntN(2) == 0}}, PageSize: []int{1, 10, 100}[r.IntN(3)]}
		exp := or.sorted(want, keys, f, q.Sort)
		bins := searchOptions{plan: PlanWalk, count: countBins}
		for n, opt := range []searchOptions{bins, bins, bins, {}, {plan: PlanWalk, count: countBins, noFilterCache: true}} {
			got, total, err := pageAll(t, s, q, opt)
			if err != nil {
				t.Fatalf("%d: %v %+v (run %d): %v", i, f, opt, n, err)
			}
			if total != int64(len(exp)) || !slices.Equal(got, exp) {
				t.Fatalf("%d: %v sort %v %+v (run %d): total %d, want %d\ngot  %v\nwant %v", i, f, q.Sort, opt, n, total, len(exp), head(got), head(exp))
			}
			unchanged(t)
		}
	}
	if n := len(s.filters.entries); n == 0 || n > maxCachedFilters {
		t.Fatalf("%d cached filters, want 1 to %d", n, maxCachedFilters)
	}
	counted := 0
	for _, f := range s.filters.entries {
		for _, p := range f.prefix {
			if p != nil {
				counted++
			}
		}
	}
	if counted == 0 {
		t.Fatal("no cached filter was counted from its prefix sums")
	}
}

// TestFilterKey checks that an intersection's key names its values and
// their negations whatever the order of the kids, and that only
// dictionary values have one.
func TestFilterKey(t *testing.T) {
	typ := testType(t)
	s := mustBuild(t, typ, randState(rand.New(rand.NewPCG(1, 2)), 500))
	c := &compiler{s: s}
	key := func(f *query.Filter) (string, bool) {
		t.Helper()
		n, err := c.compile(f)
		if err != nil {
			t.Fatal(err)
		}
		a, ok := n.(*andNode)
		if !ok {
			t.Fatalf("%v: compiled to %T", f, n)
		}
		sets, others := a.plan()
		if len(others) > 0 {
			return "", false
		}
		return filterKey(sets)
	}
	oslo, berlin, active := query.Eq("city", "Oslo"), query.Eq("city", "Berlin"), query.Eq("active", true)
	k1, ok1 := key(query.And(oslo, active))
	k2, ok2 := key(query.And(active, oslo))
	if !ok1 || !ok2 || k1 != k2 {
		t.Fatalf("and(oslo, active) %q %v, and(active, oslo) %q %v: want one key", k1, ok1, k2, ok2)
	}
	for _, other := range []*query.Filter{query.And(berlin, active), query.And(oslo, query.Not(active)), query.And(query.Not(oslo), active)} {
		if k, ok := key(other); !ok || k == k1 {
			t.Errorf("%v: key %q %v, want one of its own", other, k, ok)
		}
	}
	for _, f := range []*query.Filter{
		query.And(oslo, query.Text(query.OpAllTerms, "name", "amber")),        // a posting
		query.And(oslo, query.Compare(query.OpGte, "balance", float64(1000))), // a range
	} {
		if k, ok := key(f); ok {
			t.Errorf("%v: key %q, want none", f, k)
		}
	}
}

// TestSnapshot_filterCacheShared runs a few sorted pages from several
// goroutines at once, so that they miss, fill and read the cache and its
// prefix sums together (the race detector watches in CI), against the
// oracle's totals and first pages.
func TestSnapshot_filterCacheShared(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	typ := testType(t)
	want := randState(r, 3000)
	s := mustBuild(t, typ, want)
	keys := mustKeys(t, typ, want)
	or := &oracle{t: typ}
	pos := typ.PropertyIndex("balance")
	type page struct {
		q     query.Search
		first []uint32
		total int
	}
	var pages []page
	for _, city := range testCities[:4] {
		a, b := randValue(r, typ.Properties[pos], want, pos), randValue(r, typ.Properties[pos], want, pos)
		f := query.And(query.Compare(query.OpGte, "balance", a), query.Compare(query.OpLt, "balance", b),
			query.Eq("city", city), query.Not(query.Eq("active", true)))
		q := query.Search{Filter: f, Sort: []query.Sort{{Property: "balance", Desc: true}}, PageSize: 10}
		exp := or.sorted(want, keys, f, q.Sort)
		pages = append(pages, page{q: q, first: exp[:min(10, len(exp))], total: len(exp)})
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 40 {
				p := pages[(g+i)%len(pages)]
				res, err := s.search(t.Context(), &p.q, searchOptions{plan: PlanWalk, count: countBins})
				if err != nil {
					t.Errorf("%v: %v", p.q.Filter, err)
					return
				}
				if res.Total != int64(p.total) || !slices.Equal(res.Docs, p.first) {
					t.Errorf("%v: total %d, first %v; want %d, %v", p.q.Filter, res.Total, res.Docs, p.total, p.first)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := len(s.filters.entries); n != len(pages) {
		t.Fatalf("%d cached filters, want %d", n, len(pages))
	}
}
