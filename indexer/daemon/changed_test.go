package daemon_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/indexer/daemon"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
	"github.com/ontoindex/ontoindex/internal/testkit/peopletest"
	"github.com/ontoindex/ontoindex/objects"
)

// waitChanged reads the status of name until cond holds, woken by nothing
// but d.Changed: a lost or missing notification leaves it waiting until
// waitTimeout, and it reports that as an error. It may run in any
// goroutine.
func waitChanged(d *daemon.Daemon, name string, cond func(daemon.TypeStatus) bool) (daemon.TypeStatus, error) {
	deadline := time.NewTimer(waitTimeout)
	defer deadline.Stop()
	for {
		changed := d.Changed()
		st, err := d.StatusOf(name)
		if err != nil {
			return st, err
		}
		if cond(st) {
			return st, nil
		}
		select {
		case <-changed:
		case <-deadline.C:
			return st, fmt.Errorf("%s: no change woke the waiter in %s; status %+v", name, waitTimeout, st)
		}
	}
}

// isClosed reports whether ch is closed, without waiting.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// TestDaemon_Changed: waiters on Changed are woken by the builds. The
// poll interval is an hour, so that nothing but the notifications of the
// first build and of a rebuild wakes them.
func TestDaemon_Changed(t *testing.T) {
	w := icebergtest.MustWarehouse(t)
	tbl := peopletest.MustPeople(t, w, peopletest.People, nil, 2, 5)
	cfg := daemonConfig(t, w, objects.TypeSpec{APIName: "Person", Table: peopletest.PeopleTable})
	cfg.Daemon.PollInterval = time.Hour
	ix := indexertest.Open(t, cfg)
	d, err := daemon.New(ix, daemon.Options{})
	if err != nil {
		t.Fatal(err)
	}
	before := d.Changed()
	if st, err := d.StatusOf("Person"); err != nil || st.Generation != 0 || st.TableSnapshotID != 0 {
		t.Fatalf("status before Run: %+v, %v", st, err)
	}
	if isClosed(before) || d.Changed() != before {
		t.Fatal("the channel changed before Run")
	}

	// Waiters that block before the first build.
	snap := tbl.T.CurrentSnapshot().SnapshotID
	built := func(gen int) func(daemon.TypeStatus) bool {
		return func(st daemon.TypeStatus) bool {
			return st.Generation == gen && st.State == daemon.StateIdle && st.CheckpointSnapshotID == snap && st.TableSnapshotID == snap
		}
	}
	const waiters = 4
	errs := make(chan error, waiters)
	for range waiters {
		go func() {
			st, err := waitChanged(d, "Person", built(1))
			if err == nil && st.Objects != 10 {
				err = fmt.Errorf("status %+v after the first build", st)
			}
			errs <- err
		}()
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	for range waiters {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if !isClosed(before) {
		t.Fatal("the channel taken before the first build is still open")
	}

	// A rebuild wakes a waiter too: the loop polls only when asked to.
	changed := d.Changed()
	if err := d.Rebuild("Person"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(waitTimeout):
		t.Fatal("the rebuild did not close the channel")
	}
	st, err := waitChanged(d, "Person", built(2))
	if err != nil {
		t.Fatal(err)
	}
	if st.LastBuild == nil || st.LastBuild.Kind != "full" || st.Objects != 10 {
		t.Fatalf("status %+v, lastBuild %+v after the rebuild", st, st.LastBuild)
	}
}

// TestDaemon_ChangedNoLostWakeup: a change made after the channel is
// taken and the status read closes that channel, so a waiter that reads
// and then waits cannot miss it. The daemon does not run: reloads make
// the only changes, and each is complete when Reload returns.
func TestDaemon_ChangedNoLostWakeup(t *testing.T) {
	ctx := context.Background()
	w := icebergtest.MustWarehouse(t)
	peopletest.MustPeople(t, w, peopletest.People, nil, 1, 3)
	spec := func(i int) objects.TypeSpec {
		return objects.TypeSpec{APIName: fmt.Sprintf("T%d", i), Table: peopletest.PeopleTable}
	}
	cfg := daemonConfig(t, w, spec(0))
	ix := indexertest.Open(t, cfg)
	d, err := daemon.New(ix, daemon.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// with returns a copy of cfg with the types T0 to Tn-1.
	with := func(n int) *config.Config {
		c := *cfg
		c.ObjectTypes = nil
		for i := range n {
			c.ObjectTypes = append(c.ObjectTypes, spec(i))
		}
		return &c
	}

	t.Run("between read and wait", func(t *testing.T) {
		changed := d.Changed()
		if n := len(d.Report().ObjectTypes); n != 1 {
			t.Fatalf("%d types, want 1", n)
		}
		if _, err := d.Reload(ctx, with(2)); err != nil {
			t.Fatal(err)
		}
		if !isClosed(changed) {
			t.Fatal("the reload did not close the channel taken before the read: its change is lost")
		}
		if n := len(d.Report().ObjectTypes); n != 2 {
			t.Fatalf("%d types after the reload, want 2", n)
		}
		next := d.Changed()
		if next == changed || isClosed(next) {
			t.Fatal("Changed after the change returns a closed channel")
		}
		if _, err := d.Reload(ctx, with(2)); err != nil {
			t.Fatal(err)
		}
		if !isClosed(next) {
			t.Fatal("a reload did not close the channel")
		}
	})

	t.Run("concurrent", func(t *testing.T) {
		// Each reload adds a type; only the last one makes the waiters'
		// condition true, so a waiter that misses its wake-up hangs.
		const last, waiters = 20, 4
		var wg sync.WaitGroup
		errs := make(chan error, waiters)
		for range waiters {
			wg.Go(func() {
				for {
					changed := d.Changed()
					n := len(d.Report().ObjectTypes)
					if n == last {
						return
					}
					select {
					case <-changed:
					case <-time.After(waitTimeout):
						errs <- fmt.Errorf("a waiter saw %d types and was never woken", n)
						return
					}
				}
			})
		}
		for n := 3; n <= last; n++ {
			if _, err := d.Reload(ctx, with(n)); err != nil {
				t.Fatal(err)
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
}
