//go:build integration_opensearch

package indexer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/internal/testkit/opensearchtest"
)

// itemColumns are the columns of itemSchema, each an Item property of
// the same name.
var itemColumns = []string{"id", "city", "score", "qty", "flag", "note"}

// checkExact reads every document of the fixture's alias from c, once
// from the shards' primaries and once from their replicas, and compares
// them with the rows of the table's current snapshot: the same keys (so
// no object lost, no delete undone) and the same values.
func (f *backendFixture) checkExact(t *testing.T, c *opensearchtest.Cluster, label string) {
	t.Helper()
	rows, err := f.tbl.ReadRows(f.ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]string{}
	for _, r := range rows {
		want[valueText(r["id"])] = rowTexts(r)
	}
	if len(want) != len(f.ids) || len(rows) != len(f.ids) {
		t.Fatalf("%s: the table holds %d rows (%d ids), the fixture %d ids", label, len(rows), len(want), len(f.ids))
	}
	alias := f.cfg.Backends["cluster"].IndexPrefix + "item"
	c.MustDoNode(t, 0, http.MethodPost, "/"+alias+"/_refresh", nil, http.StatusOK, nil)
	for _, copies := range []string{"_primary", "_replica"} {
		docs := clusterDocs(t, c, alias, copies)
		got := map[string]map[string]string{}
		for _, d := range docs {
			got[valueText(d["id"])] = rowTexts(d)
		}
		if len(got) != len(docs) {
			t.Fatalf("%s: %s of %s: %d documents for %d ids", label, copies, alias, len(docs), len(got))
		}
		for id, w := range want {
			if g, ok := got[id]; !ok {
				t.Errorf("%s: %s of %s: object %s missing", label, copies, alias, id)
			} else if !reflect.DeepEqual(g, w) {
				t.Errorf("%s: %s of %s: object %s is %v, the table's %v", label, copies, alias, id, g, w)
			}
		}
		for id := range got {
			if _, ok := want[id]; !ok {
				t.Errorf("%s: %s of %s: object %s, which the table does not hold", label, copies, alias, id)
			}
		}
	}
}

// clusterDocs are the _source of every document of alias, read from the
// copies preference names (_primary or _replica).
func clusterDocs(t *testing.T, c *opensearchtest.Cluster, alias, copies string) []map[string]any {
	t.Helper()
	code, body, err := c.Do(t.Context(), http.MethodPost, "/"+alias+"/_search?allow_partial_search_results=false&preference="+copies,
		map[string]any{"size": 10000, "sort": []any{map[string]any{"__key": "asc"}}, "track_total_hits": true})
	if err != nil || code != http.StatusOK {
		t.Fatalf("search %s (%s): %d %s %v", alias, copies, code, body, err)
	}
	var answer struct {
		Hits struct {
			Total struct {
				Value int `json:"value"`
			} `json:"total"`
			Hits []struct {
				Source map[string]any `json:"_source"`
			} `json:"hits"`
		} `json:"hits"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&answer); err != nil {
		t.Fatal(err)
	}
	if answer.Hits.Total.Value != len(answer.Hits.Hits) {
		t.Fatalf("search %s (%s): %d hits of %d", alias, copies, len(answer.Hits.Hits), answer.Hits.Total.Value)
	}
	docs := make([]map[string]any, len(answer.Hits.Hits))
	for i, h := range answer.Hits.Hits {
		docs[i] = h.Source
	}
	return docs
}

// rowTexts are the values of a row or a document by column, as text.
func rowTexts(r map[string]any) map[string]string {
	out := make(map[string]string, len(itemColumns))
	for _, col := range itemColumns {
		out[col] = valueText(r[col])
	}
	return out
}

// valueText is a value as text that is the same for a table's row and
// a document: numbers by their value (2 and 2.0 alike), null for none.
func valueText(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return "number " + string(x)
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	case string:
		return strconv.Quote(x)
	default:
		return fmt.Sprint(x)
	}
}

// namesCluster reports whether an error of a build or a read names the
// backend "cluster" of the fixture.
func namesCluster(err error) bool {
	s := err.Error()
	return strings.Contains(s, `opensearch cluster "cluster"`) || strings.Contains(s, "backend cluster:")
}

// queryLoop runs random searches and aggregations of the fixture's type
// until ctx is done, each compared with the embedded index's answer on
// the same view, and counts them in the phase's tally: a read that fails
// must name the cluster, and one answered must be the embedded answer.
func queryLoop(ctx context.Context, t *testing.T, f *backendFixture, phase *atomic.Pointer[queryTally]) {
	rng := rand.New(rand.NewPCG(7, 30))
	for ctx.Err() == nil {
		tally := phase.Load()
		v, err := f.ix.View("Item")
		if err != nil {
			t.Error(err)
			return
		}
		wrong, err := oneQuery(ctx, v, rng)
		v.Release()
		switch {
		case ctx.Err() != nil:
			return
		case wrong != "":
			t.Errorf("%s: %s", tally.name, wrong)
			return
		case err == nil:
			tally.ok.Add(1)
		case namesCluster(err):
			tally.fail(err)
		default:
			t.Errorf("%s: a read failed with an error that does not name the cluster: %v", tally.name, err)
			return
		}
		// Room for the nodes on a shared machine.
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// oneQuery is a random search (its first two pages) or aggregation of
// v, through the view (its backend) and its embedded index: wrong says
// how they differ, err is the view's error.
func oneQuery(ctx context.Context, v *indexer.View, rng *rand.Rand) (wrong string, err error) {
	if rng.IntN(3) == 0 {
		q := randomAggregate(rng)
		got, err := v.Aggregate(ctx, q)
		if err != nil {
			return "", err
		}
		want, err := indexer.EmbeddedAggregate(ctx, v, q)
		if err != nil {
			return "", err
		}
		if !reflect.DeepEqual(got, want) {
			return fmt.Sprintf("aggregate (filter %v, metrics %+v, groups %+v):\nbackend  %+v\nembedded %+v", q.Filter, q.Metrics, q.Groups, got, want), nil
		}
		return "", nil
	}
	q := &query.Search{Filter: randomFilter(rng, 2), Sort: randomSort(rng), PageSize: 1 + rng.IntN(60)}
	eq := *q
	for page := range 2 {
		got, err := v.Search(ctx, q)
		if err != nil {
			return "", err
		}
		want, err := indexer.EmbeddedSearch(ctx, v, &eq)
		if err != nil {
			return "", err
		}
		if g, w := pageKeys(got), pageKeys(want); !slices.Equal(g, w) || got.Total != want.Total || (got.Next == nil) != (want.Next == nil) {
			return fmt.Sprintf("search (filter %v, sort %v, size %d) page %d:\nbackend  %d total, keys %x\nembedded %d total, keys %x",
				q.Filter, q.Sort, q.PageSize, page, got.Total, g, want.Total, w), nil
		}
		if got.Next == nil {
			break
		}
		q.After, eq.After = got.Next, want.Next
	}
	return "", nil
}
