package index

import (
	"maps"
	"math/rand/v2"
	"testing"
)

// TestSnapshot_Apply applies random edits, deletes and inserts and checks
// after each round that every structure of the new snapshot is exactly
// what the objects say, and that the snapshot it came from did not change.
func TestSnapshot_Apply(t *testing.T) {
	for _, size := range []int{0, 1, 300, oracleCases(9000)} {
		t.Run("", func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(size), 7))
			typ := testType(t)
			want := randState(r, size)
			s := mustBuild(t, typ, want)
			verify(t, s, want)
			nextID := int64(size)
			for round := range 12 {
				before := maps.Clone(want)
				alloc := s.NewAllocator()
				var changes []Change
				docs := want.docs()
				touched := map[uint32]bool{}
				edits := r.IntN(1 + len(want)/3)
				if round == 5 {
					edits = len(want) // rewrite everything once
				}
				for range edits {
					d := docs[r.IntN(len(docs))]
					if touched[d] {
						continue
					}
					touched[d] = true
					if r.IntN(4) == 0 {
						changes = append(changes, Change{Doc: d})
						delete(want, d)
						continue
					}
					id := want[d].Values[0].(int64)
					o := randObject(r, id)
					changes = append(changes, Change{Doc: d, Key: mustKey(t, typ, o), Object: o})
					want[d] = o
				}
				for range r.IntN(1 + size/4 + 3) {
					d := alloc.Next()
					if touched[d] {
						t.Fatalf("allocator handed out document %d twice", d)
					}
					if _, ok := want[d]; ok {
						t.Fatalf("allocator handed out live document %d", d)
					}
					touched[d] = true
					o := randObject(r, nextID)
					nextID++
					changes = append(changes, Change{Doc: d, Key: mustKey(t, typ, o), Object: o})
					want[d] = o
				}
				next, err := s.Apply(changes, s.version+1)
				if err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
				verify(t, next, want)
				verify(t, s, before)
				s = next
			}
		})
	}
}
