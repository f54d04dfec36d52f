//go:build integration_opensearch

package indexer_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/opensearchtest"
)

// TestIndexer_Build_openSearchChunkAcked: a full build commits a chunk
// only once the cluster acknowledged every write of it, also should it
// send the next chunk's objects meanwhile. 24,000 rows in chunks of 9,000
// go out in writes of 4,096 objects, a chunk's last write of 808 sent at
// its end. That write of chunk n is held until a write of chunk n+1
// started (which only a build that sends ahead does; a build that waits
// for the chunk holds it 2 s), then fails before anything reaches the
// cluster: had chunk n been committed, the resumed build would skip its
// 808 rows and the index would miss them.
func TestIndexer_Build_openSearchChunkAcked(t *testing.T) {
	c := opensearchtest.Must(t, opensearchtest.Options{})
	const (
		chunk, total = 9000, 24000
		lastWrite    = chunk - 2*4096 // a chunk's last write
	)
	for _, tc := range []struct {
		name  string
		chunk int // the chunk whose last write fails, from 1
	}{
		{"first chunk", 1},
		{"second chunk", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newBackendFixture(t, c.URL(), "acked-", 40+uint64(tc.chunk), func(cfg *config.Config) { cfg.Build.ChunkRows = chunk })
			f.maxPages = 20
			if err := f.tbl.Append(f.ctx, f.rows(total-300, "more")); err != nil {
				t.Fatal(err)
			}
			injected := errors.New("injected")
			var (
				mu      sync.Mutex
				entered int           // objects of the writes that started
				lasts   int           // chunks' last writes that started
				ahead   chan struct{} // closed once a write of the next chunk started
				started bool
			)
			ahead = make(chan struct{})
			indexer.SetBeforeBackendWrite(f.ix, func(_ string, changes int) error {
				mu.Lock()
				entered += changes
				if entered > tc.chunk*chunk && !started {
					started = true
					close(ahead)
				}
				fail := false
				if changes == lastWrite {
					lasts++
					fail = lasts == tc.chunk
				}
				mu.Unlock()
				if !fail {
					return nil
				}
				select {
				case <-ahead:
				case <-time.After(2 * time.Second): // a build that waits for this write first
				}
				return injected
			})
			if _, err := f.ix.Build(f.ctx, "Item", indexer.BuildOptions{}); !errors.Is(err, injected) {
				t.Fatalf("build: %v, want the injected failure", err)
			}
			indexer.SetBeforeBackendWrite(f.ix, nil)
			t.Logf("a write of chunk %d started before chunk %d's last failed: %v", tc.chunk+1, tc.chunk, started)
			res := f.build(t, indexer.BuildOptions{})
			if want := int64(total - (tc.chunk-1)*chunk); res.Kind != indexer.KindFull || res.Generation != 1 || res.RowsRead != want {
				t.Fatalf("build after the failure: %s of generation %d, %d rows read, want the first build resumed with %d", res.Kind, res.Generation, res.RowsRead, want)
			}
			f.checkBackend(t, "resumed after a failed write of the "+tc.name)
			f.edit(t, "after")
			f.build(t, indexer.BuildOptions{})
			f.checkBackend(t, "incremental build after it")
		})
	}
}
