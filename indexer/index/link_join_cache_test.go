package index

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"weak"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

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
