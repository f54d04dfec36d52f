package indexer_test

import (
	"testing"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
)

// TestIndexer_Build_polled checks that a build given a poll's table plans
// from it, not from a table loaded again: a commit after the poll waits
// for the next build.
func TestIndexer_Build_polled(t *testing.T) {
	f := mustFixture(t, nil, 2, nil)
	f.mustBuild(t, indexer.BuildOptions{})
	if err := f.tb.Append(f.ctx, customerRows(100, 5)); err != nil {
		t.Fatal(err)
	}
	polled, err := f.ix.Poll(f.ctx, f.name)
	if err != nil {
		t.Fatal(err)
	}
	seen := polled.Table().CurrentSnapshot().SnapshotID
	if err := f.tb.Append(f.ctx, customerRows(200, 3)); err != nil {
		t.Fatal(err)
	}
	r := f.mustBuild(t, indexer.BuildOptions{Polled: polled})
	if r.ToSnapshotID != seen {
		t.Fatalf("build to snapshot %d, want the polled %d", r.ToSnapshotID, seen)
	}
	wantResult(t, r, indexer.KindIncremental, 1, 5, 0)
	r = f.mustBuild(t, indexer.BuildOptions{})
	wantResult(t, r, indexer.KindIncremental, 1, 3, 0)
	indexertest.MatchTable(t, f.ix, f.name, f.tb)
}
