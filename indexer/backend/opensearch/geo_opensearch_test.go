//go:build integration_opensearch

package opensearch

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/index"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/internal/testkit/opensearchtest"
	"github.com/ontoindex/ontoindex/objects"
)

// testReaderGeo compares random geo filters on both backends: random
// places written through the Writer and built into the embedded engine.
func testReaderGeo(t *testing.T, c *opensearchtest.Cluster) {
	typ := placeType()
	r := rand.New(rand.NewPCG(30, 3))
	b := index.NewBuilder(typ)
	var changes []Change
	for i := range 600 {
		o := randomPlace(r, int64(i))
		k := key(typ, o)
		if err := b.Add(uint32(i), k, o); err != nil {
			t.Fatal(err)
		}
		changes = append(changes, Change{Key: k, Object: o})
	}
	snap := b.Finish(1)
	w := newWriter(t, c, "geo-", typ, Options{})
	if err := w.CreateIndex(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(t.Context(), 1, 1, changes); err != nil {
		t.Fatal(err)
	}
	if err := w.Publish(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	rd := w.c.Reader(typ)
	matched, shapes, refused := 0, 0, 0
	for i := range 200 {
		q := query.Search{Filter: randomGeoQuery(r), PageSize: 1000}
		want, wantTotal, wantErr := engineAll(t.Context(), snap, q)
		got, gotTotal, gotErr := readerAll(t.Context(), rd, q)
		if (wantErr != nil) != (gotErr != nil) {
			t.Fatalf("case %d: filter %v: engine error %v, OpenSearch error %v", i, q.Filter, wantErr, gotErr)
		}
		if gotTotal != wantTotal || !slices.EqualFunc(got, want, bytes.Equal) {
			t.Fatalf("case %d: filter %v:\nOpenSearch %d matches %s\nengine     %d matches %s", i, q.Filter, gotTotal, placeIDs(got, want), wantTotal, placeIDs(want, got))
		}
		if wantTotal > 0 && wantTotal < int64(len(changes)) {
			matched++
			if usesShapes(q.Filter) {
				shapes++
			}
		}
		if wantErr != nil {
			refused++
		}
	}
	// Filters that match everything or nothing tell the backends apart
	// little: most must match some, geoshape filters among them.
	if matched < 100 || shapes < 40 {
		t.Errorf("%d of 200 filters match some places but not all, %d of them on geoshapes", matched, shapes)
	}
	if refused == 0 {
		t.Error("no filter was refused: within and distance on geoshapes went untested")
	}
}

// placeIDs are the ids of keys not in other.
func placeIDs(keys, other [][]byte) []any {
	var out []any
	for _, k := range keys {
		if slices.ContainsFunc(other, func(o []byte) bool { return bytes.Equal(o, k) }) {
			continue
		}
		vs, err := objects.DecodeKey(k)
		if err == nil {
			out = append(out, vs...)
		}
	}
	return out
}

// usesShapes reports whether a filter has a geo filter on the geoshapes.
func usesShapes(f *query.Filter) bool {
	if f.Op == query.OpGeo && f.Property == "area" {
		return true
	}
	return slices.ContainsFunc(f.Kids, usesShapes)
}
