package indexer_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/deploytest"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
)

// TestIndexer_Build_costS3 is the cost test on S3, measured by the server:
// a proxy in front of the S3 server records each request of the builds.
// After a one-row copy-on-write edit in a table of 24 data files, the
// incremental build fetches only what the commit added: the new table
// metadata, the new manifest list, the manifests the commit wrote and the
// data files it added (by range); bytesRead is exactly the bytes the server
// delivered for those data files, and at most their size.
func TestIndexer_Build_costS3(t *testing.T) {
	ctx := context.Background()
	d := deploytest.Must(t, deploytest.PostgresS3, deploytest.Options{Meter: true})
	tb, err := d.Warehouse.CreateTable(ctx, "ns.customers", customerSchema(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 24 {
		if err := tb.Append(ctx, customerRows(i*10, 10)); err != nil {
			t.Fatal(err)
		}
	}
	d.Setenv(t)
	cfg, err := config.Parse([]byte(d.Config("objectTypes: [{apiName: Customer, table: warehouse.ns.customers}]\n")), d.Dir)
	if err != nil {
		t.Fatal(err)
	}
	ix := indexertest.Open(t, cfg)
	full, err := ix.Build(ctx, "Customer", indexer.BuildOptions{})
	if err != nil || full.FilesRead != 24 {
		t.Fatalf("full build: %+v, %v", full, err)
	}
	fullReqs := d.Meter.Take()

	fs := mustFS(t, tb)
	before, err := tb.T.CurrentSnapshot().Manifests(fs)
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.Overwrite(ctx, id(117), []icebergtest.Row{{"id": 117, "name": "edited", "city": "Oslo", "score": 0.5}}); err != nil {
		t.Fatal(err)
	}
	snap := tb.T.CurrentSnapshot()
	var addedBytes int64
	fmt.Sscan(snap.Summary.Properties["added-files-size"], &addedBytes)
	r, err := ix.Build(ctx, "Customer", indexer.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reqs := d.Meter.Take()

	// What the commit added, from its metadata.
	want := map[string]string{tb.T.MetadataLocation(): "metadata", snap.ManifestList: "manifest list"}
	known := map[string]bool{}
	for _, m := range before {
		known[m.FilePath()] = true
	}
	after, err := snap.Manifests(fs)
	if err != nil {
		t.Fatal(err)
	}
	var added, removed []string
	for _, m := range after {
		if known[m.FilePath()] {
			continue
		}
		want[m.FilePath()] = "manifest"
		for e, err := range m.Entries(fs, false) {
			if err != nil {
				t.Fatal(err)
			}
			if e.SnapshotID() != snap.SnapshotID || m.ManifestContent() != iceberg.ManifestContentData {
				continue
			}
			switch e.Status() {
			case iceberg.EntryStatusADDED:
				added = append(added, e.DataFile().FilePath())
				want[e.DataFile().FilePath()] = "data file"
			case iceberg.EntryStatusDELETED:
				removed = append(removed, e.DataFile().FilePath())
			}
		}
	}
	if len(added) == 0 || len(removed) == 0 {
		t.Fatalf("the edit added %v and removed %v", added, removed)
	}
	var dataBytes, allBytes int64
	fetched := map[string]bool{}
	for _, q := range reqs {
		allBytes += q.Bytes
		what, ok := want[q.Location()]
		if !ok {
			// A removed data file, a manifest the baseline knows, ...
			t.Errorf("%s %s (%d bytes): not a file the commit added", q.Method, q.Location(), q.Bytes)
			continue
		}
		fetched[q.Location()] = true
		if what == "data file" {
			dataBytes += q.Bytes
			if q.Method == "GET" && q.Range == "" {
				t.Errorf("GET of the whole data file %s", q.Location())
			}
		}
	}
	for _, p := range added {
		if !fetched[p] {
			t.Errorf("the added data file %s was not read", p)
		}
	}
	if int64(r.FilesRead) != int64(len(added)) || r.Upserts != 1 || r.Deletes != 0 {
		t.Errorf("incremental build: %+v, want %d files read, 1 upsert", r, len(added))
	}
	if r.BytesRead != dataBytes || r.BytesRead <= 0 || r.BytesRead > addedBytes {
		t.Errorf("bytesRead %d; the server delivered %d bytes of data files; the commit added %d bytes", r.BytesRead, dataBytes, addedBytes)
	}
	var fullBytes int64
	for _, q := range fullReqs {
		fullBytes += q.Bytes
	}
	kinds := map[string]int{}
	for _, q := range reqs {
		kinds[want[q.Location()]]++
	}
	t.Logf("S3 cost test: full build fetched %d bytes in %d requests; after a one-row edit (added %d files, %d bytes) the incremental build fetched %d bytes in %d requests %v, bytesRead %d",
		fullBytes, len(fullReqs), len(added), addedBytes, allBytes, len(reqs), kinds, r.BytesRead)
	indexertest.MatchTable(t, ix, "Customer", tb)
}
