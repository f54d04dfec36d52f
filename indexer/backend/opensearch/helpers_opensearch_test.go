//go:build integration_opensearch

package opensearch

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"reflect"
	"slices"
	"testing"

	"github.com/ontoindex/ontoindex/internal/testkit/opensearchtest"
	"github.com/ontoindex/ontoindex/objects"
)

// newWriter is a writer of typ into the test cluster, under its own index
// prefix so that the tests of one cluster do not meet.
func newWriter(t testing.TB, c *opensearchtest.Cluster, prefix string, typ *objects.Type, o Options) *Writer {
	t.Helper()
	o.Name, o.URLs, o.IndexPrefix = "test-cluster", c.URLs(), prefix
	cl, err := New(o, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Close() })
	return cl.Writer(typ)
}

// count is the number of documents of index that match query.
func count(t *testing.T, c *opensearchtest.Cluster, index string, query any) int {
	t.Helper()
	var answer struct {
		Count int `json:"count"`
	}
	c.MustDoNode(t, 0, http.MethodPost, "/"+index+"/_count", map[string]any{"query": query}, http.StatusOK, &answer)
	return answer.Count
}

// hit is one document as _search returns it.
type hit struct {
	ID      string          `json:"_id"`
	Index   string          `json:"_index"`
	Version int64           `json:"_version"`
	Source  json.RawMessage `json:"_source"`
}

// allHits are every document of index (at most 10,000), by key.
func allHits(t *testing.T, c *opensearchtest.Cluster, index string) []hit {
	t.Helper()
	var answer struct {
		Hits struct {
			Hits []hit `json:"hits"`
		} `json:"hits"`
	}
	c.MustDoNode(t, 0, http.MethodPost, "/"+index+"/_search", map[string]any{
		"size": 10000, "version": true, "sort": []any{map[string]any{keyField: "asc"}},
	}, http.StatusOK, &answer)
	return answer.Hits.Hits
}

// expected is what the tests know an index holds: the objects by
// document id, and the version each was last written at.
type expected struct {
	objects  map[string]*objects.Object
	versions map[string]int64
}

func newExpected() *expected {
	return &expected{objects: map[string]*objects.Object{}, versions: map[string]int64{}}
}

// apply records changes written at version, the last of a key winning.
func (e *expected) apply(changes []Change, version int64) {
	for _, ch := range changes {
		id := objects.DocID(ch.Key)
		if ch.Object == nil {
			delete(e.objects, id)
		} else {
			e.objects[id] = ch.Object
			e.versions[id] = version
		}
	}
}

// matching counts the objects for which pred holds.
func (e *expected) matching(pred func(o *objects.Object) bool) int {
	n := 0
	for _, o := range e.objects {
		if pred(o) {
			n++
		}
	}
	return n
}

// check compares every document of index with the expectation: ids,
// versions and sources.
func (e *expected) check(t *testing.T, c *opensearchtest.Cluster, typ *objects.Type, index string) {
	t.Helper()
	hits := allHits(t, c, index)
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.ID)
	}
	want := slices.Sorted(func(yield func(string) bool) {
		for id := range e.objects {
			if !yield(id) {
				return
			}
		}
	})
	if !slices.Equal(ids, want) {
		t.Fatalf("index %s holds %d documents, want %d (first ids %v, want %v)", index, len(ids), len(want), ids[:min(5, len(ids))], want[:min(5, len(want))])
	}
	for _, h := range hits {
		raw, err := Document(typ, h.ID, e.objects[h.ID])
		if err != nil {
			t.Fatal(err)
		}
		var got, wantDoc map[string]any
		if err := json.Unmarshal(h.Source, &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &wantDoc); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, wantDoc) {
			t.Fatalf("document %s:\n got %s\nwant %s", h.ID, h.Source, raw)
		}
		if h.Version != e.versions[h.ID] {
			t.Fatalf("document %s at version %d, want %d", h.ID, h.Version, e.versions[h.ID])
		}
	}
}
