//go:build integration_opensearch

package opensearch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/indexer/index"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/internal/testkit/opensearchtest"
	"github.com/ontoindex/ontoindex/objects"
)

// TestReader runs the reader's tests on one node: the differential tests
// of searches, aggregations and geo filters against the embedded engine,
// and a listing's point in time.
func TestReader(t *testing.T) {
	c := opensearchtest.Must(t, opensearchtest.Options{})
	t.Run("search", func(t *testing.T) { testReaderSearch(t, c) })
	t.Run("aggregate", func(t *testing.T) { testReaderAggregate(t, c) })
	t.Run("point in time", func(t *testing.T) { testReaderPointInTime(t, c) })
	t.Run("geo", func(t *testing.T) { testReaderGeo(t, c) })
	t.Run("intervals", func(t *testing.T) { testReaderIntervals(t, c) })
}

// testReaderSearch is the differential test of the reads: random
// objects written through the Writer and built into the embedded engine,
// random filters and sorts walked page by page on both, and the ordered
// keys and totals compared.
func testReaderSearch(t *testing.T, c *opensearchtest.Cluster) {
	snap, rd, items, keys := itemsOnBoth(t, c, "read-", 800)
	typ := snap.Type()
	r := rand.New(rand.NewPCG(30, 1))
	const n = 800

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

// testReaderAggregate compares random aggregations on both backends,
// over the objects of TestReader_Search.
func testReaderAggregate(t *testing.T, c *opensearchtest.Cluster) {
	snap, rd, items, keys := itemsOnBoth(t, c, "agg-", 400)
	typ := snap.Type()
	r := rand.New(rand.NewPCG(30, 2))
	cases, refused := 150, 0
	if testing.Short() {
		cases = 40
	}
	for i := range cases {
		q := randomItemAggregate(r, typ, items, keys)
		want, wantErr := snap.Aggregate(t.Context(), q, nil)
		got, gotErr := rd.Aggregate(t.Context(), q)
		if (wantErr != nil) != (gotErr != nil) {
			t.Fatalf("case %d: %s: engine error %v, OpenSearch error %v", i, describeAggregate(q), wantErr, gotErr)
		}
		if wantErr != nil {
			refused++
			continue
		}
		if diff := diffAggregates(got, want); diff != "" {
			t.Fatalf("case %d: %s: %s", i, describeAggregate(q), diff)
		}
	}
	t.Logf("%d cases, %d refused by both", cases, refused)
	if refused > cases/5 {
		t.Errorf("%d of %d cases refused", refused, cases)
	}
}

func describeAggregate(q *query.Aggregate) string {
	s := fmt.Sprintf("filter %v metrics", q.Filter)
	for _, m := range q.Metrics {
		s += fmt.Sprintf(" %d(%s, order %d)", m.Kind, m.Property, m.Order)
	}
	for _, g := range q.Groups {
		s += fmt.Sprintf(" group %d %s (max %d, nulls %v, default %v, ranges %v)", g.Kind, g.Property, g.MaxGroupCount, g.IncludeNull, g.Default != nil, g.Ranges)
	}
	return s
}

// diffAggregates says how two results differ ("" when they do not).
func diffAggregates(got, want *query.AggregateResult) string {
	if len(got.Groups) != len(want.Groups) {
		return fmt.Sprintf("%d groups, want %d:\n got %v\nwant %v", len(got.Groups), len(want.Groups), got.Groups[:min(5, len(got.Groups))], want.Groups[:min(5, len(want.Groups))])
	}
	same := func(a, b any) bool {
		if a == nil || b == nil {
			return a == nil && b == nil
		}
		return fmt.Sprintf("%T", a) == fmt.Sprintf("%T", b) && query.CompareMetricValues(a, b) == 0
	}
	for i, g := range got.Groups {
		w := want.Groups[i]
		ok := g.Count == w.Count && len(g.Keys) == len(w.Keys) && len(g.Metrics) == len(w.Metrics)
		for j := range g.Keys {
			ok = ok && g.Keys[j].IsDefault == w.Keys[j].IsDefault && g.Keys[j].Range == w.Keys[j].Range && same(g.Keys[j].Value, w.Keys[j].Value)
		}
		for j := range g.Metrics {
			// A sum of doubles rounds by the order of its additions,
			// which neither backend defines (OpenSearch adds per shard):
			// doubles agree to 1e-12 of their value.
			x, fx := g.Metrics[j].(float64)
			y, fy := w.Metrics[j].(float64)
			if fx && fy && x != y && math.Abs(x-y) <= 1e-12*math.Max(math.Abs(x), math.Abs(y)) {
				continue
			}
			ok = ok && same(g.Metrics[j], w.Metrics[j])
		}
		if !ok {
			return fmt.Sprintf("group %d:\n got %+v\nwant %+v\nfirst got %v\nfirst want %v", i, g, w, got.Groups[:min(8, len(got.Groups))], want.Groups[:min(8, len(want.Groups))])
		}
	}
	return ""
}

// testReaderPointInTime: the pages of one listing read the snapshot of
// its first page, whatever is written between them; a listing whose point
// in time is gone goes on from the alias.
func testReaderPointInTime(t *testing.T, c *opensearchtest.Cluster) {
	snap, rd, _, _ := itemsOnBoth(t, c, "pit-", 60)
	rd.KeepAlive = time.Minute
	typ := snap.Type()
	q := query.Search{Sort: []query.Sort{{Property: "code"}}, PageSize: 10}
	want, wantTotal, err := engineAll(t.Context(), snap, q)
	if err != nil {
		t.Fatal(err)
	}
	first, err := rd.Search(t.Context(), &q)
	if err != nil {
		t.Fatal(err)
	}
	// Between the pages: the last object of the listing deleted, a new
	// one that sorts first written, both made searchable.
	w := writerOf(rd)
	o := randomItem(rand.New(rand.NewPCG(1, 1)), 1_000_000)
	o.Values[3] = "a0" // before every code
	last := want[len(want)-1]
	if _, err := w.Write(t.Context(), 1, 2, []Change{{Key: key(typ, o), Object: o}, {Key: last}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Refresh(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	rest, total, err := readerAll(t.Context(), rd, query.Search{Sort: q.Sort, PageSize: q.PageSize, After: first.Next})
	if err != nil {
		t.Fatal(err)
	}
	got := append(first.Keys, rest...)
	if total != wantTotal || !slices.EqualFunc(got, want, bytes.Equal) {
		t.Fatalf("listing across a write: %d matches %s, want the first page's snapshot: %d matches %s", total, keyList(got), wantTotal, keyList(want))
	}
	// A new listing sees the write; its point in time, closed under it,
	// leaves the rest of the listing to the alias.
	page, err := rd.Search(t.Context(), &q)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(page.Keys[0], key(typ, o)) || page.Total != wantTotal {
		t.Fatalf("new listing starts with %s of %d, want the new object of %d", keyList(page.Keys[:1]), page.Total, wantTotal)
	}
	var cur cursor
	if err := json.Unmarshal(page.Next, &cur); err != nil || cur.PIT == "" {
		t.Fatalf("cursor %s holds no point in time (%v)", page.Next, err)
	}
	rd.closePIT(t.Context(), cur.PIT)
	rest, _, err = readerAll(t.Context(), rd, query.Search{Sort: q.Sort, PageSize: q.PageSize, After: page.Next})
	if err != nil {
		t.Fatalf("listing after its point in time closed: %v", err)
	}
	if len(rest) != int(wantTotal)-len(page.Keys) || slices.ContainsFunc(rest, func(k []byte) bool { return bytes.Equal(k, last) }) {
		t.Fatalf("rest of a listing from the alias: %d objects %s, want %d without the deleted one", len(rest), keyList(rest), int(wantTotal)-len(page.Keys))
	}
}

// writerOf is the writer of a reader's type on its cluster.
func writerOf(rd *Reader) *Writer { return rd.c.Writer(rd.typ) }

// itemsOnBoth writes n random items through a Writer (on two shards, so
// that results merge) and builds them into the embedded engine.
func itemsOnBoth(t testing.TB, c *opensearchtest.Cluster, prefix string, n int) (*index.Snapshot, *Reader, []*objects.Object, [][]byte) {
	t.Helper()
	typ := itemType()
	r := rand.New(rand.NewPCG(uint64(n), 30))
	items := make([]*objects.Object, n)
	keys := make([][]byte, n)
	b := index.NewBuilder(typ)
	var changes []Change
	for i := range items {
		items[i] = randomItem(r, int64(r.IntN(4*n))-int64(n)) // ids scattered, some negative
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
	w := newWriter(t, c, prefix, typ, Options{Shards: 2})
	if err := w.CreateIndex(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(t.Context(), 1, 1, changes); err != nil {
		t.Fatal(err)
	}
	if err := w.Publish(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	return b.Finish(1), w.c.Reader(typ), items, keys
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
