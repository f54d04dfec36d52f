package indexer_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
)

// TestIndexer_Build_tableFaults: a data file or manifest of the new
// snapshot missing or damaged fails the build with an error that names
// the table, the file and the snapshot; the checkpoint and the objects
// stay as they were, and the next build after the file is back succeeds.
func TestIndexer_Build_tableFaults(t *testing.T) {
	addedDataFile := func(tb testing.TB, f *fixture, s *table.Snapshot) string {
		return localPath(addedFile(tb, f, s, true))
	}
	addedManifest := func(tb testing.TB, f *fixture, s *table.Snapshot) string {
		return localPath(addedFile(tb, f, s, false))
	}
	missing := func(tb testing.TB, p string) func() {
		if err := os.Rename(p, p+".away"); err != nil {
			tb.Fatal(err)
		}
		return func() {
			if err := os.Rename(p+".away", p); err != nil {
				tb.Fatal(err)
			}
		}
	}
	truncated := func(tb testing.TB, p string) func() {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, b[:len(b)/2], 0o644); err != nil {
			tb.Fatal(err)
		}
		return func() {
			if err := os.WriteFile(p, b, 0o644); err != nil {
				tb.Fatal(err)
			}
		}
	}
	for _, tc := range []struct {
		name   string
		file   func(testing.TB, *fixture, *table.Snapshot) string
		inject func(testing.TB, string) func()
	}{
		{"data file missing", addedDataFile, missing},
		{"data file truncated", addedDataFile, truncated},
		{"manifest missing", addedManifest, missing},
		{"manifest truncated", addedManifest, truncated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := mustFixture(t, nil, 3, nil)
			f.mustBuild(t, indexer.BuildOptions{})
			before, _ := f.ix.Checkpoint(f.name)
			edit := icebergtest.Row{"id": 12, "name": "customer 12, renamed", "city": "Oslo", "score": 3.0}
			if err := f.tb.Overwrite(f.ctx, id(12), []icebergtest.Row{edit}); err != nil {
				t.Fatal(err)
			}
			snap := f.tb.T.CurrentSnapshot()
			p := tc.file(t, f, snap)
			restore := tc.inject(t, p)
			_, err := f.ix.Build(f.ctx, f.name, indexer.BuildOptions{})
			if err == nil {
				t.Fatal("build succeeded on a damaged table")
			}
			for _, want := range []string{"warehouse.ns.customers", filepath.Base(p), strconv.FormatInt(snap.SnapshotID, 10)} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name %s", err, want)
				}
			}
			if cp, _ := f.ix.Checkpoint(f.name); cp.SnapshotID != before.SnapshotID {
				t.Errorf("checkpoint moved to %d", cp.SnapshotID)
			}
			restore()
			if r := f.mustBuild(t, indexer.BuildOptions{}); r.Kind != indexer.KindIncremental || r.Upserts != 1 || r.Deletes != 0 {
				t.Errorf("build after the repair: %s, %d upserts, %d deletes; want incremental, 1, 0", r.Kind, r.Upserts, r.Deletes)
			}
			indexertest.MatchTable(t, f.ix, f.name, f.tb)
		})
	}
}

// addedFile is the first data file (or data manifest) snapshot s added.
func addedFile(tb testing.TB, f *fixture, s *table.Snapshot, dataFile bool) string {
	tb.Helper()
	fs, err := f.tb.T.FS(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	mfs, err := s.Manifests(fs)
	if err != nil {
		tb.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.SnapshotID() != s.SnapshotID || mf.ManifestContent() != iceberg.ManifestContentData || mf.AddedDataFiles() == 0 {
			continue
		}
		if !dataFile {
			return mf.FilePath()
		}
		for e, err := range mf.Entries(fs, true) {
			if err != nil {
				tb.Fatal(err)
			}
			if e.Status() == iceberg.EntryStatusADDED {
				return e.DataFile().FilePath()
			}
		}
	}
	tb.Fatalf("snapshot %d added no data file", s.SnapshotID)
	return ""
}

func localPath(loc string) string { return strings.TrimPrefix(loc, "file://") }
