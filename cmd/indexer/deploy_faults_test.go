package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/indexer/daemon"
	"github.com/ontoindex/ontoindex/internal/testkit/daemontest"
	"github.com/ontoindex/ontoindex/internal/testkit/deploytest"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
	"github.com/ontoindex/ontoindex/internal/testkit/peopletest"
)

// shown records everything a serve process showed: its output, and the
// bodies of the status, checks and metrics it answered; the secrets test
// greps it.
type shown struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *shown) add(what string, raw []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(&s.b, "== %s\n%s\n", what, raw)
}

func (s *shown) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// recordingStatus waits for a status of p as waitStatus does, recording
// every body.
func recordingStatus(tb testing.TB, p *serveProc, rec *shown, name, what string, cond func(daemon.TypeStatus) bool) daemon.TypeStatus {
	tb.Helper()
	get := func(name string) (daemon.TypeStatus, error) {
		code, raw := p.do(tb, http.MethodGet, "/api/indexer/v1/status/"+url.PathEscape(name), serveAppToken, "")
		rec.add("status "+name, raw)
		var st daemon.TypeStatus
		if code != http.StatusOK {
			return st, fmt.Errorf("status %d: %s", code, raw)
		}
		return st, json.Unmarshal(raw, &st)
	}
	return daemontest.WaitStatus(tb, daemontest.StatusFunc(get), name, what, cond)
}

// failingWith holds when the type's last error has the code and says
// every one of want.
func failingWith(code string, want ...string) func(daemon.TypeStatus) bool {
	return func(st daemon.TypeStatus) bool {
		if st.LastError == nil || st.LastError.Code != code {
			return false
		}
		for _, w := range want {
			if !strings.Contains(st.LastError.Message, w) {
				return false
			}
		}
		return true
	}
}

// at holds when the type is idle at snapshot snap with no error.
func at(snap int64) func(daemon.TypeStatus) bool {
	return func(st daemon.TypeStatus) bool {
		return st.State == daemon.StateIdle && st.CheckpointSnapshotID == snap && st.LastError == nil
	}
}

// TestDeploy_faults takes the storage away under a real `indexer serve`
// over a sql catalog on PostgreSQL and tables in S3: PostgreSQL restarted,
// the S3 key rotated (access denied) and rotated back, a data file deleted
// from the bucket and restored. Each time the status names the problem and
// the catalog or endpoint, searches keep answering from the last good
// state, and the daemon recovers by itself once the fault is gone. Then no
// secret (the S3 secret key, the PostgreSQL password) was shown anywhere:
// not in the output at debug level, nor in status, checks or metrics, nor
// on the command line.
func TestDeploy_faults(t *testing.T) {
	ctx := context.Background()
	d := deploytest.Must(t, deploytest.PostgresS3, deploytest.Options{})
	people := peopletest.MustPeople(t, d.Warehouse, peopletest.People, nil, 6, 20)
	d.Setenv(t)
	t.Setenv("INDEXER_LOG", "debug")
	cfg := d.MustConfig(t, "ontology.yaml", deploySections+peopletest.PeopleType)
	rec := &shown{}
	access, secret := d.S3.Credentials()
	rotated := secret + "-rotated"
	pgAddr := fmt.Sprintf("127.0.0.1:%d", d.PG.Port())

	// Wrong credentials on the command line: access denied, for the bucket.
	t.Run("wrong credentials", func(t *testing.T) {
		t.Setenv(deploytest.EnvS3SecretKey, "not-the-secret-key")
		code, out, errOut := run("build", "--config", cfg)
		rec.add("indexer build with a wrong secret", []byte(out+errOut))
		msg := out + errOut
		if code != exitFailed || !strings.Contains(msg, `access denied to bucket "lake"`) || !strings.Contains(msg, d.S3.Endpoint()) ||
			!strings.Contains(msg, "TABLE_NOT_AVAILABLE") || strings.Contains(msg, "not-the-secret-key") {
			t.Fatalf("build with a wrong secret: exit %d\n%s", code, msg)
		}
		for _, bad := range []string{"operation error", "RequestID", "https response error"} {
			if strings.Contains(msg, bad) {
				t.Errorf("the error shows the client's internals (%q):\n%s", bad, msg)
			}
		}
	})

	p := startServe(t, cfg)
	recordingStatus(t, p, rec, "People", "built", daemontest.UpToDate(people))
	edit := func(t *testing.T, id int, tag string) int64 {
		t.Helper()
		return d.Write(t, deploytest.Op{Table: peopletest.People, Kind: "overwrite", IDs: []int64{int64(id)}, Rows: []icebergtest.Row{peopletest.Row(id, tag)}})
	}
	serving := func(t *testing.T, what string) {
		t.Helper()
		if n := p.count(t, "People"); n != 120 {
			t.Errorf("%s: count %v, want the last good 120", what, n)
		}
	}

	t.Run("PostgreSQL restarted", func(t *testing.T) {
		if err := d.PG.Shutdown(); err != nil {
			t.Fatal(err)
		}
		st := recordingStatus(t, p, rec, "People", "the catalog's error", failingWith(indexer.CodeTableNotAvailable, pgAddr, peopletest.PeopleTable))
		t.Logf("status while PostgreSQL is down: %s", st.LastError.Message)
		serving(t, "PostgreSQL down")
		if err := d.PG.Restart(ctx); err != nil {
			t.Fatal(err)
		}
		snap := edit(t, 3, "after the restart")
		recordingStatus(t, p, rec, "People", "caught up after the restart", at(snap))
	})

	t.Run("S3 key rotated", func(t *testing.T) {
		if err := d.S3.RestartWith(ctx, access, rotated); err != nil {
			t.Fatal(err)
		}
		st := recordingStatus(t, p, rec, "People", "access denied", failingWith(indexer.CodeTableNotAvailable, `access denied to bucket "lake"`, d.S3.Endpoint()))
		t.Logf("status while the key is refused: %s", st.LastError.Message)
		serving(t, "access denied")
		if err := d.S3.RestartWith(ctx, access, secret); err != nil {
			t.Fatal(err)
		}
		snap := edit(t, 4, "after the rotation")
		recordingStatus(t, p, rec, "People", "caught up after the rotation back", at(snap))
	})

	t.Run("data file deleted", func(t *testing.T) {
		// A fresh handle: the pooled connections of the old one died with
		// the PostgreSQL restart.
		w, err := d.Warehouse.Reopen(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		now, err := w.LoadTable(ctx, peopletest.People)
		if err != nil {
			t.Fatal(err)
		}
		tasks, err := now.T.Scan().PlanFiles(ctx)
		if err != nil {
			t.Fatal(err)
		}
		lost := tasks[len(tasks)-1].File.FilePath()
		data, err := d.S3.ReadObject(ctx, lost)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.S3.DeleteObject(ctx, lost); err != nil {
			t.Fatal(err)
		}
		before := p.status(t, "People")
		if code, raw := p.do(t, http.MethodPost, "/api/indexer/v1/objectTypes/People/rebuild", serveAdminToken, ""); code != http.StatusAccepted {
			t.Fatalf("rebuild: %d %s", code, raw)
		}
		st := recordingStatus(t, p, rec, "People", "the missing file", failingWith(indexer.CodeTableNotAvailable, "no such object", `bucket "lake"`, lost))
		t.Logf("status while a data file is missing: %s", st.LastError.Message)
		serving(t, "a data file missing")
		if err := d.S3.WriteObject(ctx, lost, data); err != nil {
			t.Fatal(err)
		}
		st = recordingStatus(t, p, rec, "People", "rebuilt", func(st daemon.TypeStatus) bool {
			return at(before.CheckpointSnapshotID)(st) && st.Generation > before.Generation
		})
		if st.LastBuild.Kind != indexer.KindFull || st.Objects != 120 {
			t.Errorf("after the file came back: %+v", st)
		}
	})

	for _, path := range []string{"/api/indexer/v1/status", "/api/indexer/v1/checks/write-modes", "/metrics"} {
		_, raw := p.do(t, http.MethodGet, path, serveAdminToken, "")
		rec.add(path, raw)
	}
	p.stop(t)
	rec.add("indexer serve output", []byte(p.stderr.String()))
	all := rec.String()
	for _, s := range append(d.Secrets(), rotated) {
		if strings.Contains(all, s) {
			i := strings.Index(all, s)
			t.Errorf("secret %q shown: ...%s...", s, all[max(0, i-200):min(len(all), i+100)])
		}
	}
	for _, w := range []string{pgAddr, "access denied", "no such object"} {
		if !strings.Contains(all, w) {
			t.Errorf("the run never showed %q; the check above proves little", w)
		}
	}
}

// TestDeploy_s3StoppedMidBuild stops the S3 server in the middle of an
// incremental build that the daemon runs (from the build's progress
// callback, after its first record batch, so surely mid-build): the build
// fails naming the endpoint, the last good state keeps serving, and once
// the server is back the daemon's retry builds the commit, objects equal to
// the table's rows.
func TestDeploy_s3StoppedMidBuild(t *testing.T) {
	ctx := context.Background()
	d := deploytest.Must(t, deploytest.PostgresS3, deploytest.Options{})
	people := peopletest.MustPeople(t, d.Warehouse, peopletest.People, nil, 4, 20)
	d.Setenv(t)
	cfg, err := config.Load(d.MustConfig(t, "ontology.yaml", deploySections+peopletest.PeopleType))
	if err != nil {
		t.Fatal(err)
	}
	var armed, stopped atomic.Bool
	ix, err := indexer.Open(ctx, cfg, indexer.Options{Progress: func(p indexer.Progress) {
		if armed.Load() && p.Kind == indexer.KindIncremental && p.Rows > 0 && stopped.CompareAndSwap(false, true) {
			if err := d.S3.Shutdown(); err != nil {
				t.Error(err)
			}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	dm, err := daemon.New(ix, daemon.Options{})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- dm.Run(runCtx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	daemontest.WaitStatus(t, dm, "People", "built", daemontest.UpToDate(people))

	// One commit of four files, each a record batch of its own.
	armed.Store(true)
	if err := people.Commit(ctx, func(tx *table.Transaction) error {
		for f := range 4 {
			rdr, err := people.Records(peopletest.Rows(1000+f*20, 20, "added"))
			if err != nil {
				return err
			}
			err = tx.Append(ctx, rdr, nil)
			rdr.Release()
			if err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	st := daemontest.WaitStatus(t, dm, "People", "the build to fail", failingWith(indexer.CodeTableNotAvailable, "unreachable", d.S3.Endpoint(), `bucket "lake"`))
	if !stopped.Load() {
		t.Fatal("the build failed before the server was stopped")
	}
	t.Logf("status after the S3 server stopped mid-build: %s", st.LastError.Message)
	v, err := ix.View("People")
	if err != nil {
		t.Fatal(err)
	}
	if n := v.Count(); n != 80 || v.Checkpoint().SnapshotID == people.T.CurrentSnapshot().SnapshotID {
		t.Errorf("while S3 is down: %d objects at snapshot %d, want the last good 80", n, v.Checkpoint().SnapshotID)
	}
	v.Release()

	if err := d.S3.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	st = daemontest.WaitStatus(t, dm, "People", "recovered", daemontest.UpToDate(people))
	if st.Objects != 160 || st.LastBuild.Kind != indexer.KindIncremental || st.LastBuild.Upserts != 80 {
		t.Errorf("after the restart: %+v", st)
	}
	if err := indexertest.Match(ix, "People", people); err != nil {
		t.Error(err)
	}
}
