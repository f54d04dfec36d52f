package indexer_test

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
	"github.com/ontoindex/ontoindex/objects"
)

// TestIndexer_Build_resume interrupts a full build and checks that the next
// build resumes it from its last committed chunk, while the previous
// generation keeps serving.
func TestIndexer_Build_resume(t *testing.T) {
	ctx := context.Background()
	w := icebergtest.MustWarehouse(t)
	tb, err := w.CreateTable(ctx, "ns.customers", customerSchema(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if err := tb.Append(ctx, customerRows(i*10, 10)); err != nil {
			t.Fatal(err)
		}
	}
	cfg := indexertest.Config(t, w, objects.TypeSpec{APIName: "Customer", Table: "warehouse.ns.customers"})
	cfg.Build.ChunkRows = 5

	// First a complete build: generation 1 serves.
	ix := indexertest.Open(t, cfg)
	if _, err := ix.Build(ctx, "Customer", indexer.BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}

	// A full rebuild cancelled after four files.
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	files := 0
	ix, err = indexer.Open(ctx, cfg, indexer.Options{Progress: func(indexer.Progress) {
		if files++; files == 4 {
			cancel()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := ix.Build(cctx, "Customer", indexer.BuildOptions{Full: true})
	if !errors.Is(err, context.Canceled) || r.Error.Code != indexer.CodeCanceled {
		t.Fatalf("cancelled build: %v (%+v)", err, r.Error)
	}
	if cp, _ := ix.Checkpoint("Customer"); cp.Generation != 1 || cp.Objects != 100 {
		t.Fatalf("after the cancelled build: checkpoint %+v", cp)
	}
	indexertest.MatchTable(t, ix, "Customer", tb) // generation 1 still serves
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}

	// Reopen: the build resumes and reads only what was not committed.
	ix = indexertest.Open(t, cfg)
	r, err = ix.Build(ctx, "Customer", indexer.BuildOptions{Full: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Kind != indexer.KindFull || r.Generation != 2 || r.RowsRead >= 100 || r.RowsRead < 60 {
		t.Errorf("resumed build = %+v, want generation 2 reading 60..99 rows", r)
	}
	indexertest.MatchTable(t, ix, "Customer", tb)
}

// TestIndexer_Build_resumeThenDelete: a full build interrupted in the
// middle of a data file and resumed must know every row of that file as
// the file's, so that the rows the interrupted part committed are deleted
// when the file leaves the table like the others (they were kept as ghost
// objects: the resume gave the file a second id).
func TestIndexer_Build_resumeThenDelete(t *testing.T) {
	ctx := context.Background()
	w := icebergtest.MustWarehouse(t)
	tb, err := w.CreateTable(ctx, "ns.customers", customerSchema(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		if err := tb.Append(ctx, customerRows(i*10, 10)); err != nil {
			t.Fatal(err)
		}
	}
	cfg := indexertest.Config(t, w, objects.TypeSpec{APIName: "Customer", Table: "warehouse.ns.customers"})
	cfg.Build.ChunkRows = 3 // chunks end inside files

	// A first build cancelled after four files: the last chunk it
	// committed ends inside the fourth.
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	files := 0
	ix, err := indexer.Open(ctx, cfg, indexer.Options{Progress: func(indexer.Progress) {
		if files++; files == 4 {
			cancel()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Build(cctx, "Customer", indexer.BuildOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled build: %v", err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix = indexertest.Open(t, cfg)
	r, err := ix.Build(ctx, "Customer", indexer.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.RowsRead >= 60 {
		t.Fatalf("the build read %d rows: it did not resume", r.RowsRead)
	}
	indexertest.MatchTable(t, ix, "Customer", tb)

	// Every row leaves the table (copy-on-write: every file is removed).
	if err := tb.Delete(ctx, iceberg.GreaterThanEqual(iceberg.Reference("id"), int64(0))); err != nil {
		t.Fatal(err)
	}
	r, err = ix.Build(ctx, "Customer", indexer.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Kind != indexer.KindIncremental || r.Deletes != 60 {
		t.Errorf("build after deleting every row: %s, %d deletes; want incremental, 60", r.Kind, r.Deletes)
	}
	indexertest.MatchTable(t, ix, "Customer", tb)
}
