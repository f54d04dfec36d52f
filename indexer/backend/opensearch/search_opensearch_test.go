//go:build integration_opensearch

package opensearch

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/index"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/internal/testkit/opensearchtest"
	"github.com/ontoindex/ontoindex/objects"
)

// TestReader_Search is the differential test of the reads: random
// objects written through the Writer and built into the embedded engine,
// random filters and sorts walked page by page on both, and the ordered
// keys and totals compared.
func TestReader_Search(t *testing.T) {
	c := opensearchtest.Must(t, opensearchtest.Options{})
	typ := itemType()
	r := rand.New(rand.NewPCG(30, 1))
	const n = 800
	items := make([]*objects.Object, n)
	keys := make([][]byte, n)
	b := index.NewBuilder(typ)
	var changes []Change
	for i := range items {
		items[i] = randomItem(r, int64(r.IntN(4*n))-n) // ids scattered, some negative
		for {
			keys[i] = key(typ, items[i])
			if !slices.ContainsFunc(keys[:i], func(k []byte) bool { return bytes.Equal(k, keys[i]) }) {
				break
			}
			items[i].Values[0] = items[i].Values[0].(int64) + 7919
		}
		if err := b.Add(uint32(i), keys[i], items[i]); err != nil {
			t.Fatal(err)
		}
		changes = append(changes, Change{Key: keys[i], Object: items[i]})
	}
	snap := b.Finish(1)
	w := newWriter(t, c, "read-", typ, Options{Shards: 2})
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

	cases, refused := 300, 0
	if testing.Short() {
		cases = 60
	}
	for i := range cases {
		q := query.Search{
			Filter:   randomItemFilter(r, typ, items, keys, 3),
			Sort:     randomItemSort(r, typ),
			PageSize: []int{1, 7, 50, 1000}[r.IntN(4)],
		}
		// Small pages over many matches would cost a request per few
		// objects: they walk the listings of few matches only.
		if _, total, err := engineAll(t.Context(), snap, query.Search{Filter: q.Filter, PageSize: n}); err == nil && total > int64(20*q.PageSize) {
			q.PageSize = max(q.PageSize, int(total)/20)
		}
		want, wantTotal, wantErr := engineAll(t.Context(), snap, q)
		if wantErr != nil {
			refused++
		}
		got, gotTotal, gotErr := readerAll(t.Context(), rd, q)
		if (wantErr != nil) != (gotErr != nil) {
			t.Fatalf("case %d: filter %v sort %v: engine error %v, OpenSearch error %v", i, q.Filter, q.Sort, wantErr, gotErr)
		}
		if wantErr != nil {
			continue
		}
		if gotTotal != wantTotal || !slices.EqualFunc(got, want, bytes.Equal) {
			at := 0
			for at < min(len(got), len(want)) && bytes.Equal(got[at], want[at]) {
				at++
			}
			t.Fatalf("case %d: filter %v sort %v page %d: listings differ from position %d:\nOpenSearch %d matches, %d listed: %s\nengine     %d matches, %d listed: %s",
				i, q.Filter, q.Sort, q.PageSize, at, gotTotal, len(got), keyList(got[min(at, len(got)):]), wantTotal, len(want), keyList(want[min(at, len(want)):]))
		}
	}
	// The errors the engine gives (a value of the wrong type, a text
	// query of no terms) must be few, or the comparison compares little.
	t.Logf("%d cases, %d refused by both", cases, refused)
	if refused > cases/5 {
		t.Errorf("%d of %d cases refused", refused, cases)
	}
}

// keyList renders the first keys of a listing for a failure message.
func keyList(keys [][]byte) string {
	var out []string
	for _, k := range keys[:min(len(keys), 30)] {
		vs, err := objects.DecodeKey(k)
		if err != nil {
			out = append(out, fmt.Sprintf("%x", k))
			continue
		}
		out = append(out, fmt.Sprint(vs...))
	}
	return fmt.Sprint(out)
}

// engineAll walks a search to its end on the embedded engine.
func engineAll(ctx context.Context, s *index.Snapshot, q query.Search) ([][]byte, int64, error) {
	var all [][]byte
	var total int64
	for {
		res, err := s.Search(ctx, &q)
		if err != nil {
			return nil, 0, err
		}
		total = res.Total
		for _, d := range res.Docs {
			all = append(all, s.Key(d))
		}
		if res.Next == nil {
			return all, total, nil
		}
		q.After = res.Next
	}
}

// readerAll walks a search to its end on OpenSearch; every page must
// report the same total.
func readerAll(ctx context.Context, rd *Reader, q query.Search) ([][]byte, int64, error) {
	var all [][]byte
	total := int64(-1)
	for range 10_000 {
		res, err := rd.Search(ctx, &q)
		if err != nil {
			return nil, 0, err
		}
		if total >= 0 && res.Total != total {
			return nil, 0, fmt.Errorf("total changed between pages: %d then %d", total, res.Total)
		}
		total = res.Total
		if len(res.Keys) > q.PageSize {
			return nil, 0, fmt.Errorf("page of %d keys, page size %d", len(res.Keys), q.PageSize)
		}
		all = append(all, res.Keys...)
		if res.Next == nil {
			return all, total, nil
		}
		q.After = res.Next
	}
	return nil, 0, fmt.Errorf("more than 10000 pages")
}
