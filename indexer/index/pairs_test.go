package index

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// pairable properties of testType: city, visits, day and active have
// dicts; code has too many values, tags is an array.
var testPairs = []string{"city", "visits", "day", "active"}

// bruteCells counts the objects of want by their values of two properties.
func bruteCells(typ *objects.Type, want state, a, b string) map[string]int {
	ia, ib := typ.PropertyIndex(a), typ.PropertyIndex(b)
	out := map[string]int{}
	for _, o := range want {
		va, vb := o.Values[ia], o.Values[ib]
		if va != nil && vb != nil {
			out[fmt.Sprintf("%v|%v", va, vb)]++
		}
	}
	return out
}

// tableCells lists the non-zero cells of a table the way bruteCells does.
func tableCells(t *pairTable, a, b *propertyIndex) map[string]int {
	out := map[string]int{}
	for ka := range a.dict.values {
		for _, v := range t.values {
			if n := t.cell(ka, v); n > 0 {
				out[fmt.Sprintf("%v|%v", valueOf(a.elementType, valueKeyOfDict(ka)), valueOf(b.elementType, v))] = int(n)
			}
		}
	}
	return out
}

// TestPairTable_carry checks that Apply carries every pair table exactly:
// after rounds of random edits, deletes and inserts, each table equals the
// objects' counts; a new value of b drops the tables over b, which are
// then made again right.
func TestPairTable_carry(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	typ := testType(t)
	want := randState(r, 2000)
	s := mustBuild(t, typ, want)
	carried := 0
	for round := range 8 {
		for _, a := range testPairs {
			for _, b := range testPairs {
				if a != b && s.pairCounts(s.property(a), s.property(b)) == nil {
					t.Fatalf("round %d: no table of %s and %s", round, a, b)
				}
			}
		}
		if round == 5 {
			// A city no object had: every table over city as b is dropped.
			o := randObject(r, 1_000_000)
			o.Values[typ.PropertyIndex("city")] = "Lima"
			o.Values[typ.PropertyIndex("visits")] = int64(3)
			want[5000] = o
			var err error
			if s, err = s.Apply([]Change{{Doc: 5000, Key: mustKey(t, typ, o), Object: o}}, 3); err != nil {
				t.Fatal(err)
			}
			for k := range s.pairTables() {
				if typ.Properties[k.b].APIName == "city" {
					t.Fatalf("table of %s and city kept after a new city", typ.Properties[k.a].APIName)
				}
			}
		} else {
			s, _ = mustEdit(t, r, s, want, editMix{deleted: 1, rewritten: 2, outOf: 5})
			for d := uint32(3000 + round*100); d < uint32(3000+round*100+r.IntN(100)); d++ {
				o := randObject(r, int64(d))
				want[d] = o
				var err error
				if s, err = s.Apply([]Change{{Doc: d, Key: mustKey(t, typ, o), Object: o}}, 3); err != nil {
					t.Fatal(err)
				}
			}
		}
		carried += len(s.pairTables())
		for _, a := range testPairs {
			for _, b := range testPairs {
				if a == b {
					continue
				}
				pa, pb := s.property(a), s.property(b)
				tb := s.pairCounts(pa, pb) // carried, or made now
				if got, exp := tableCells(tb, pa, pb), bruteCells(typ, want, a, b); !maps.Equal(got, exp) {
					t.Fatalf("round %d: %s x %s: %d cells, want %d", round, a, b, len(got), len(exp))
				}
			}
		}
	}
	if carried == 0 {
		t.Fatal("no table was carried by Apply")
	}
}

// TestSnapshot_AggregatePairs checks counts grouped by one property over
// the documents of a value or a range of another, which the pair tables
// answer, against the oracle after rounds of edits.
func TestSnapshot_AggregatePairs(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	typ := testType(t)
	want := randState(r, 2000)
	s := mustBuild(t, typ, want)
	or := &oracle{t: typ}
	for round := range 4 {
		var keys map[uint32][]byte
		s, keys = mustEdit(t, r, s, want, editMix{deleted: 1, rewritten: 2, outOf: 4})
		for i := range 80 {
			by := testPairs[r.IntN(len(testPairs))]
			of := testPairs[r.IntN(len(testPairs))]
			p, _ := typ.Property(of)
			v := randValue(r, p, want, typ.PropertyIndex(of))
			var f *query.Filter
			switch r.IntN(3) {
			case 0:
				f = query.Eq(of, v)
			case 1:
				f = query.Compare([]query.Op{query.OpGt, query.OpGte, query.OpLt, query.OpLte}[r.IntN(4)], of, v)
			default:
				f = query.And(query.Compare(query.OpGte, of, v), query.Compare(query.OpLte, of, randValue(r, p, want, typ.PropertyIndex(of))))
			}
			if v == nil {
				f = query.IsNull(of, false)
			}
			g := query.Group{Kind: query.Exact, Property: by}
			switch r.IntN(3) {
			case 0:
				g.IncludeNull = true
			case 1:
				def := "none"
				g.Default = &def
			}
			if r.IntN(4) == 0 {
				g.MaxGroupCount = 1 + r.IntN(3)
			}
			q := &query.Aggregate{Filter: f, Metrics: []query.Metric{{Kind: query.Count}}, Groups: []query.Group{g}}
			for _, opt := range []aggregateOptions{{}, {noPairs: true}} {
				res, err := s.aggregate(t.Context(), q, nil, opt)
				if err != nil {
					t.Fatalf("round %d, %d: %v %+v: %v", round, i, f, opt, err)
				}
				checkAggregate(t, "round "+strconv.Itoa(round)+", "+strconv.Itoa(i)+": "+f.String(), typ, q, res, or.aggregate(want, keys, q))
			}
		}
		if len(s.pairTables()) == 0 {
			t.Fatalf("round %d: no pair table was used", round)
		}
	}
}
