package index

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/ontoindex/ontoindex/objects"
)

func TestLowerBoundPre(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		gen  func(n int) []uint64
	}{
		{"dense", func(n int) []uint64 {
			xs := make([]uint64, n)
			for i := range xs {
				xs[i] = 1<<63 + uint64(i)<<8 // as keyPre gives for consecutive long keys
			}
			return xs
		}},
		{"uniform", func(n int) []uint64 {
			xs := make([]uint64, n)
			for i := range xs {
				xs[i] = r.Uint64()
			}
			return xs
		}},
		{"skewed", func(n int) []uint64 {
			xs := make([]uint64, n)
			for i := range xs {
				xs[i] = uint64(r.ExpFloat64() * 1e3)
				if r.IntN(50) == 0 {
					xs[i] = ^uint64(0) - uint64(r.IntN(3))
				}
			}
			return xs
		}},
		{"duplicates", func(n int) []uint64 {
			xs := make([]uint64, n)
			for i := range xs {
				xs[i] = uint64(r.IntN(4)) * (1 << 62)
			}
			return xs
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, n := range []int{0, 1, 2, 17, 100, 1024, 5000} {
				xs := tc.gen(n)
				slices.Sort(xs)
				probes := []uint64{0, 1, ^uint64(0)}
				for range 200 {
					probes = append(probes, r.Uint64())
					if n > 0 {
						v := xs[r.IntN(n)]
						probes = append(probes, v, v-1, v+1)
					}
				}
				for _, x := range probes {
					want := sort.Search(n, func(i int) bool { return xs[i] >= x })
					if got := lowerBoundPre(xs, x); got != want {
						t.Fatalf("n=%d x=%d: got %d, want %d", n, x, got, want)
					}
				}
			}
		})
	}
}

// TestSnapshot_Lookup looks up every key, and keys that are absent, in
// snapshots of number, string and composite keys (string keys sharing
// their first eight bytes, so that their pres tie), after a build and
// after edits that delete, insert and rewrite, against a map of the keys.
func TestSnapshot_Lookup(t *testing.T) {
	long := objects.DataType{Kind: objects.KindLong}
	str := objects.DataType{Kind: objects.KindString}
	for _, tc := range []struct {
		name string
		typ  *objects.Type
		key  func(r *rand.Rand) []any // the key's values
	}{
		{"long", &objects.Type{APIName: "L", PrimaryKey: []string{"id"}, Properties: []objects.Property{
			{APIName: "id", Type: long, Search: objects.SearchNumeric}, {APIName: "x", Type: long, Search: objects.SearchNumeric}}},
			func(r *rand.Rand) []any { return []any{r.Int64N(5000) - 2500} }},
		{"string", &objects.Type{APIName: "S", PrimaryKey: []string{"id"}, Properties: []objects.Property{
			{APIName: "id", Type: str, Search: objects.SearchKeyword}, {APIName: "x", Type: long, Search: objects.SearchNumeric}}},
			func(r *rand.Rand) []any {
				prefix := []string{"", "c", "customer", "customer-", "customer-0000"}[r.IntN(5)]
				return []any{prefix + fmt.Sprint(r.IntN(3000))}
			}},
		{"composite", &objects.Type{APIName: "C", PrimaryKey: []string{"id", "n"}, Properties: []objects.Property{
			{APIName: "id", Type: str, Search: objects.SearchKeyword}, {APIName: "n", Type: long, Search: objects.SearchNumeric}}},
			func(r *rand.Rand) []any { return []any{[]string{"a", "ab", "abcdefghij"}[r.IntN(3)], r.Int64N(2000)} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(3, 4))
			obj := func(key []any) *objects.Object {
				v := make([]any, len(tc.typ.Properties))
				copy(v, key)
				if len(key) == 1 {
					v[1] = r.Int64N(10)
				}
				return &objects.Object{Values: v}
			}
			want := state{}
			docOf := map[string]uint32{}
			for d := uint32(0); len(want) < 3000; d++ {
				o := obj(tc.key(r))
				k := string(mustKey(t, tc.typ, o))
				if _, dup := docOf[k]; dup {
					continue
				}
				want[d], docOf[k] = o, d
			}
			s := mustBuild(t, tc.typ, want)
			check := func(what string) {
				t.Helper()
				for k, d := range docOf {
					if got, ok := s.Lookup([]byte(k)); !ok || got != d {
						t.Fatalf("%s: key %x: got %d, %v; want %d", what, k, got, ok, d)
					}
				}
				for range 3000 {
					k := string(mustKey(t, tc.typ, obj(tc.key(r))))
					if _, present := docOf[k]; !present {
						if got, ok := s.Lookup([]byte(k)); ok {
							t.Fatalf("%s: absent key %x found at %d", what, k, got)
						}
					}
				}
			}
			check("build")
			next := uint32(1 << 20)
			for round := range 3 {
				var changes []Change
				keys := slices.Sorted(maps.Keys(docOf)) // not the keys this round adds
				for _, k := range keys {
					d := docOf[k]
					switch r.IntN(5) {
					case 0:
						changes = append(changes, Change{Doc: d})
						delete(docOf, k)
						delete(want, d)
					case 1:
						o := obj(tc.key(r))
						nk := string(mustKey(t, tc.typ, o))
						if _, dup := docOf[nk]; dup {
							continue
						}
						changes = append(changes, Change{Doc: next, Key: []byte(nk), Object: o})
						docOf[nk], want[next] = next, o
						next++
					}
				}
				var err error
				if s, err = s.Apply(changes, uint64(round+2)); err != nil {
					t.Fatal(err)
				}
				verify(t, s, want)
				check(fmt.Sprintf("edit %d", round+1))
			}
		})
	}
}
