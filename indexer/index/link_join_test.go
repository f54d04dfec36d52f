package index

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// orderType is a type whose customerId holds keys of testType's objects:
// too many distinct values for a dictionary, so links to it go through
// its order.
func orderType() *objects.Type {
	long := objects.DataType{Kind: objects.KindLong}
	return &objects.Type{APIName: "Order", PrimaryKey: []string{"id"}, TitleProperty: "id", Properties: []objects.Property{
		{APIName: "id", Type: long, Search: objects.SearchNumeric},
		{APIName: "customerId", Type: long, Search: objects.SearchNumeric},
		{APIName: "amount", Type: objects.DataType{Kind: objects.KindDouble}, Search: objects.SearchNumeric},
	}}
}

// randOrder is order id of one of customers customers, or of a key no
// customer has, or of none.
func randOrder(r *rand.Rand, id int64, customers int) *objects.Object {
	o := &objects.Object{Values: []any{id, int64(r.IntN(customers + customers/10)), float64(r.IntN(1000))}}
	if r.IntN(20) == 0 {
		o.Values[1] = nil
	}
	return o
}

// mustEditOrders deletes and rewrites some of orders, as version 2.
func mustEditOrders(tb testing.TB, r *rand.Rand, s *Snapshot, orders state, customers int) *Snapshot {
	tb.Helper()
	var changes []Change
	for _, d := range orders.docs() {
		o := orders[d]
		switch r.IntN(6) {
		case 0:
			changes = append(changes, Change{Doc: d})
			delete(orders, d)
		case 1:
			n := randOrder(r, o.Values[0].(int64), customers)
			changes = append(changes, Change{Doc: d, Key: mustKey(tb, s.Type(), n), Object: n})
			orders[d] = n
		}
	}
	shuffleChanges(r, changes)
	s, err := s.Apply(changes, 2)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// TestCompiler_join follows links from random sets of source documents
// through the join of two edited snapshots (deletes and rewrites on both
// sides) and compares each with the same link value by value and with the
// objects: the join node's test, bitmap and bitset document by document,
// and searches with the link alone, under and, or and not, sorted and
// walked along orders, with their counts. Links go from a key to a key
// (one target a source at most) and to orders (many, some of no source).
func TestCompiler_join(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	typ, orders := testType(t), orderType()
	const n = 3000
	sourceObjects := randState(r, n)
	itemObjects := maps.Clone(sourceObjects)
	orderObjects := state{}
	for i := range 3 * n {
		orderObjects[uint32(i)] = randOrder(r, int64(i), n)
	}
	source, items := mustBuild(t, typ, sourceObjects), mustBuild(t, typ, itemObjects)
	source, sourceKeys := mustEdit(t, r, source, sourceObjects, editMix{deleted: 1, rewritten: 1, outOf: 5})
	items, _ = mustEdit(t, r, items, itemObjects, editMix{deleted: 1, rewritten: 1, outOf: 6})
	ordersSnap := mustEditOrders(t, r, mustBuild(t, orders, orderObjects), orderObjects, n)
	targets := []struct {
		s       *Snapshot
		objects state
		to      string
		sorts   [][]query.Sort
	}{
		{items, itemObjects, "id", [][]query.Sort{{{Property: "id"}}, {{Property: "balance", Desc: true}}, {{Property: "visits"}, {Property: "id"}}}},
		{ordersSnap, orderObjects, "customerId", [][]query.Sort{{{Property: "id"}}, {{Property: "amount", Desc: true}}, {{Property: "customerId"}}, {{Property: "amount"}, {Property: "id"}}}},
	}
	or := &oracle{t: typ}
	ctx := t.Context()
	key := source.property("id")
	for i := range 120 {
		tg := targets[i%2]
		target, to := tg.s, tg.to
		targetKeys := mustKeys(t, target.Type(), tg.objects)
		tor := &oracle{t: target.Type()}
		f := randFilter(r, typ, sourceObjects, sourceKeys, 1)
		if i%10 == 0 {
			f = nil // every source
		}
		from := roaring.New()
		isID := map[int64]bool{}
		for d, o := range sourceObjects {
			if or.match(f, o, sourceKeys[d]) {
				from.Add(d)
				isID[o.Values[0].(int64)] = true
			}
		}
		if len(isID) == 0 {
			continue
		}
		// The oracle's in compares with each value: a map answers for it.
		pos := target.Type().PropertyIndex(to)
		linked := func(d uint32) bool {
			v, ok := tg.objects[d].Values[pos].(int64)
			return ok && isID[v]
		}
		set := &valueSet{elementType: key.elementType, keys: &keyDocs{s: source, pi: key, docs: from, count: len(isID)}}
		c := &compiler{ctx: ctx, s: target, joins: joinsAlways}
		jn, err := c.join(target.property(to), set.keys)
		if err != nil || jn == nil {
			t.Fatalf("%d: id -> %s: no join (%v)", i, to, err)
		}
		var count int64
		for _, sparse := range []bool{true, false} {
			x := &exec{ctx: ctx, s: target, sparse: sparse}
			bm, err := jn.bitmap(x)
			if err != nil {
				t.Fatal(err)
			}
			w := jn.(*joinNode).dense(x)
			count = 0
			for d := range tg.objects {
				want := linked(d)
				if jn.test(d) != want || bm.Contains(d) != want || w.has(d) != want {
					t.Fatalf("%d: id -> %s, document %d: test %v, bitmap %v, bitset %v, the objects %v", i, to, d, jn.test(d), bm.Contains(d), w.has(d), want)
				}
				if want {
					count++
				}
			}
			if bm.GetCardinality() != uint64(count) || w.count() != count {
				t.Fatalf("%d: id -> %s: bitmap %d, bitset %d documents, the objects %d", i, to, bm.GetCardinality(), w.count(), count)
			}
			x.release()
		}
		if int64(jn.est()) != count {
			t.Fatalf("%d: id -> %s: the join counts %v, the objects %d", i, to, jn.est(), count)
		}
		viaSet := &query.Filter{Op: query.OpIn, Property: to, Set: set}
		extra := randFilter(r, target.Type(), tg.objects, targetKeys, 1)
		if to == "customerId" {
			extra = query.Compare(query.OpGte, "amount", float64(r.IntN(1000)))
		}
		shapes := []struct {
			where *query.Filter
			match func(in, extra bool) bool
		}{
			{viaSet, func(in, _ bool) bool { return in }},
			{query.And(viaSet, extra), func(in, extra bool) bool { return in && extra }},
			{query.Or(viaSet, extra), func(in, extra bool) bool { return in || extra }},
			{query.Not(viaSet), func(in, _ bool) bool { return !in }},
		}
		for _, shape := range shapes {
			where := shape.where
			var exp int64
			for d, o := range tg.objects {
				if shape.match(linked(d), tor.match(extra, o, targetKeys[d])) {
					exp++
				}
			}
			for _, sort := range tg.sorts {
				q := &query.Search{Filter: where, PageSize: 40, Sort: sort}
				got, err := target.search(ctx, q, searchOptions{joins: joinsAlways})
				if err != nil {
					t.Fatalf("%d: %v: %v", i, where, err)
				}
				want, err := target.search(ctx, q, searchOptions{joins: joinsNever})
				if err != nil {
					t.Fatalf("%d: %v by value: %v", i, where, err)
				}
				if got.Total != exp || want.Total != exp || !slices.Equal(got.Docs, want.Docs) {
					t.Fatalf("%d: %v sorted %v: joined %d %v, by value %d %v, the objects %d", i, where, sort, got.Total, got.Docs, want.Total, want.Docs, exp)
				}
			}
		}
	}
	// Both targets were searched through their joins.
	for _, tg := range targets {
		if len(tg.s.joins.entries) != 1 {
			t.Fatalf("%s: %d joins kept, want 1", tg.s.Type().APIName, len(tg.s.joins.entries))
		}
	}
}

// TestSnapshot_joinShared has queries follow one link at once while its
// join is being made (as each of them decides, joinsAuto): every count
// must be the objects'.
func TestSnapshot_joinShared(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	typ := testType(t)
	sourceObjects := randState(r, 3000)
	targetObjects := maps.Clone(sourceObjects)
	source, target := mustBuild(t, typ, sourceObjects), mustBuild(t, typ, targetObjects)
	target, _ = mustEdit(t, r, target, targetObjects, editMix{deleted: 1, rewritten: 1, outOf: 4})
	filters := []*query.Filter{nil, query.Not(query.Eq("city", "Oslo")), query.Not(query.IsNull("visits", true))}
	// id -> id: visits, with its few values, has a dictionary, which a
	// link reads by value.
	want := make([]int64, len(filters))
	for i, f := range filters {
		isID := map[int64]bool{}
		or := &oracle{t: typ}
		keys := mustKeys(t, typ, sourceObjects)
		for d, o := range sourceObjects {
			if or.match(f, o, keys[d]) {
				isID[o.Values[0].(int64)] = true
			}
		}
		for _, o := range targetObjects {
			if isID[o.Values[0].(int64)] {
				want[i]++
			}
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 4 {
		wg.Go(func() {
			for k := range 30 {
				i := (g + k) % len(filters)
				set, err := source.Distinct(t.Context(), filters[i], query.Limits{}, "id")
				if err != nil {
					errs <- err
					return
				}
				if set.(*valueSet).keys == nil {
					errs <- fmt.Errorf("filter %d: %d keys read at once, not left to a join", i, set.Len())
					return
				}
				res, err := target.Search(t.Context(), &query.Search{Filter: &query.Filter{Op: query.OpIn, Property: "id", Set: set}, PageSize: 10, Sort: []query.Sort{{Property: "id"}}})
				if err != nil {
					errs <- err
					return
				}
				if res.Total != want[i] {
					errs <- fmt.Errorf("filter %d: %d targets, the objects %d", i, res.Total, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(target.joins.entries) != 1 || target.joins.entries[0].join == nil {
		t.Fatalf("%d joins kept, want the one made", len(target.joins.entries))
	}
}
