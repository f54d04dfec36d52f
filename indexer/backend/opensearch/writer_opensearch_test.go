//go:build integration_opensearch

package opensearch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/internal/testkit/opensearchtest"
	"github.com/ontoindex/ontoindex/objects"
)

// TestWriter drives the writer against a real one-node cluster: bulk
// upserts and deletes compared with a brute-force expectation, replays,
// the alias swap, refused documents and a cluster gone.
func TestWriter(t *testing.T) {
	start := time.Now()
	c := opensearchtest.Must(t, opensearchtest.Options{})
	t.Logf("one node green in %s", time.Since(start).Round(100*time.Millisecond))
	typ := flightType()

	t.Run("bulk against brute force", func(t *testing.T) {
		// Small requests, so that a batch takes several.
		w := newWriter(t, c, "bulk-", typ, Options{BulkBytes: 16 << 10})
		testBulk(t, c, w, typ)
	})
	t.Run("write needs its index", func(t *testing.T) {
		w := newWriter(t, c, "missing-", typ, Options{})
		r := rand.New(rand.NewPCG(3, 4))
		o := randomFlight(r, 1)
		_, err := w.Write(t.Context(), 1, 1, []Change{{Key: key(typ, o), Object: o}})
		if err == nil || !strings.Contains(err.Error(), "does not exist") {
			t.Fatalf("write to a generation never created: %v, want an error", err)
		}
		c.MustDoNode(t, 0, http.MethodHead, "/"+w.Index(1), nil, http.StatusNotFound, nil)
	})
	t.Run("alias swap", func(t *testing.T) {
		testAliasSwap(t, c, newWriter(t, c, "swap-", typ, Options{}), typ)
	})
	t.Run("rejected document", func(t *testing.T) {
		w := newWriter(t, c, "rejected-", typ, Options{})
		if err := w.CreateIndex(t.Context(), 1); err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(5, 6))
		var changes []Change
		for n := range 20 {
			o := randomFlight(r, n)
			if n == 7 || n == 12 {
				o.Values[pDelay] = math.NaN() // a double field takes finite values only
			}
			changes = append(changes, Change{Key: key(typ, o), Object: o})
		}
		_, err := w.Write(t.Context(), 1, 1, changes)
		var rejected *RejectedError
		if !errors.As(err, &rejected) {
			t.Fatalf("write of a NaN delay: %v, want a *RejectedError", err)
		}
		if rejected.Key != "F00007" || rejected.Property != "delay" || rejected.Type != "Flight" || rejected.More != 1 {
			t.Errorf("rejected %+v, want object F00007, property delay, one more", rejected)
		}
		for _, s := range []string{`object Flight "F00007"`, `property "delay"`, "test-cluster", "and 1 more"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("error %q does not say %s", err, s)
			}
		}
		// A keyword longer than Lucene takes (32766 bytes).
		o := randomFlight(r, 99)
		o.Values[pTags] = []any{"short", strings.Repeat("long ", 8000)}
		_, err = w.Write(t.Context(), 1, 2, []Change{{Key: key(typ, o), Object: o}})
		if !errors.As(err, &rejected) || rejected.Key != "F00099" || rejected.Property != "tags" || rejected.More != 0 {
			t.Errorf("write of an immense keyword: %v, want a *RejectedError of F00099 at tags", err)
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		w := newWriter(t, c, "gone-", typ, Options{})
		if err := w.CreateIndex(t.Context(), 1); err != nil {
			t.Fatal(err)
		}
		if err := c.Stop(); err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(7, 8))
		o := randomFlight(r, 1)
		_, err := w.Write(t.Context(), 1, 1, []Change{{Key: key(typ, o), Object: o}})
		var gone *UnreachableError
		if !errors.As(err, &gone) || gone.Cluster != "test-cluster" || !strings.Contains(err.Error(), `opensearch cluster "test-cluster"`) || !strings.Contains(err.Error(), c.URL()) {
			t.Fatalf("write to a stopped cluster: %v, want an *UnreachableError naming test-cluster and %s", err, c.URL())
		}
		if err := w.Publish(t.Context(), 1); !errors.As(err, &gone) {
			t.Fatalf("publish on a stopped cluster: %v, want an *UnreachableError", err)
		}
	})
}

// testBulk writes batches of random upserts and deletes at growing
// versions, then replays them, and compares the index with the
// expectation after each step.
func testBulk(t *testing.T, c *opensearchtest.Cluster, w *Writer, typ *objects.Type) {
	ctx := t.Context()
	const gen = 3
	if err := w.CreateIndex(ctx, gen); err != nil {
		t.Fatal(err)
	}
	if err := w.CreateIndex(ctx, gen); err != nil {
		t.Fatalf("create an index that exists (a resumed build): %v", err)
	}
	index := w.Index(gen)
	r := rand.New(rand.NewPCG(11, 12))
	exp := newExpected()
	var batches [][]Change
	for v := range 4 {
		var changes []Change
		// 150 draws of 300 flights: a batch changes some flights twice,
		// and the last change must win.
		for range 150 {
			n := r.IntN(300)
			o := randomFlight(r, n)
			if r.IntN(4) == 0 { // a delete, of a present object or of one never written
				changes = append(changes, Change{Key: key(typ, o)})
			} else {
				changes = append(changes, Change{Key: key(typ, o), Object: o})
			}
		}
		version := int64(10 + v)
		st, err := w.Write(ctx, gen, version, changes)
		if err != nil {
			t.Fatalf("batch %d: %v", v, err)
		}
		if st.Stale != 0 {
			t.Errorf("batch %d: %d stale writes, want none: %+v", v, st.Stale, st)
		}
		exp.apply(changes, version)
		batches = append(batches, changes)
	}
	if err := w.Refresh(ctx, gen); err != nil {
		t.Fatal(err)
	}
	exp.check(t, c, typ, index)
	checkQueries(t, c, index, exp)

	// A replay of the last batch (a crash before the checkpoint) and the
	// older batches, in any order, change nothing.
	for _, v := range []int{3, 1, 0, 2} {
		st, err := w.Write(ctx, gen, int64(10+v), batches[v])
		if err != nil {
			t.Fatalf("replay of batch %d: %v", v, err)
		}
		if st.Indexed != 0 {
			t.Errorf("replay of batch %d indexed %d documents, want none: %+v", v, st.Indexed, st)
		}
	}
	// An upsert of every deleted object, at the version just before its
	// delete's: the tombstones refuse them all, also those of deletes
	// of objects that were never written.
	deletedAt := map[string]int64{}
	for v, batch := range batches {
		for _, ch := range batch {
			if _, ok := exp.objects[objects.DocID(ch.Key)]; !ok && ch.Object == nil {
				deletedAt[string(ch.Key)] = int64(10 + v)
			}
		}
	}
	if len(deletedAt) == 0 {
		t.Fatal("no deleted object to resurrect")
	}
	for k, version := range deletedAt {
		o := randomFlight(r, 0)
		o.Values[pID] = keyID(t, []byte(k))
		st, err := w.Write(ctx, gen, version-1, []Change{{Key: []byte(k), Object: o}})
		if err != nil || st.Indexed != 0 || st.Stale != 1 {
			t.Fatalf("an upsert of %s older than its delete: %+v, %v; want it refused", o.Values[pID], st, err)
		}
	}
	if err := w.Refresh(ctx, gen); err != nil {
		t.Fatal(err)
	}
	exp.check(t, c, typ, index)
	checkQueries(t, c, index, exp)
}

// keyID is the id property of an encoded key.
func keyID(t *testing.T, key []byte) string {
	values, err := objects.DecodeKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return values[0].(string)
}

// checkQueries counts documents by queries over every kind of field and
// compares each count with the brute-force count of the expectation.
func checkQueries(t *testing.T, c *opensearchtest.Cluster, index string, exp *expected) {
	t.Helper()
	has := func(i int) func(o *objects.Object) bool {
		return func(o *objects.Object) bool { return o.Values[i] != nil }
	}
	dateOf := func(s string) objects.Date {
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			t.Fatal(err)
		}
		return objects.Date(d.Unix() / 86400)
	}
	instant := time.Date(2021, 6, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		query map[string]any
		pred  func(o *objects.Object) bool
	}{
		{"all", map[string]any{"match_all": map[string]any{}}, func(*objects.Object) bool { return true }},
		{"long range", map[string]any{"range": map[string]any{"seats": map[string]any{"gte": 200}}},
			func(o *objects.Object) bool { return has(pSeats)(o) && o.Values[pSeats].(int64) >= 200 }},
		{"integer below zero", map[string]any{"range": map[string]any{"gate": map[string]any{"lt": 0}}},
			func(o *objects.Object) bool { return has(pGate)(o) && o.Values[pGate].(int64) < 0 }},
		{"decimal range", map[string]any{"range": map[string]any{"fare": map[string]any{"gte": 500.25}}},
			func(o *objects.Object) bool {
				return has(pFare)(o) && o.Values[pFare].(objects.Decimal).Float64() >= 500.25
			}},
		{"double missing", map[string]any{"bool": map[string]any{"must_not": map[string]any{"exists": map[string]any{"field": "delay"}}}},
			func(o *objects.Object) bool { return !has(pDelay)(o) }},
		{"boolean", map[string]any{"term": map[string]any{"onTime": true}},
			func(o *objects.Object) bool { return o.Values[pOnTime] == true }},
		{"date", map[string]any{"range": map[string]any{"day": map[string]any{"lt": "2020-01-01"}}},
			func(o *objects.Object) bool {
				return has(pDay)(o) && o.Values[pDay].(objects.Date) < dateOf("2020-01-01")
			}},
		{"timestamp", map[string]any{"range": map[string]any{"departs": map[string]any{"gte": instant.Format(time.RFC3339)}}},
			func(o *objects.Object) bool {
				return has(pDeparts)(o) && !o.Values[pDeparts].(time.Time).Before(instant)
			}},
		{"text", map[string]any{"match": map[string]any{"name": "night"}},
			func(o *objects.Object) bool {
				return has(pName)(o) && slices.Contains(strings.Fields(o.Values[pName].(string)), "night")
			}},
		{"text exact", map[string]any{"term": map[string]any{"name.keyword": "red eye"}},
			func(o *objects.Object) bool { return o.Values[pName] == "red eye" }},
		{"list", map[string]any{"term": map[string]any{"tags": "cargo"}},
			func(o *objects.Object) bool {
				return has(pTags)(o) && slices.Contains(o.Values[pTags].([]any), any("cargo"))
			}},
		{"struct present", map[string]any{"term": map[string]any{"crew.$present": true}}, has(pCrew)},
		{"struct field", map[string]any{"range": map[string]any{"crew.size": map[string]any{"lt": 5}}},
			func(o *objects.Object) bool { return has(pCrewSize)(o) && o.Values[pCrewSize].(int64) < 5 }},
		{"uuid", map[string]any{"prefix": map[string]any{"ref": "07"}},
			func(o *objects.Object) bool {
				return has(pRef)(o) && strings.HasPrefix(o.Values[pRef].(objects.UUID).String(), "07")
			}},
	}
	for _, tt := range tests {
		want := exp.matching(tt.pred)
		if got := count(t, c, index, tt.query); got != want {
			t.Errorf("query %s: %d documents, want %d", tt.name, got, want)
		}
	}
}

// testAliasSwap publishes a first generation, then a second while readers
// search the alias: each answer holds one generation whole.
func testAliasSwap(t *testing.T, c *opensearchtest.Cluster, w *Writer, typ *objects.Type) {
	ctx := t.Context()
	if _, ok, err := w.Published(ctx); err != nil || ok {
		t.Fatalf("published before any publish: %v, %v", ok, err)
	}
	sizes := map[uint64]int{1: 120, 2: 80}
	r := rand.New(rand.NewPCG(9, 10))
	for gen, size := range sizes {
		if err := w.CreateIndex(ctx, gen); err != nil {
			t.Fatal(err)
		}
		var changes []Change
		for n := range size {
			o := randomFlight(r, n+int(gen)*1000)
			o.Values[pNote] = fmt.Sprintf("g%d", gen)
			changes = append(changes, Change{Key: key(typ, o), Object: o})
		}
		// No refresh: Publish makes the generation searchable whole.
		if _, err := w.Write(ctx, gen, 5, changes); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Publish(ctx, 1); err != nil {
		t.Fatal(err)
	}

	// Readers search the alias until told to stop; each answer must be
	// one generation whole.
	var (
		mu      sync.Mutex
		seen    = map[string]int{} // "g1", "g2", "failed"
		stop    = make(chan struct{})
		wg      sync.WaitGroup
		answers = make(chan struct{}, 1000)
	)
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				got := readAlias(c, w.Alias())
				mu.Lock()
				seen[got]++
				mu.Unlock()
				select {
				case answers <- struct{}{}:
				default:
				}
			}
		})
	}
	waitAnswers := func(n int) {
		for range n {
			select {
			case <-answers:
			case <-time.After(time.Minute):
				t.Fatal("the readers answer nothing")
			}
		}
	}
	waitAnswers(5)
	if err := w.Publish(ctx, 2); err != nil {
		t.Fatal(err)
	}
	waitAnswers(5)
	close(stop)
	wg.Wait()
	t.Logf("answers during the swap: %v", seen)
	for got, n := range seen {
		if got != "g1" && got != "g2" && got != "failed" {
			t.Errorf("%d answers of the alias were %s, want one generation whole", n, got)
		}
	}
	if seen["g1"] == 0 || seen["g2"] == 0 {
		t.Errorf("answers %v, want some of each generation", seen)
	}
	if gen, ok, err := w.Published(ctx); err != nil || !ok || gen != 2 {
		t.Errorf("published generation %d (%v, %v), want 2", gen, ok, err)
	}
	c.MustDoNode(t, 0, http.MethodHead, "/"+w.Index(1), nil, http.StatusNotFound, nil)
	// The published generation refreshes at the cluster's default
	// interval again, so that incremental writes become searchable.
	var settings map[string]struct {
		Settings struct {
			Index map[string]any `json:"index"`
		} `json:"settings"`
	}
	c.MustDoNode(t, 0, http.MethodGet, "/"+w.Index(2)+"/_settings", nil, http.StatusOK, &settings)
	if ri, ok := settings[w.Index(2)].Settings.Index["refresh_interval"]; ok {
		t.Errorf("published generation's refresh_interval %v, want the default", ri)
	}
	if n := count(t, c, w.Alias(), map[string]any{"match_all": map[string]any{}}); n != sizes[2] {
		t.Errorf("the alias holds %d documents, want generation 2's %d", n, sizes[2])
	}

	// An index that is no generation of the type, put behind the alias by
	// hand: publishing takes the alias from it and keeps its documents.
	c.MustDoNode(t, 0, http.MethodPut, "/swap-foreign", nil, http.StatusOK, nil)
	c.MustDoNode(t, 0, http.MethodPost, "/_aliases", map[string]any{"actions": []any{
		map[string]any{"add": map[string]any{"index": "swap-foreign", "alias": w.Alias()}},
	}}, http.StatusOK, nil)
	if _, _, err := w.Published(ctx); err == nil || !strings.Contains(err.Error(), "points at 2 indexes") {
		t.Errorf("published with two indexes behind the alias: %v, want an error", err)
	}
	if err := w.Publish(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if gen, ok, err := w.Published(ctx); err != nil || !ok || gen != 2 {
		t.Errorf("published generation %d (%v, %v) after publishing it again, want 2", gen, ok, err)
	}
	c.MustDoNode(t, 0, http.MethodHead, "/swap-foreign", nil, http.StatusOK, nil)
}

// readAlias searches the alias and says what the answer held: "g1" or
// "g2" when it is every document of one generation, "failed" when the
// search failed, else what it saw.
func readAlias(c *opensearchtest.Cluster, alias string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code, body, err := c.Do(ctx, http.MethodPost, "/"+alias+"/_search", map[string]any{
		"size": 0, "track_total_hits": true,
		"aggs":  map[string]any{"gens": map[string]any{"terms": map[string]any{"field": "_index"}}},
		"query": map[string]any{"match_all": map[string]any{}},
	})
	if err != nil || code != http.StatusOK {
		return "failed"
	}
	var answer struct {
		Shards struct {
			Failed int `json:"failed"`
		} `json:"_shards"`
		Hits struct {
			Total struct {
				Value int `json:"value"`
			} `json:"total"`
		} `json:"hits"`
		Aggs struct {
			Gens struct {
				Buckets []struct {
					Key   string `json:"key"`
					Count int    `json:"doc_count"`
				} `json:"buckets"`
			} `json:"gens"`
		} `json:"aggregations"`
	}
	if json.Unmarshal(body, &answer) != nil || answer.Shards.Failed > 0 {
		return "failed"
	}
	b := answer.Aggs.Gens.Buckets
	switch {
	case len(b) == 1 && strings.HasSuffix(b[0].Key, "-g1") && b[0].Count == 120 && answer.Hits.Total.Value == 120:
		return "g1"
	case len(b) == 1 && strings.HasSuffix(b[0].Key, "-g2") && b[0].Count == 80 && answer.Hits.Total.Value == 80:
		return "g2"
	}
	return fmt.Sprintf("%d documents in %v", answer.Hits.Total.Value, b)
}
