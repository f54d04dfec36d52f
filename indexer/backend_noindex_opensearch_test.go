//go:build integration_opensearch

package indexer_test

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
	"github.com/ontoindex/ontoindex/internal/testkit/opensearchtest"
	"github.com/ontoindex/ontoindex/objects"
)

// A type whose backend keeps no embedded index (embeddedIndex: none)
// answers what the backend and the store answer as a type with the
// embedded index does (compared with an oracle that indexes the same
// table into the embedded index alone), and refuses the rest by name.
func TestIndexer_Build_openSearchNoIndex(t *testing.T) {
	c := opensearchtest.Must(t, opensearchtest.Options{})
	f := newBackendFixture(t, c.URL(), "noindex-", 11, noIndex)
	f.withOracle(t)
	if res := f.build(t, indexer.BuildOptions{}); res.Kind != indexer.KindFull {
		t.Fatalf("first build: %s", res.Kind)
	}
	f.checkNoIndex(t, "full build")
	f.checkBackend(t, "full build")
	if st, err := f.ix.Status("Item"); err != nil || st.Backend == nil || st.Backend.EmbeddedIndex != config.EmbeddedIndexNone {
		t.Fatalf("status %+v, %v: want the backend's embeddedIndex none", st.Backend, err)
	}
	for step := range 6 {
		what := f.edit(t, fmt.Sprintf("step%d", step))
		if res := f.build(t, indexer.BuildOptions{}); res.Kind != indexer.KindIncremental {
			t.Fatalf("step %d (%s): build %s, want incremental", step, what, res.Kind)
		}
		f.checkNoIndex(t, what)
		f.checkBackend(t, fmt.Sprintf("step %d (%s)", step, what))
	}

	t.Run("gets and counts from the store", func(t *testing.T) {
		v, ov := f.views(t)
		if v.Count() != ov.Count() {
			t.Fatalf("count %d, oracle's %d", v.Count(), ov.Count())
		}
		key := func(id int64) []byte {
			k, err := objects.AppendKey(nil, id)
			if err != nil {
				t.Fatal(err)
			}
			return k
		}
		keys := [][]byte{key(1 << 40)} // absent
		for _, id := range f.pick(20) {
			keys = append(keys, key(id))
		}
		got, err := v.GetMany(keys)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ov.GetMany(keys)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) || got[0] != nil {
			t.Fatalf("GetMany = %v, oracle's %v", got, want)
		}
		for _, k := range keys {
			p, err := v.Lookup(k)
			if err != nil {
				t.Fatal(err)
			}
			o, _ := ov.Get(k)
			if (p.Len() == 1) != (o != nil) || o != nil && !reflect.DeepEqual(p.Object(0), o) {
				t.Fatalf("Lookup(%x) = %d objects, oracle's %v", k, p.Len(), o)
			}
		}
	})

	t.Run("refused reads name the type, the read and the config", func(t *testing.T) {
		v, _ := f.views(t)
		tests := []struct {
			name, read string
			do         func() error
			why        string // in the backend's refusal, when it refused it
		}{
			{"relevance", "relevance order", func() error {
				_, err := v.Search(f.ctx, &query.Search{Filter: query.Text(query.OpAnyTerm, "note", "base"), Relevance: true, PageSize: 5})
				return err
			}, ""},
			{"nearest", "nearestNeighbors", func() error {
				_, err := v.Nearest(f.ctx, "note", []float32{1}, 3, nil, query.Limits{})
				return err
			}, ""},
			{"check", "checking the index", func() error { return v.CheckIndex(f.ctx) }, ""},
			{"aggregation the backend refuses", "this aggregation", func() error {
				_, err := v.Aggregate(f.ctx, &query.Aggregate{Metrics: []query.Metric{{Kind: query.Percentile, Property: "score", Percentile: 0.5}}})
				return err
			}, "property score: this metric is not supported"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				err := tt.do()
				var ne *indexer.NoIndexError
				if !errors.Is(err, indexer.ErrNoIndex) || !errors.As(err, &ne) {
					t.Fatalf("err = %v, want a NoIndexError", err)
				}
				if ne.ObjectType != "Item" || ne.Config() != "backends.cluster.embeddedIndex" || !strings.Contains(ne.Read, tt.read) ||
					(tt.why == "") != (ne.Why == "") || !strings.Contains(ne.Why, tt.why) {
					t.Fatalf("error %+v: want Item, backends.cluster.embeddedIndex and %q", ne, tt.read)
				}
				for _, s := range []string{"Item", "backends.cluster.embeddedIndex", tt.read} {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("message %q does not name %q", err, s)
					}
				}
			})
		}
		// A cursor the backend did not make is a bad page token, not a refusal.
		if _, err := v.Search(f.ctx, &query.Search{PageSize: 5, After: []byte("nonsense")}); !errors.Is(err, query.ErrBadCursor) {
			t.Errorf("a bad cursor: %v, want ErrBadCursor", err)
		}
	})

	t.Run("distinct values, which links follow, from the backend", func(t *testing.T) {
		v, ov := f.views(t)
		for i := range 30 {
			filter := randomFilter(f.rng, 2)
			if i%5 == 0 {
				filter = nil
			}
			property := []string{"id", "city", "score", "qty", "flag", "note"}[i%6]
			got, err := v.Distinct(f.ctx, filter, query.Limits{MaxGroups: 2}, property)
			if err != nil {
				t.Fatalf("distinct %s of %v: %v", property, filter, err)
			}
			want, err := ov.Distinct(f.ctx, filter, query.Limits{}, property)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Values(), want.Values()) {
				t.Fatalf("distinct %s of %v:\nbackend  %v\nembedded %v", property, filter, got.Values(), want.Values())
			}
		}
	})

	t.Run("pages larger than the backend's window", func(t *testing.T) {
		// Every page of more than 7 objects is the backend's pages of 7.
		indexer.SetBackendWindow(f.ix, 7)
		defer indexer.SetBackendWindow(f.ix, 0)
		f.checkBackend(t, "a window of 7")
	})

	t.Run("partial searches resume at any object", func(t *testing.T) {
		for _, window := range []int{0, 7} {
			indexer.SetBackendWindow(f.ix, window)
			f.checkPartial(t)
		}
		indexer.SetBackendWindow(f.ix, 0)
	})

	t.Run("held snapshot", func(t *testing.T) {
		v, _ := f.views(t)
		h := v.Hold()
		defer h.Release()
		hv, err := h.View()
		if err != nil {
			t.Fatal(err)
		}
		p, err := hv.Search(f.ctx, &query.Search{PageSize: 3})
		hv.Release()
		if err != nil || p.Total != int64(len(f.ids)) {
			t.Fatalf("held search: %v total %d, want %d", err, p.Total, len(f.ids))
		}
		f.edit(t, "held")
		f.build(t, indexer.BuildOptions{})
		if _, err := h.View(); !errors.Is(err, indexer.ErrStoreMoved) {
			t.Fatalf("held view after a build: %v, want ErrStoreMoved", err)
		}
	})

	t.Run("restart", func(t *testing.T) {
		if err := f.ix.Close(); err != nil {
			t.Fatal(err)
		}
		f.ix = indexertest.Open(t, f.cfg)
		f.checkNoIndex(t, "restart")
		// New objects take documents above the stored ones.
		if err := f.tbl.Append(f.ctx, f.rows(5, "restart")); err != nil {
			t.Fatal(err)
		}
		f.build(t, indexer.BuildOptions{})
		f.checkNoIndex(t, "append after restart")
		for step := range 3 {
			what := f.edit(t, fmt.Sprintf("restart%d", step))
			if res := f.build(t, indexer.BuildOptions{}); res.Kind != indexer.KindIncremental {
				t.Fatalf("after restart, step %d (%s): build %s, want incremental", step, what, res.Kind)
			}
			f.checkNoIndex(t, what)
		}
		f.checkBackend(t, "after restart")
		f.build(t, indexer.BuildOptions{Full: true})
		f.checkNoIndex(t, "second full build")
		f.checkBackend(t, "second full build")
	})
}

// checkPartial compares random partial searches (the pages a merge of
// several types reads) with the oracle's, and the pages that resume at a
// random object of each.
func (f *backendFixture) checkPartial(t *testing.T) {
	t.Helper()
	v, ov := f.views(t)
	for i := range 20 {
		q := &query.Search{Filter: randomFilter(f.rng, 2), Sort: randomSort(f.rng), PageSize: 1 + f.rng.IntN(30), NoTotal: i%2 == 0}
		oq := *q
		for step := range 3 {
			got, err := v.PartialSearch(f.ctx, q)
			if err != nil {
				t.Fatalf("partial search %d: %v", i, err)
			}
			want, err := ov.PartialSearch(f.ctx, &oq)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := pageKeys(got), pageKeys(want); !slices.Equal(g, w) || got.Total != want.Total {
				t.Fatalf("partial search %d (filter %v, sort %v, size %d) step %d:\nbackend  %d, %x\nembedded %d, %x", i, q.Filter, q.Sort, q.PageSize, step, got.Total, g, want.Total, w)
			}
			if got.Len() == 0 {
				break
			}
			j := f.rng.IntN(got.Len())
			if q.After, err = got.Cursor(j); err != nil {
				t.Fatalf("cursor at %d of %d: %v", j, got.Len(), err)
			}
			if oq.After, err = want.Cursor(j); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// views are the views of Item of the fixture and its oracle, released
// when the test ends.
func (f *backendFixture) views(t *testing.T) (*indexer.View, *indexer.View) {
	t.Helper()
	v, err := f.ix.View("Item")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Release)
	ov, err := f.oracle.View("Item")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ov.Release)
	return v, ov
}

// checkNoIndex checks that Item keeps no index: its generation holds no
// snapshot, the data directory no index file, and the store's documents
// are distinct (numbered without an index).
func (f *backendFixture) checkNoIndex(t *testing.T, label string) {
	t.Helper()
	if held, err := indexer.HoldsIndex(f.ix, "Item"); err != nil || held {
		t.Fatalf("%s: the generation holds an index snapshot (%v)", label, err)
	}
	err := filepath.WalkDir(f.cfg.Path(f.cfg.DataDir), func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), "index.snap") {
			return fmt.Errorf("index file %s", path)
		}
		return err
	})
	if err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	docs, err := indexer.StoredDocs(f.ctx, f.ix, "Item")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(docs)
	if n := len(slices.Compact(slices.Clone(docs))); n != len(f.ids) || len(docs) != len(f.ids) {
		t.Fatalf("%s: %d distinct documents among %d for %d objects", label, n, len(docs), len(f.ids))
	}
}
