package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/daemon"
	"github.com/ontoindex/ontoindex/internal/testkit/daemontest"
	"github.com/ontoindex/ontoindex/internal/testkit/peopletest"
	"github.com/ontoindex/ontoindex/internal/tmpfs"
)

// TestServe_diskFull runs a real `indexer serve` whose data dir is on a
// small tmpfs that another file fills up: during an incremental build (no
// space at all) and during a full build into a new generation (space for
// part of it). Each time the build fails with an error that names the
// store and says the disk is full, the last good state keeps serving
// (count, search and get as before, the same generation, ready), and once
// the space returns the daemon finishes the build by itself. At the end
// the objects are exactly the rows of the checkpoint (invariant 1).
func TestServe_diskFull(t *testing.T) {
	fs := mustTmpfs(t, 64<<20)
	ctx := context.Background()
	sw := mustServeWarehouse(t, 10, 2000)
	sw.config(t, peopletest.PeopleType, "")
	dataDir := filepath.Join(fs.Dir(), "data")
	cfg, err := os.ReadFile(sw.cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	mustFile(t, sw.cfgPath, strings.Replace(string(cfg), "dataDir: ./data", "dataDir: "+dataDir, 1))
	people := sw.tables[peopletest.People]
	p := startServe(t, sw.cfgPath)
	first := p.waitStatus(t, "People", "built", daemontest.UpToDate(people))
	// The index file is written in the background after the build: wait
	// for it, or its write would fail on the full disk and give back the
	// space its temporary file took, which the test means to fill.
	waitFile(t, filepath.Join(dataDir, "types", "People", "gen-1", "index.snap"))
	t.Logf("after the first build: %d objects, %d KiB used on the tmpfs", first.Objects, mustSpace(t, fs.Used)>>10)
	noSpace := func() func(daemon.TypeStatus) bool {
		return func(st daemon.TypeStatus) bool {
			return st.LastError != nil && st.LastError.Code == indexer.CodeNoSpace && strings.Contains(st.LastError.Message, "no space left on device")
		}
	}
	checkFailure := func(st daemon.TypeStatus, gen int, snap int64) {
		t.Helper()
		if !strings.Contains(st.LastError.Message, filepath.Join(dataDir, "state.db")) {
			t.Errorf("the error does not name the store %s: %s", filepath.Join(dataDir, "state.db"), st.LastError.Message)
		}
		if st.Generation != gen || st.CheckpointSnapshotID != snap {
			t.Errorf("after the failure: generation %d at snapshot %d, want %d at %d", st.Generation, st.CheckpointSnapshotID, gen, snap)
		}
		if code, body := p.do(t, http.MethodGet, "/readyz", "", ""); code != http.StatusOK {
			t.Errorf("readyz on a full disk: %d %s", code, body)
		}
		t.Logf("failed as it should: %s: %s", st.LastError.Code, st.LastError.Message)
	}

	// An incremental build with no space left.
	before := readServed(t, p)
	if err := fs.Fill(0); err != nil {
		t.Fatal(err)
	}
	if err := people.Append(ctx, peopletest.Rows(20000, 10000, "late")); err != nil {
		t.Fatal(err)
	}
	st := p.waitStatus(t, "People", "the incremental build failing for want of space", noSpace())
	checkFailure(st, 1, first.CheckpointSnapshotID)
	if after := readServed(t, p); !reflect.DeepEqual(after, before) {
		t.Errorf("served on a full disk: %+v\nbefore: %+v", after, before)
	}
	if err := fs.Drain(); err != nil {
		t.Fatal(err)
	}
	st = p.waitStatus(t, "People", "the incremental build once the space is back", func(st daemon.TypeStatus) bool {
		return daemontest.UpToDate(people)(st) && st.LastError == nil
	})
	if st.Objects != 30000 || st.Generation != 1 || st.LastBuild.Kind != indexer.KindIncremental {
		t.Errorf("after the space came back: %+v", st)
	}

	// A full build into a new generation that fills the disk half way.
	before = readServed(t, p)
	slack := mustSpace(t, fs.Used) / 3
	if err := fs.Fill(slack); err != nil {
		t.Fatal(err)
	}
	if code, body := p.do(t, http.MethodPost, "/api/indexer/v1/objectTypes/People/rebuild", serveAdminToken, ""); code != http.StatusAccepted {
		t.Fatalf("rebuild: %d %s", code, body)
	}
	st = p.waitStatus(t, "People", "the full build failing for want of space", noSpace())
	checkFailure(st, 1, people.T.CurrentSnapshot().SnapshotID)
	if left := mustSpace(t, fs.Free); left > slack/2 {
		t.Errorf("%d KiB of the %d KiB left are still free: the build failed before it wrote much", left>>10, slack>>10)
	}
	if after := readServed(t, p); !reflect.DeepEqual(after, before) {
		t.Errorf("served while the full build failed: %+v\nbefore: %+v", after, before)
	}
	if err := fs.Drain(); err != nil {
		t.Fatal(err)
	}
	st = p.waitStatus(t, "People", "the full build once the space is back", func(st daemon.TypeStatus) bool {
		return st.Generation == 2 && daemontest.UpToDate(people)(st) && st.LastError == nil
	})
	if st.Objects != 30000 || st.LastBuild.Kind != indexer.KindFull {
		t.Errorf("after the full build: %+v", st)
	}
	if after := readServed(t, p); after.count != 30000 || !reflect.DeepEqual(after.get, before.get) {
		t.Errorf("served after the full build: %+v", after)
	}
	p.stop(t)
	if unbuilt := sw.match(t, map[string]string{"People": peopletest.People}); len(unbuilt) > 0 {
		t.Fatalf("not built: %v", unbuilt)
	}
}

// mustTmpfs mounts a tmpfs of size bytes on a new directory and unmounts
// it when the test ends. Mounting takes root on Linux: without it the test
// fails under CI=true (CI runs as root) and is skipped elsewhere, saying
// why.
func mustTmpfs(tb testing.TB, size int64) *tmpfs.FS {
	tb.Helper()
	if err := tmpfs.Supported(); err != nil {
		msg := "this test mounts a tmpfs: " + err.Error() + " (CI runs it as root on Linux)"
		if os.Getenv("CI") == "true" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	fs, err := tmpfs.Mount(tb.TempDir(), size)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		// After the serve process (whose kill was registered later) is gone.
		if err := fs.Unmount(); err != nil {
			tb.Error(err)
		}
	})
	return fs
}

// mustSpace is the free or used space of a tmpfs.
func mustSpace(tb testing.TB, space func() (int64, error)) int64 {
	tb.Helper()
	n, err := space()
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// waitFile waits until a file exists.
func waitFile(tb testing.TB, path string) {
	tb.Helper()
	deadline := time.Now().Add(waitLong)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%s was not written", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
