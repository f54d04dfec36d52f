package indexer_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
	"github.com/ontoindex/ontoindex/objects"
)

// openLog records the files a table's IO opens.
type openLog struct {
	mu    sync.Mutex
	paths []string
}

func (l *openLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.paths
	l.paths = nil
	return p
}

type loggingIO struct {
	iceio.IO
	log *openLog
}

func (o loggingIO) Open(name string) (iceio.File, error) {
	o.log.mu.Lock()
	o.log.paths = append(o.log.paths, name)
	o.log.mu.Unlock()
	return o.IO.Open(name)
}

// TestIndexer_Build_opens checks invariant 4 by the files a build opens:
// after a one-row COW edit, only the new manifest list, the manifests the
// commit wrote and the data files it added; never a removed data file or
// a manifest the baseline already knows.
func TestIndexer_Build_opens(t *testing.T) {
	ctx := context.Background()
	w := icebergtest.MustWarehouse(t)
	tb, err := w.CreateTable(ctx, "ns.customers", customerSchema(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		if err := tb.Append(ctx, customerRows(i*10, 10)); err != nil {
			t.Fatal(err)
		}
	}
	log := &openLog{}
	cfg := indexertest.Config(t, w, objects.TypeSpec{APIName: "Customer", Table: "warehouse.ns.customers"})
	ix, err := indexer.Open(ctx, cfg, indexer.Options{LoadTable: func(ctx context.Context, ref string) (*table.Table, error) {
		cur, err := w.LoadTable(ctx, "ns.customers")
		if err != nil {
			return nil, err
		}
		fsF := func(ctx context.Context) (iceio.IO, error) {
			fs, err := cur.T.FS(ctx)
			return loggingIO{IO: fs, log: log}, err
		}
		return table.New(cur.T.Identifier(), cur.T.Metadata(), cur.T.MetadataLocation(), fsF, nil), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Build(ctx, "Customer", indexer.BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	log.take()

	before, err := tb.T.CurrentSnapshot().Manifests(mustFS(t, tb))
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.Overwrite(ctx, iceberg.EqualTo(iceberg.Reference("id"), int64(42)), []icebergtest.Row{{"id": 42, "name": "x"}}); err != nil {
		t.Fatal(err)
	}
	snap := tb.T.CurrentSnapshot()
	after, err := snap.Manifests(mustFS(t, tb))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Build(ctx, "Customer", indexer.BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	opened := log.take()

	known := map[string]bool{}
	for _, m := range before {
		known[m.FilePath()] = true
	}
	var newManifests []string
	for _, m := range after {
		if !known[m.FilePath()] {
			newManifests = append(newManifests, m.FilePath())
		}
	}
	// The data files the commit added and removed, from its manifests.
	var added, removed []string
	for _, m := range after {
		if known[m.FilePath()] || m.ManifestContent() != iceberg.ManifestContentData {
			continue
		}
		for e, err := range m.Entries(mustFS(t, tb), false) {
			if err != nil {
				t.Fatal(err)
			}
			if e.SnapshotID() != snap.SnapshotID {
				continue
			}
			switch e.Status() {
			case iceberg.EntryStatusADDED:
				added = append(added, e.DataFile().FilePath())
			case iceberg.EntryStatusDELETED:
				removed = append(removed, e.DataFile().FilePath())
			}
		}
	}
	if len(added) == 0 || len(removed) == 0 {
		t.Fatalf("the edit added %v and removed %v", added, removed)
	}
	var dataOpened, manifestsOpened []string
	for _, p := range opened {
		switch {
		case strings.HasSuffix(p, ".parquet"):
			dataOpened = append(dataOpened, p)
		case strings.Contains(p, "/metadata/") && !strings.Contains(p, "snap-"):
			manifestsOpened = append(manifestsOpened, p)
		}
	}
	for _, p := range removed {
		if slices.Contains(dataOpened, p) {
			t.Errorf("opened removed data file %s", p)
		}
	}
	for _, p := range dataOpened {
		if !slices.Contains(added, p) {
			t.Errorf("opened data file %s that the commit did not add", p)
		}
	}
	for _, p := range manifestsOpened {
		if known[p] {
			t.Errorf("re-read manifest %s known to the baseline", p)
		}
		if !slices.Contains(newManifests, p) {
			t.Errorf("opened %s, not a manifest of the new snapshot", p)
		}
	}
	if len(manifestsOpened) == 0 {
		t.Errorf("no manifest opened (opened %v)", opened)
	}
}

func mustFS(tb testing.TB, t *icebergtest.Table) iceio.IO {
	tb.Helper()
	fs, err := t.T.FS(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return fs
}
