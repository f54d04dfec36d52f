package indexer_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/cowguard"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
)

// mustWideFixture is the Customer table with files data files of rows
// rows each, written by one append (iceberg-go rolls to a new file after
// each row group, here of rows rows), and the merge-on-read Customer type
// over it.
func mustWideFixture(tb testing.TB, fv string, files, rows int) *fixture {
	tb.Helper()
	ctx := context.Background()
	w := icebergtest.MustWarehouse(tb)
	t, err := w.CreateTable(ctx, "ns.customers", customerSchema(), iceberg.Properties{"format-version": fv, cowguard.DeleteModeKey: cowguard.MergeOnRead,
		table.WriteTargetFileSizeBytesKey: "1024", table.ParquetRowGroupSizeBytesKey: "1024", "write.parquet.row-group-limit": fmt.Sprint(rows / 2)})
	if err != nil {
		tb.Fatal(err)
	}
	// A record batch per file: iceberg-go rolls to a new file once a row
	// group was flushed past the target size, and a batch larger than the
	// row-group limit flushes.
	var recs []arrow.RecordBatch
	half := rows
	for i := range files {
		batch := customerRows(i*half, half)
		for j := range batch {
			// Names that do not compress away, so that a file's other
			// columns weigh as a table's do.
			batch[j]["name"] = fmt.Sprintf("customer %d %x", i*half+j, sha256.Sum256([]byte(fmt.Sprint(i*half+j))))
		}
		rdr, err := t.Records(batch)
		if err != nil {
			tb.Fatal(err)
		}
		for rdr.Next() {
			rec := rdr.RecordBatch()
			rec.Retain()
			recs = append(recs, rec)
		}
		rdr.Release()
	}
	rdr, err := array.NewRecordReader(recs[0].Schema(), recs)
	if err != nil {
		tb.Fatal(err)
	}
	nt, err := t.T.Append(ctx, rdr, nil)
	rdr.Release()
	for _, rec := range recs {
		rec.Release()
	}
	if err != nil {
		tb.Fatal(err)
	}
	t.T = nt
	if n := addedFiles(t); n != files {
		tb.Fatalf("the append wrote %d data files, want %d", n, files)
	}
	cfg := indexertest.Config(tb, w, *morSpec())
	return &fixture{ctx: ctx, tb: t, ix: indexertest.Open(tb, cfg), cfg: cfg, name: "Customer"}
}

// TestIndexer_Build_mergeOnReadCost checks invariant 4 for merge-on-read:
// one deleted row in a table of 1,000 data files costs its delete file
// and at most the footer and key column of the one data file it names, a
// few kilobytes in bytesRead; an equality delete on the key costs its
// delete file only. A copy-on-write rewrite of the same row reads the
// whole rewritten file, for comparison.
func TestIndexer_Build_mergeOnReadCost(t *testing.T) {
	if testing.Short() {
		t.Skip("writes two tables of 1,000 data files")
	}
	const files, rows = 1000, 200
	type step struct {
		name   string
		commit func(f *fixture) error
		// maxBytes bounds bytesRead (0: not bounded, reported only).
		maxBytes  int64
		dataFiles int // data files read as added files
	}
	tests := []struct {
		fv    string
		steps []step
	}{
		{"2", []step{
			{"position delete", func(f *fixture) error { return f.tb.Delete(f.ctx, id(123_456)) }, 32 << 10, 0},
			{"equality delete on the key", func(f *fixture) error {
				return f.tb.EqualityDelete(f.ctx, []string{"id"}, []icebergtest.Row{{"id": 154_321}})
			}, 8 << 10, 0},
			{"copy-on-write rewrite", func(f *fixture) error {
				return f.tb.Overwrite(f.ctx, id(100_000), []icebergtest.Row{{"id": 100_000, "name": "rewritten"}})
			}, 0, 2}, // the rewritten rows and the new one, in two files
			// Other columns: every file it applies to is read, its key and
			// city columns (equalityFilesScanned).
			{"equality delete on another column", func(f *fixture) error {
				return f.tb.EqualityDelete(f.ctx, []string{"city"}, []icebergtest.Row{{"city": "Quito"}})
			}, 0, 0},
		}},
		{"3", []step{
			{"deletion vector", func(f *fixture) error { return f.tb.Delete(f.ctx, id(123_456)) }, 32 << 10, 0},
			{"second deletion vector of the same file", func(f *fixture) error { return f.tb.Delete(f.ctx, id(123_457)) }, 32 << 10, 0},
		}},
	}
	for _, tt := range tests {
		t.Run("v"+tt.fv, func(t *testing.T) {
			f := mustWideFixture(t, tt.fv, files, rows)
			first := f.mustBuild(t, indexer.BuildOptions{})
			if first.FilesRead != files {
				t.Fatalf("first build read %d files, want %d", first.FilesRead, files)
			}
			for _, s := range tt.steps {
				if err := s.commit(f); err != nil {
					t.Fatal(err)
				}
				r := f.mustBuild(t, indexer.BuildOptions{})
				t.Logf("%s: %d rows deleted, %d upserts, %d delete files, %d positions, %d keys, %d data files, %d scanned, %d bytes read",
					s.name, r.Deletes, r.Upserts, r.DeleteFilesRead, r.PositionsApplied, r.KeysApplied, r.FilesRead, r.EqualityFilesScanned, r.BytesRead)
				if r.Kind != indexer.KindIncremental || r.FilesRead != s.dataFiles {
					t.Errorf("%s: %s build read %d data files, want incremental with %d", s.name, r.Kind, r.FilesRead, s.dataFiles)
				}
				if s.maxBytes > 0 && (r.BytesRead > s.maxBytes || r.BytesRead == 0) {
					t.Errorf("%s: read %d bytes, want between 1 and %d", s.name, r.BytesRead, s.maxBytes)
				}
			}
			indexertest.MatchTable(t, f.ix, f.name, f.tb)
		})
	}
}
