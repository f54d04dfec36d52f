package daemontest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/indexer/daemon"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

// Timeout bounds every wait: generous, since the tests run on a loaded
// machine, and only reached when something is wrong.
const Timeout = 3 * time.Minute

// Poll is how often WaitStatus reads a Source that does not notify.
const Poll = 10 * time.Millisecond

// Source reads the status of an object type; *daemon.Daemon is one.
type Source interface {
	StatusOf(name string) (daemon.TypeStatus, error)
}

// Notifier is a Source that tells when its status changes, as
// daemon.Daemon.Changed does: WaitStatus then reads after each change
// instead of every Poll.
type Notifier interface {
	Changed() <-chan struct{}
}

// StatusFunc is a Source that is a function, such as a GET of the ops
// endpoint /api/indexer/v1/status/{objectType}.
type StatusFunc func(name string) (daemon.TypeStatus, error)

// StatusOf calls f.
func (f StatusFunc) StatusOf(name string) (daemon.TypeStatus, error) { return f(name) }

// WaitStatus reads the status of object type name from src until cond
// holds, and returns that status. It fails tb when a read fails, and
// after Timeout with what (what it waited for) and the last status.
func WaitStatus(tb testing.TB, src Source, name, what string, cond func(daemon.TypeStatus) bool) daemon.TypeStatus {
	tb.Helper()
	n, _ := src.(Notifier)
	deadline := time.NewTimer(Timeout)
	defer deadline.Stop()
	for {
		var changed <-chan struct{}
		if n != nil {
			changed = n.Changed() // before the read: no change is lost
		}
		st, err := src.StatusOf(name)
		if err != nil {
			tb.Fatalf("%s: status: %v", name, err)
		}
		if cond(st) {
			return st
		}
		var poll <-chan time.Time
		if changed == nil {
			poll = time.After(Poll)
		}
		select {
		case <-changed:
		case <-poll:
		case <-deadline.C:
			js, _ := json.MarshalIndent(st, "", "  ")
			tb.Fatalf("%s: timed out after %s waiting for %s; status:\n%s", name, Timeout, what, js)
		}
	}
}

// UpToDate holds when the type is idle with the table's current snapshot
// (as it is when UpToDate is called) both indexed and seen by the last
// poll.
func UpToDate(tbl *icebergtest.Table) func(daemon.TypeStatus) bool {
	id := tbl.T.CurrentSnapshot().SnapshotID
	return func(st daemon.TypeStatus) bool {
		return st.State == daemon.StateIdle && st.CheckpointSnapshotID == id && st.TableSnapshotID == id
	}
}
