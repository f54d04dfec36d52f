package indexer_test

import (
	"context"
	"testing"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
)

// TestIndexer_Build_holdMemory checks that a full build, and only a full
// build, holds the memory limit at its ceiling for as long as it runs
// (Options.HoldMemory).
func TestIndexer_Build_holdMemory(t *testing.T) {
	f := mustFixture(t, nil, 2, nil)
	if err := f.ix.Close(); err != nil {
		t.Fatal(err)
	}
	var holds, releases int
	ix, err := indexer.Open(context.Background(), f.cfg, indexer.Options{HoldMemory: func() func() {
		holds++
		return func() { releases++ }
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	f.ix = ix
	tests := []struct {
		name string
		opts indexer.BuildOptions
		edit bool
		kind indexer.Kind
		want int
	}{
		{"the first build is full", indexer.BuildOptions{}, false, indexer.KindFull, 1},
		{"an edit is not", indexer.BuildOptions{}, true, indexer.KindIncremental, 1},
		{"a forced full build is", indexer.BuildOptions{Full: true}, false, indexer.KindFull, 2},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.edit {
				if err := f.tb.Append(f.ctx, customerRows(100+10*i, 3)); err != nil {
					t.Fatal(err)
				}
			}
			if r := f.mustBuild(t, tt.opts); r.Kind != tt.kind {
				t.Fatalf("build kind %s, want %s", r.Kind, tt.kind)
			}
			if holds != tt.want || releases != tt.want {
				t.Fatalf("%d holds and %d releases, want %d of each", holds, releases, tt.want)
			}
		})
	}
	indexertest.MatchTable(t, f.ix, f.name, f.tb)
}
