//go:build integration_opensearch

package opensearch

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/internal/testkit/opensearchtest"
)

// testReaderIntervals compares random interval rules (randomRule) on the
// text and the list of text of the items on both backends.
func testReaderIntervals(t *testing.T, c *opensearchtest.Cluster) {
	const n = 400
	snap, rd, _, _ := itemsOnBoth(t, c, "interval-", n)
	typ := snap.Type()
	r := rand.New(rand.NewPCG(30, 4))
	matched := 0
	for i := range 200 {
		p, _ := typ.Property([]string{"name", "notes"}[r.IntN(2)])
		q := query.Search{Filter: query.Interval(p.APIName, randomRule(r, p, 2)), PageSize: n}
		want, wantTotal, wantErr := engineAll(t.Context(), snap, q)
		got, gotTotal, gotErr := readerAll(t.Context(), rd, q)
		if wantErr != nil || gotErr != nil {
			t.Fatalf("case %d: filter %v: engine error %v, OpenSearch error %v", i, q.Filter, wantErr, gotErr)
		}
		if gotTotal != wantTotal || !slices.EqualFunc(got, want, bytes.Equal) {
			t.Fatalf("case %d: filter %v:\nOpenSearch %d matches: %s\nengine     %d matches: %s", i, q.Filter, gotTotal, keyList(got), wantTotal, keyList(want))
		}
		if wantTotal > 0 {
			matched++
		}
	}
	// Rules that match nothing tell the backends apart little.
	if matched < 100 {
		t.Errorf("%d of 200 rules match some items", matched)
	}
}
