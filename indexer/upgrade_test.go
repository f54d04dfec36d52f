package indexer_test

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/internal/benchdata"
)

// TestIndexer_upgradeFromLayout2 opens a data dir the release before the
// in-memory engine wrote (testdata/layout2): its generation is served
// read-only from the store, then the first build replaces it with a full
// build in the current layout, and the old generation's files go.
func TestIndexer_upgradeFromLayout2(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	mustUntar(t, "testdata/layout2/data.tgz", dir)
	if _, err := benchdata.WriteCustomers(ctx, dir, 1, 40, 1); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("testdata/layout2/ontology.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "ontology.yaml")
	if err := os.WriteFile(cfgPath, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := indexer.Open(ctx, cfg, indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()

	check := func(what string) {
		t.Helper()
		v, err := ix.View("Customer")
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		defer v.Release()
		if err := v.CheckIndex(ctx); err != nil {
			t.Fatalf("%s: index: %v", what, err)
		}
		for _, city := range benchdata.Cities {
			p, err := v.Search(ctx, &query.Search{Filter: query.Eq("city", city), Sort: []query.Sort{{Property: "balance"}}, PageSize: 100})
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			var want []int64
			for id := range int64(40) {
				if benchdata.NewCustomer(1, id).City == city {
					want = append(want, id)
				}
			}
			if p.Total != int64(len(want)) || p.Len() != len(want) {
				t.Fatalf("%s: city %s: %d objects (total %d), want %d", what, city, p.Len(), p.Total, len(want))
			}
			prev := -1.0
			for j := range p.Len() {
				o := p.Object(j)
				c := benchdata.NewCustomer(1, o.Values[v.Type().PropertyIndex("id")].(int64))
				bal := o.Values[v.Type().PropertyIndex("balance")].(float64)
				if c.City != city || bal != c.Balance || bal < prev {
					t.Fatalf("%s: city %s: object %v out of place or not the row %+v", what, city, o.Values, c)
				}
				prev = bal
			}
		}
	}
	// The old checkpoint stored its snapshot ids as bare JSON numbers
	// (now strings): above 2^53, they must come back exact, not rounded.
	const oldSnapshot = 7338076680394734586
	if cp, err := ix.Checkpoint("Customer"); err != nil || cp.Generation != 1 || cp.SnapshotID != oldSnapshot ||
		cp.LastBuild == nil || cp.LastBuild.ToSnapshotID != oldSnapshot || cp.LastBuild.FromSnapshotID != 0 {
		t.Fatalf("checkpoint of the old data dir: %+v, %v; want generation 1 at snapshot %d", cp, err, int64(oldSnapshot))
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "types", "Customer", "gen-1", "store", "root.bolt")); err != nil {
		t.Fatalf("the old generation's bleve index: %v", err)
	}
	check("the generation of the old layout")

	res, err := ix.Build(ctx, "Customer", indexer.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != indexer.KindFull || res.Generation != 2 || res.Upserts != 40 {
		t.Fatalf("first build after the upgrade: %+v, want a full build of 40 objects into generation 2", res)
	}
	check("the rebuilt generation")
	if _, err := os.Stat(filepath.Join(dir, "data", "types", "Customer", "gen-1")); !os.IsNotExist(err) {
		t.Fatalf("the old generation's files are still there: %v", err)
	}

	// The checkpoint the build stored, in the current encoding, reads back.
	want, err := ix.Checkpoint("Customer")
	if err != nil {
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
	got, err := ix.Checkpoint("Customer")
	if err != nil || got.SnapshotID != want.SnapshotID || got.Generation != 2 || got.LastBuild == nil ||
		got.LastBuild.FromSnapshotID != want.LastBuild.FromSnapshotID || got.LastBuild.ToSnapshotID != want.LastBuild.ToSnapshotID {
		t.Fatalf("checkpoint after a restart: %+v, %v; want %+v", got, err, want)
	}
	check("the rebuilt generation after a restart")
}

// mustUntar extracts a .tgz into dir.
func mustUntar(tb testing.TB, path, dir string) {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			tb.Fatal(err)
		}
		target := filepath.Join(dir, filepath.FromSlash(h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(target, 0o755)
		case tar.TypeReg:
			var out *os.File
			if out, err = os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644); err == nil {
				_, err = io.Copy(out, tr)
				if cerr := out.Close(); err == nil {
					err = cerr
				}
			}
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
}
