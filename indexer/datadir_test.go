package indexer_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
	"github.com/ontoindex/ontoindex/objects"
)

func exists(tb testing.TB, path string) bool {
	tb.Helper()
	_, err := os.Stat(path)
	if err != nil && !os.IsNotExist(err) {
		tb.Fatal(err)
	}
	return err == nil
}

// TestIndexer_unusedDataDir: what Open creates of a data dir goes again at
// Close when nothing was stored (a failed build, a check), and only that:
// a data dir that existed stays, and so does one a build stored into.
func TestIndexer_unusedDataDir(t *testing.T) {
	ctx := context.Background()
	w := icebergtest.MustWarehouse(t)
	customers, err := w.CreateTable(ctx, "ns.customers", customerSchema(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := customers.Append(ctx, customerRows(0, 10)); err != nil {
		t.Fatal(err)
	}
	cfg := indexertest.Config(t, w, objects.TypeSpec{APIName: "Customer", Table: "warehouse.ns.customers"},
		objects.TypeSpec{APIName: "Ghost", Table: "warehouse.ns.ghosts", PrimaryKey: []string{"id"}})
	root := t.TempDir()
	open := func(dataDir string) *indexer.Indexer {
		t.Helper()
		cfg.DataDir = dataDir
		ix, err := indexer.Open(ctx, cfg, indexer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}

	t.Run("a failed build in a new dir", func(t *testing.T) {
		dir := filepath.Join(root, "new", "nested", "data")
		ix := open(dir)
		if !exists(t, filepath.Join(dir, "state.db")) {
			t.Fatal("Open did not create the store")
		}
		if _, err := ix.Build(ctx, "Ghost", indexer.BuildOptions{}); err == nil {
			t.Fatal("a build of a missing table succeeded")
		}
		if _, err := ix.Check(ctx, "Customer"); err != nil {
			t.Fatal(err)
		}
		if err := ix.Close(); err != nil {
			t.Fatal(err)
		}
		if exists(t, filepath.Join(root, "new")) {
			t.Errorf("the directories Open created are still there")
		}
	})
	t.Run("a dir that existed", func(t *testing.T) {
		dir := filepath.Join(root, "existing")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := open(dir).Close(); err != nil {
			t.Fatal(err)
		}
		if !exists(t, dir) || exists(t, filepath.Join(dir, "state.db")) {
			t.Errorf("want the dir kept and the unused store removed")
		}
	})
	t.Run("a build stored something", func(t *testing.T) {
		dir := filepath.Join(root, "built")
		ix := open(dir)
		if _, err := ix.Build(ctx, "Customer", indexer.BuildOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := ix.Build(ctx, "Ghost", indexer.BuildOptions{}); err == nil {
			t.Fatal("a build of a missing table succeeded")
		}
		if err := ix.Close(); err != nil {
			t.Fatal(err)
		}
		ix = open(dir)
		defer ix.Close()
		if cp, err := ix.Checkpoint("Customer"); err != nil || cp == nil || cp.Objects != 10 {
			t.Fatalf("checkpoint after reopening: %+v, %v", cp, err)
		}
	})
}

// TestIndexer_unusedDataDirRace: a second Open of a new data dir waits for
// the store while the first holds it; when the first closes unused and
// removes the dir, the second must not keep the removed file (what it
// stored would be lost) but open a new one.
func TestIndexer_unusedDataDirRace(t *testing.T) {
	ctx := context.Background()
	w := icebergtest.MustWarehouse(t)
	customers, err := w.CreateTable(ctx, "ns.customers", customerSchema(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := customers.Append(ctx, customerRows(0, 10)); err != nil {
		t.Fatal(err)
	}
	cfg := indexertest.Config(t, w, objects.TypeSpec{APIName: "Customer", Table: "warehouse.ns.customers"})
	cfg.DataDir = filepath.Join(t.TempDir(), "data")
	first, err := indexer.Open(ctx, cfg, indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	second := make(chan *indexer.Indexer, 1)
	go func() {
		ix, err := indexer.Open(ctx, cfg, indexer.Options{})
		if err != nil {
			t.Error(err)
		}
		second <- ix
	}()
	time.Sleep(200 * time.Millisecond) // the second waits for the lock (store.Open waits 2 s)
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	ix := <-second
	if ix == nil {
		t.FailNow()
	}
	if _, err := ix.Build(ctx, "Customer", indexer.BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix, err = indexer.Open(ctx, cfg, indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if cp, err := ix.Checkpoint("Customer"); err != nil || cp == nil || cp.Objects != 10 {
		t.Fatalf("the second's build is lost: checkpoint %+v, %v", cp, err)
	}
}
