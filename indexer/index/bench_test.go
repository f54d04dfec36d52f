package index

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

var benchRows = flag.Int("index.bench-rows", 200_000, "objects in the benchmark snapshot")

// Customers of the benchmark: a long key, a text name of first and last
// names, a keyword city of 8 values, a double balance, visits and active.
func customerType() *objects.Type {
	return &objects.Type{APIName: "Customer", PrimaryKey: []string{"id"}, TitleProperty: "name", Properties: []objects.Property{
		{APIName: "id", Type: objects.DataType{Kind: objects.KindLong}, Search: objects.SearchNumeric},
		{APIName: "name", Type: objects.DataType{Kind: objects.KindString}, Search: objects.SearchText},
		{APIName: "city", Type: objects.DataType{Kind: objects.KindString}, Search: objects.SearchKeyword},
		{APIName: "balance", Type: objects.DataType{Kind: objects.KindDouble}, Search: objects.SearchNumeric},
		{APIName: "visits", Type: objects.DataType{Kind: objects.KindInteger}, Search: objects.SearchNumeric},
		{APIName: "active", Type: objects.DataType{Kind: objects.KindBoolean}, Search: objects.SearchBoolean},
	}}
}

var (
	benchFirst = []string{"ada", "alan", "barbara", "claude", "donald", "edsger", "frances", "grace", "hedy", "ivan", "john", "katherine", "leslie", "margaret", "niklaus", "olga", "peter", "radia", "shafi", "tim"}
	benchLast  = []string{"allen", "backus", "cerf", "dijkstra", "engelbart", "floyd", "goldberg", "hopper", "iverson", "johnson", "knuth", "lamport", "liskov", "mccarthy", "naur", "ousterhout", "perlman", "ritchie", "sammet", "thompson", "turing", "wirth", "yao", "zuse"}
	benchCity  = []string{"Amsterdam", "Berlin", "Cairo", "Delhi", "Lagos", "Lima", "Osaka", "Sydney"}
)

var benchSnap = sync.OnceValue(func() *Snapshot {
	typ := customerType()
	r := rand.New(rand.NewPCG(1, 2))
	b := NewBuilder(typ)
	o := &objects.Object{Values: make([]any, 6)}
	for i := range *benchRows {
		o.Values[0] = int64(i)
		o.Values[1] = benchFirst[r.IntN(len(benchFirst))] + " " + benchLast[r.IntN(len(benchLast))]
		o.Values[2] = benchCity[r.IntN(len(benchCity))]
		o.Values[3] = r.Float64() * 1e6
		o.Values[4] = int64(r.IntN(100))
		o.Values[5] = r.IntN(2) == 0
		k, _ := typ.Key(o)
		if err := b.Add(uint32(i), k, o); err != nil {
			panic(err)
		}
	}
	return b.Finish(1)
})

func BenchmarkSnapshot_Search(b *testing.B) {
	s := benchSnap()
	r := rand.New(rand.NewPCG(3, 4))
	sorted := func() *query.Search {
		lo := r.Float64() * 950_000
		return &query.Search{PageSize: 100, Sort: []query.Sort{{Property: "balance", Desc: true}}, Filter: query.And(
			query.Eq("city", benchCity[r.IntN(8)]), query.Compare(query.OpGte, "balance", lo), query.Compare(query.OpLt, "balance", lo+50_000),
			query.Eq("active", false))}
	}
	text := func() *query.Search {
		t := benchFirst[r.IntN(len(benchFirst))] + " " + benchLast[r.IntN(len(benchLast))]
		return &query.Search{PageSize: 100, Sort: []query.Sort{{Property: "id"}}, Filter: query.Text(query.OpAllTerms, "name", t)}
	}
	prefix := func() *query.Search {
		return &query.Search{PageSize: 100, Filter: query.Text(query.OpStartsWith, "name", benchLast[r.IntN(len(benchLast))][:2])}
	}
	union := func() *query.Search {
		return &query.Search{PageSize: 100, Filter: query.Or(query.Eq("city", benchCity[r.IntN(8)]), query.Compare(query.OpGt, "visits", int64(90+r.IntN(10))))}
	}
	page := func() *query.Search {
		return &query.Search{PageSize: 100, Sort: []query.Sort{{Property: "balance"}}, Filter: query.Eq("active", true)}
	}
	for _, bc := range []struct {
		name string
		q    func() *query.Search
	}{{"sorted", sorted}, {"text", text}, {"prefix", prefix}, {"union", union}, {"page", page}} {
		b.Run(bc.name, func(b *testing.B) {
			var plan Plan
			for b.Loop() {
				res, err := s.Search(b.Context(), bc.q())
				if err != nil {
					b.Fatal(err)
				}
				plan = res.Plan
			}
			b.Log(plan)
		})
	}
}

// BenchmarkSnapshot_Apply measures an incremental update of a few objects
// in a large snapshot: it must cost the changes, not the table.
func BenchmarkSnapshot_Apply(b *testing.B) {
	s := benchSnap()
	typ := s.Type()
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 100, 10_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				seen := map[uint32]bool{}
				var changes []Change
				for len(changes) < n {
					d := uint32(r.IntN(*benchRows))
					if seen[d] {
						continue
					}
					seen[d] = true
					o := &objects.Object{Values: []any{int64(d), "grace hopper", benchCity[r.IntN(8)], r.Float64() * 1e6, int64(r.IntN(100)), r.IntN(2) == 0}}
					k, _ := typ.Key(o)
					changes = append(changes, Change{Doc: d, Key: k, Object: o})
				}
				if _, err := s.Apply(changes, 2); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSnapshot_Values measures reading a page of 100 objects from the
// columns, which every search page does, with and without Prefetch.
func BenchmarkSnapshot_Values(b *testing.B) {
	s := benchSnap()
	r := rand.New(rand.NewPCG(7, 8))
	docs := make([]uint32, 100)
	for _, prefetch := range []bool{false, true} {
		b.Run(fmt.Sprintf("prefetch=%v", prefetch), func(b *testing.B) {
			var n int
			var sc objects.Scalar // reused, as the renderer does
			for b.Loop() {
				for j := range docs {
					docs[j] = uint32(r.IntN(*benchRows))
				}
				if prefetch {
					s.Prefetch(docs)
				}
				for _, d := range docs {
					for i := range s.properties {
						s.ReadScalar(d, i, &sc)
						n += len(sc.Str) // reads the header; the bytes are read below
						if sc.Str != "" {
							n += int(sc.Str[0])
						}
					}
					n += len(s.Key(d))
				}
			}
			if n == 0 {
				b.Fatal("no values read")
			}
		})
	}
}

// BenchmarkPairTable measures making the pair table of city and visits,
// which the first union or grouped count over them pays once per
// generation (pairs.go).
func BenchmarkPairTable(b *testing.B) {
	s := benchSnap()
	city, visits := s.property("city"), s.property("visits")
	for b.Loop() {
		newPairTable(city.dict, visits.dict)
	}
}
