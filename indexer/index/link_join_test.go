package index

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"weak"

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
	for d, o := range orders {
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

// TestJoinCache_get makes a join only once the links have read keys
// worth it, keeps one join per link (a newer source snapshot's replaces
// it) and at most maxJoins, and forgets a join whose making was
// cancelled.
func TestJoinCache_get(t *testing.T) {
	typ := testType(t)
	r := rand.New(rand.NewPCG(1, 2))
	objs := randState(r, 100)
	s1, s2 := mustBuild(t, typ, objs), mustBuild(t, typ, objs)
	var c joinCache
	made := 0
	build := func(context.Context) (*linkJoin, error) { made++; return &linkJoin{}, nil }
	key := func(s *Snapshot, target int) joinKey {
		return joinKey{source: weak.Make(s.property("id").order), sourceType: typ.APIName, sourceProperty: 0, targetProperty: target}
	}
	ctx := t.Context()
	t.Run("worth", func(t *testing.T) {
		for i, keys := range []int64{10, 10, 10} {
			j, err := c.get(ctx, key(s1, 5), keys, 30*costJoinKey, nil, build)
			if err != nil {
				t.Fatal(err)
			}
			wantMade := 0
			if i == 2 {
				wantMade = 1
			}
			if (j != nil) != (i == 2) || made != wantMade {
				t.Fatalf("ask %d: join %v, made %d", i, j != nil, made)
			}
		}
		if j, _ := c.get(ctx, key(s1, 5), 1, 30*costJoinKey, nil, build); j == nil || made != 1 {
			t.Fatalf("asked again: join %v, made %d times", j != nil, made)
		}
	})
	t.Run("newer source", func(t *testing.T) {
		if j, _ := c.get(ctx, key(s2, 5), 1, 0, nil, build); j == nil || made != 2 || len(c.entries) != 1 {
			t.Fatalf("join %v, made %d, %d entries", j != nil, made, len(c.entries))
		}
	})
	t.Run("bounded", func(t *testing.T) {
		for target := range 2 * maxJoins {
			if _, err := c.get(ctx, key(s2, 10+target), 1, 0, nil, build); err != nil {
				t.Fatal(err)
			}
		}
		if len(c.entries) != maxJoins {
			t.Fatalf("%d entries, want %d", len(c.entries), maxJoins)
		}
		for _, e := range c.entries {
			if e.key.targetProperty < 10+maxJoins {
				t.Fatalf("kept %d of the least recently used", e.key.targetProperty)
			}
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		_, err := c.get(cancelled, key(s1, 99), 1, 0, nil, func(ctx context.Context) (*linkJoin, error) { return nil, ctx.Err() })
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v, want the cancellation", err)
		}
		j, err := c.get(ctx, key(s1, 99), 1, 0, nil, build)
		if j == nil || err != nil {
			t.Fatalf("after the cancellation: join %v, %v", j != nil, err)
		}
	})
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

// TestSnapshot_carryJoins follows a link across updates of either side:
// a join is kept while the orders it merged are (an edit of other
// properties, an object added without the link's value), made again
// when they change, and every search answers what the objects say.
func TestSnapshot_carryJoins(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	typ, orders := testType(t), orderType()
	const n = 2000
	customerObjects := randState(r, n)
	orderObjects := state{}
	for i := range 2 * n {
		orderObjects[uint32(i)] = randOrder(r, int64(i), n)
	}
	customers, ordersSnap := mustBuild(t, typ, customerObjects), mustBuild(t, orders, orderObjects)
	version := uint64(2)
	// apply changes the objects of docs of s and of its state.
	apply := func(s *Snapshot, objs state, docs map[uint32]*objects.Object) *Snapshot {
		t.Helper()
		var changes []Change
		for d, o := range docs {
			c := Change{Doc: d}
			if o != nil {
				c.Key, c.Object = mustKey(t, s.Type(), o), o
				objs[d] = o
			} else {
				delete(objs, d)
			}
			changes = append(changes, c)
		}
		version++
		next, err := s.Apply(changes, version)
		if err != nil {
			t.Fatal(err)
		}
		return next
	}
	// check searches the orders of the customers not in Oslo, joined, and
	// returns the join it went through.
	check := func(step string) *linkJoin {
		t.Helper()
		f := query.Not(query.Eq("city", "Oslo"))
		set, err := customers.Distinct(t.Context(), f, query.Limits{}, "id")
		if err != nil {
			t.Fatal(err)
		}
		keys := mustKeys(t, typ, customerObjects)
		or := &oracle{t: typ}
		isID := map[int64]bool{}
		for d, o := range customerObjects {
			if or.match(f, o, keys[d]) {
				isID[o.Values[0].(int64)] = true
			}
		}
		var want int64
		others := state{}
		for d, o := range orderObjects {
			if v, ok := o.Values[1].(int64); ok && isID[v] {
				want++
			} else {
				others[d] = o
			}
		}
		q := &query.Search{Filter: &query.Filter{Op: query.OpIn, Property: "customerId", Set: set}, PageSize: 10, Sort: []query.Sort{{Property: "id"}}}
		got, err := ordersSnap.search(t.Context(), q, searchOptions{joins: joinsAlways})
		if err != nil {
			t.Fatal(err)
		}
		if got.Total != want {
			t.Fatalf("%s: %d orders, the objects %d", step, got.Total, want)
		}
		// The others, newest first: the walk tests the documents added.
		q = &query.Search{Filter: query.Not(q.Filter), PageSize: 10, Sort: []query.Sort{{Property: "id", Desc: true}}}
		if got, err = ordersSnap.search(t.Context(), q, searchOptions{joins: joinsAlways}); err != nil {
			t.Fatal(err)
		}
		if got.Total != int64(len(others)) || len(got.Docs) == 0 || got.Docs[0] != maxKeyDoc(others) {
			t.Fatalf("%s: %d other orders from %v, the objects %d from %d", step, got.Total, got.Docs, len(others), maxKeyDoc(others))
		}
		if len(ordersSnap.joins.entries) != 1 {
			t.Fatalf("%s: %d joins", step, len(ordersSnap.joins.entries))
		}
		return ordersSnap.joins.entries[0].join
	}
	first := check("built")
	amount := func(d uint32) *objects.Object {
		o := *orderObjects[d]
		o.Values = slices.Clone(o.Values)
		o.Values[2] = float64(r.IntN(1000))
		return &o
	}
	// carried: the orders' snapshot still has the join after the edit
	// (an edit of the customers leaves it be); kept: the search goes
	// through the same join.
	steps := []struct {
		name          string
		edit          func()
		carried, kept bool
	}{
		{"an order's amount", func() {
			ordersSnap = apply(ordersSnap, orderObjects, map[uint32]*objects.Object{3: amount(3), 7: amount(7)})
		}, true, true},
		{"an order without a customer added", func() {
			o := randOrder(r, 1e6, n)
			o.Values[1] = nil
			ordersSnap = apply(ordersSnap, orderObjects, map[uint32]*objects.Object{uint32(2*n + 5): o})
		}, true, true},
		{"a customer's balance", func() {
			o := *customerObjects[4]
			o.Values = slices.Clone(o.Values)
			o.Values[4] = 17.5
			customers = apply(customers, customerObjects, map[uint32]*objects.Object{4: &o})
		}, true, true},
		{"an order moved to another customer", func() {
			o := amount(9)
			o.Values[1] = int64(r.IntN(n))
			ordersSnap = apply(ordersSnap, orderObjects, map[uint32]*objects.Object{9: o})
		}, false, false},
		{"a customer deleted", func() { customers = apply(customers, customerObjects, map[uint32]*objects.Object{11: nil}) }, true, false},
	}
	for _, step := range steps {
		step.edit()
		if carried := len(ordersSnap.joins.entries) == 1; carried != step.carried {
			t.Fatalf("%s: carried %v", step.name, carried)
		}
		j := check(step.name)
		if (j == first) != step.kept {
			t.Fatalf("%s: the same join %v, want %v", step.name, j == first, step.kept)
		}
		first = j
	}
}

// maxKeyDoc is the document of the largest id among objs.
func maxKeyDoc(objs state) uint32 {
	var doc uint32
	var top int64 = -1
	for d, o := range objs {
		if id := o.Values[0].(int64); id > top {
			doc, top = d, id
		}
	}
	return doc
}

// TestSnapshot_DistinctKept reads a set of keys left unread after other
// queries of the same snapshot have reused the bitsets of the query that
// made it: the set must hold its own documents.
func TestSnapshot_DistinctKept(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	typ := testType(t)
	// More than a roaring container's 65,536 documents: a bitmap made
	// from a query's bitset shares the bitset's words container by
	// container.
	objs := randState(r, 70_000)
	s := mustBuild(t, typ, objs)
	keys := mustKeys(t, typ, objs)
	or := &oracle{t: typ}
	// Ranges wide enough for a bitset, and of the key itself.
	filters := []*query.Filter{
		query.Compare(query.OpGte, "balance", -100.0),
		query.Compare(query.OpLt, "id", int64(66_000)),
		query.And(query.Compare(query.OpGte, "balance", -200.0), query.Not(query.Eq("city", "Oslo"))),
	}
	for i, f := range filters {
		set, err := s.Distinct(t.Context(), f, query.Limits{}, "id")
		if err != nil {
			t.Fatal(err)
		}
		if set.(*valueSet).keys == nil {
			t.Fatalf("%d: %v: %d keys read at once", i, f, set.Len())
		}
		// Other queries take the pooled bitsets and write them.
		for _, other := range filters {
			mustSearch(t, s, &query.Search{Filter: query.Not(other), PageSize: 5, Sort: []query.Sort{{Property: "balance"}}})
		}
		var want []any
		for d, o := range objs {
			if or.match(f, o, keys[d]) {
				want = append(want, o.Values[0])
			}
		}
		slices.SortFunc(want, oracleCompare)
		if got := set.Values(); !slices.EqualFunc(got, want, func(a, b any) bool { return oracleCompare(a, b) == 0 }) {
			t.Fatalf("%d: %v: %d keys, the objects %d", i, f, len(got), len(want))
		}
	}
}
