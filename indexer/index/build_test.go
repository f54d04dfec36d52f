package index

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ontoindex/ontoindex/objects"
)

// TestBuilder_Finish builds the same objects in the order a full build
// adds them (documents ascending, each chunk packed as it fills) and in
// other orders, and checks every structure against the objects (verify)
// and against the snapshot the update path makes from the same objects
// (Apply on an empty snapshot: its orders come from sorting entries by
// value and key, not from ranks).
func TestBuilder_Finish(t *testing.T) {
	stringKey := func(tb testing.TB) *objects.Type {
		typ := testType(tb)
		typ.Properties[0].Type = objects.DataType{Kind: objects.KindString}
		typ.Properties[0].Search = objects.SearchKeyword
		return typ
	}
	cases := []struct {
		name    string
		typ     func(testing.TB) *objects.Type
		n       int
		every   int  // document numbers step: gaps when above 1
		shuffle bool // add the documents in a random order
	}{
		{"ascending, full chunks and a partial one", testType, 5*chunkDocs + 77, 1, false},
		{"ascending with gaps", testType, 3000, 3, false},
		{"random order", testType, 3*chunkDocs + 5, 1, true},
		{"random order with gaps", testType, 2000, 2, true},
		{"string keys sharing their first bytes", stringKey, 2*chunkDocs + 9, 1, false},
		{"string keys, random order", stringKey, 2*chunkDocs + 9, 1, true},
		{"one document", testType, 1, 1, false},
		{"none", testType, 0, 1, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(c.n), 11))
			typ := c.typ(t)
			want := state{}
			docs := make([]uint32, 0, c.n)
			ids := r.Perm(c.n) // string keys out of document order
			for i := range c.n {
				o := randObject(r, int64(i))
				if typ.Properties[0].Type.Kind == objects.KindString {
					// Keys longer than the 8 bytes of a pre, equal there.
					o.Values[0] = fmt.Sprintf("customer-%07d", ids[i])
				}
				d := uint32(i * c.every)
				want[d] = o
				docs = append(docs, d)
			}
			if c.shuffle {
				r.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
			}
			b := NewBuilder(typ)
			var changes []Change
			for _, d := range docs {
				key := mustKey(t, typ, want[d])
				if err := b.Add(d, key, want[d]); err != nil {
					t.Fatal(err)
				}
				changes = append(changes, Change{Doc: d, Key: key, Object: want[d]})
			}
			got := b.Finish(1)
			verify(t, got, want)
			applied, err := NewBuilder(typ).Finish(1).Apply(changes, 2)
			if err != nil {
				t.Fatal(err)
			}
			if err := Diff(applied, got); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestTermsBuilder_finish checks the postings of documents added in order
// (placed by counting) and out of order (then sorted per term), with
// blocks of pairs filled and started, against a map of the same pairs.
func TestTermsBuilder_finish(t *testing.T) {
	for _, c := range []struct {
		name     string
		docs     int
		shuffled bool
	}{
		{"ascending over several pair blocks", termPairBlock/2 + 100, false},
		{"shuffled", 5000, true},
		{"empty", 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(c.docs), 3))
			order := make([]uint32, c.docs)
			for i := range order {
				order[i] = uint32(i)
			}
			if c.shuffled {
				r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			}
			tb := newTermsBuilder()
			want := map[string][]uint32{}
			for _, d := range order {
				text := fmt.Sprintf("%s %s w%d", testWords[r.IntN(len(testWords))], testWords[r.IntN(len(testWords))], r.IntN(40000))
				tb.add(d, text)
				for _, term := range termSet([]string{text}) {
					want[term] = append(want[term], d)
				}
			}
			got := tb.finish()
			if got.len() != len(want) {
				t.Fatalf("%d terms, want %d", got.len(), len(want))
			}
			for term, ds := range want {
				slices.Sort(ds)
				p, ok := got.get(term)
				if !ok || !slices.Equal(p.appendTo(nil), ds) {
					t.Fatalf("term %q: %d documents, want %d", term, p.card(), len(ds))
				}
			}
		})
	}
}
