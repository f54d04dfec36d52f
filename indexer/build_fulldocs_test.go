package indexer

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/index"
	"github.com/ontoindex/ontoindex/objects"
)

func fullDocsType() *objects.Type {
	return &objects.Type{APIName: "Customer", PrimaryKey: []string{"id"}, TitleProperty: "name", Properties: []objects.Property{
		{APIName: "id", Type: objects.DataType{Kind: objects.KindLong}, Search: objects.SearchNumeric},
		{APIName: "name", Type: objects.DataType{Kind: objects.KindString}, Search: objects.SearchText},
		{APIName: "city", Type: objects.DataType{Kind: objects.KindString}, Search: objects.SearchKeyword},
		{APIName: "balance", Type: objects.DataType{Kind: objects.KindDouble}, Search: objects.SearchNumeric},
		{APIName: "tags", Type: objects.DataType{Kind: objects.KindList, Elem: &objects.DataType{Kind: objects.KindString}}, Search: objects.SearchKeyword},
		{APIName: "active", Type: objects.DataType{Kind: objects.KindBoolean}, Search: objects.SearchBoolean},
	}}
}

// fullDocsObject is object i of the tests, nulls included, written into
// o's reused slice as the diff does.
func fullDocsObject(r *rand.Rand, i int, o *objects.Object) {
	words := []string{"ada", "grace", "alan", "edsger", "barbara", "hopper", "turing", "lovelace"}
	o.Values = append(o.Values[:0], int64(i), nil, nil, nil, nil, nil)
	if r.IntN(10) > 0 {
		o.Values[1] = words[r.IntN(len(words))] + " " + words[r.IntN(len(words))]
	}
	if r.IntN(10) > 0 {
		o.Values[2] = words[r.IntN(3)]
	}
	if r.IntN(10) > 0 {
		o.Values[3] = float64(r.IntN(1000)) / 7
	}
	if r.IntN(3) > 0 {
		o.Values[4] = []any{words[r.IntN(len(words))], words[r.IntN(len(words))]}
	}
	if r.IntN(10) > 0 {
		o.Values[5] = r.IntN(2) == 0
	}
}

// TestFullDocs_Changed checks the pipelined index of a full build against
// the index built from the same objects on the caller's goroutine: every
// structure equal, whatever the number of batches and the last batch's
// size, with the key and object buffers reused between calls as the diff
// reuses them.
func TestFullDocs_Changed(t *testing.T) {
	typ := fullDocsType()
	for _, n := range []int{0, 1, docBatchRows - 1, docBatchRows, docBatchRows*docBatches*3 + 17} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(n), 7))
			want := index.NewBuilder(typ)
			fd := newFullDocs(typ)
			fd.start()
			var o objects.Object
			var key []byte
			for i := range n {
				fullDocsObject(r, i, &o)
				k, err := typ.Key(&o)
				if err != nil {
					t.Fatal(err)
				}
				key = append(key[:0], k...)
				d := fd.New()
				if err := want.Add(d, key, &o); err != nil {
					t.Fatal(err)
				}
				if err := fd.Changed(d, key, &o); err != nil {
					t.Fatal(err)
				}
				clear(key) // the diff's buffers hold the next row after the call
				clear(o.Values)
			}
			if err := fd.wait(); err != nil {
				t.Fatal(err)
			}
			if err := index.Diff(want.Finish(1), fd.b.Finish(1)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestFullDocs_error checks that the builder's error reaches the build:
// from Changed once the goroutine has met it, and from wait.
func TestFullDocs_error(t *testing.T) {
	typ := fullDocsType()
	fd := newFullDocs(typ)
	fd.start()
	defer fd.stop()
	r := rand.New(rand.NewPCG(1, 2))
	var o objects.Object
	var err error
	// Document 0 a second time: the builder refuses it; the pipeline keeps
	// taking batches (never blocks) until the error shows.
	for i := 0; i < docBatchRows*docBatches*4 && err == nil; i++ {
		fullDocsObject(r, i, &o)
		k, _ := typ.Key(&o)
		d := uint32(i)
		if i == 1 {
			d = 0
		}
		err = fd.Changed(d, k, &o)
	}
	if err == nil {
		err = fd.wait()
	}
	if err == nil || !strings.Contains(err.Error(), "added twice") {
		t.Fatalf("error %v, want the builder's duplicate document", err)
	}
	if werr := fd.wait(); werr != nil && !strings.Contains(werr.Error(), "added twice") {
		t.Fatalf("wait: %v", werr)
	}
}
