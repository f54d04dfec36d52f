package daemon

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/internal/jsonid"
	"github.com/ontoindex/ontoindex/objects"
)

// State is where an object type stands in the daemon.
type State string

// States of an object type.
const (
	// StateBuilding: a build is running.
	StateBuilding State = "building"
	// StateIdle: the last poll and build went well.
	StateIdle State = "idle"
	// StateFailing: the last build or poll failed; it is retried with
	// backoff.
	StateFailing State = "failing"
	// StateBlocked: the table's current snapshot has merge-on-read delete
	// files; the type waits until the table changes (compaction).
	StateBlocked State = "blocked"
)

// TypeStatus is where one object type stands: the body of the ops
// endpoint GET /api/indexer/v1/status/{objectType}.
type TypeStatus struct {
	ObjectType string `json:"objectType"`
	Table      string `json:"table"`
	State      State  `json:"state"`
	// CheckpointSnapshotID is the snapshot the index reflects (0: never
	// built); TableSnapshotID the table's current snapshot at the last poll
	// (0: not polled yet, or a table without snapshots). Strings in JSON,
	// which JavaScript and jq would round as numbers (package jsonid).
	CheckpointSnapshotID int64 `json:"checkpointSnapshotId,string"`
	TableSnapshotID      int64 `json:"tableSnapshotId,string"`
	// LagSnapshots counts the table's snapshots the index does not reflect;
	// LagSeconds is the time since the oldest of them was committed.
	LagSnapshots int     `json:"lagSnapshots"`
	LagSeconds   float64 `json:"lagSeconds"`
	// Generation serves reads (0: none yet); Objects is its object count.
	Generation int   `json:"generation"`
	Objects    int64 `json:"objects"`
	// LastBuild is the last build that moved the checkpoint (null: none),
	// with the read mode it ran with and, when full, why.
	LastBuild *indexer.BuildSummary `json:"lastBuild"`
	// MergeOnRead is "index" when the type indexes merge-on-read delete
	// files (mergeOnRead: index); absent when it refuses them.
	MergeOnRead objects.MergeOnReadPolicy `json:"mergeOnRead,omitempty"`
	// Backend is how the type's writes to and reads from its search
	// backend went (absent: the embedded index only).
	Backend *indexer.BackendStatus `json:"backend,omitempty"`
	// LastError is the error of the last build or poll, cleared by the next
	// successful build (null: none).
	LastError   *indexer.ErrorInfo  `json:"lastError"`
	InvalidRows indexer.InvalidRows `json:"invalidRows"`
	// RecentBuilds are the last builds the daemon ran, oldest first, at
	// most MaxRecentBuilds (empty without a daemon, and after a restart).
	RecentBuilds []BuildRecord `json:"recentBuilds"`
	// PolledAt is the time of the last successful poll; NextRetryAt the
	// earliest retry of a failing type.
	PolledAt    time.Time `json:"polledAt,omitzero"`
	NextRetryAt time.Time `json:"nextRetryAt,omitzero"`

	builtAt time.Time // when the checkpoint was written, for metrics
}

// UnmarshalJSON decodes the snapshot ids as strings or, as servers of
// earlier releases wrote them, as bare numbers: `indexer status` reads
// both.
func (st *TypeStatus) UnmarshalJSON(b []byte) error {
	type plain TypeStatus // without this method
	aux := struct {
		*plain
		Checkpoint jsonid.Int64 `json:"checkpointSnapshotId"`
		Table      jsonid.Int64 `json:"tableSnapshotId"`
	}{plain: (*plain)(st), Checkpoint: jsonid.Int64(st.CheckpointSnapshotID), Table: jsonid.Int64(st.TableSnapshotID)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	st.CheckpointSnapshotID, st.TableSnapshotID = int64(aux.Checkpoint), int64(aux.Table)
	return nil
}

// StatusReport is the status of every object type: the body of the ops
// endpoint GET /api/indexer/v1/status.
type StatusReport struct {
	// Ready is true when every object type has a generation to serve.
	Ready       bool         `json:"ready"`
	ObjectTypes []TypeStatus `json:"objectTypes"`
}

// Report returns the status of every object type, in config order.
func (d *Daemon) Report() StatusReport { return NewReport(d.Status()) }

// NewReport is the report of some object types: ready when each has a
// generation to serve.
func NewReport(sts []TypeStatus) StatusReport {
	rep := StatusReport{Ready: true, ObjectTypes: sts}
	if rep.ObjectTypes == nil {
		rep.ObjectTypes = []TypeStatus{}
	}
	for _, st := range sts {
		if st.Generation == 0 {
			rep.Ready = false
		}
	}
	return rep
}

// Status reports every object type, in config order.
func (d *Daemon) Status() []TypeStatus {
	now := d.now()
	d.mu.Lock()
	defer d.mu.Unlock()
	out := []TypeStatus{}
	for _, name := range d.ix.Types() {
		if r, ok := d.runs[name]; ok {
			out = append(out, d.statusLocked(r, now))
		}
	}
	return out
}

// StatusOf reports one object type.
func (d *Daemon) StatusOf(name string) (TypeStatus, error) {
	now := d.now()
	d.mu.Lock()
	defer d.mu.Unlock()
	r, ok := d.runs[name]
	if !ok {
		return TypeStatus{ObjectType: name}, fmt.Errorf("%w %q", indexer.ErrUnknownType, name)
	}
	return d.statusLocked(r, now), nil
}

// NotReady lists the object types that have no generation to serve yet;
// the daemon is ready when it is empty.
func (d *Daemon) NotReady() []string { return d.ix.NotReady() }

// EngineStatus is the status of an object type as the engine alone knows
// it: its checkpoint, whether a build runs, and the error of the last
// build. Nothing polls the table, so the table snapshot and the lag are
// unknown (0). A daemon adds what its loop knows (statusLocked); a server
// without one reports this.
func EngineStatus(es indexer.Status) TypeStatus {
	st := TypeStatus{ObjectType: es.ObjectType, Table: es.Table, State: StateIdle, InvalidRows: indexer.InvalidRows{Samples: []changelog.InvalidRow{}},
		RecentBuilds: []BuildRecord{}, MergeOnRead: es.MergeOnRead, Backend: es.Backend}
	if cp := es.Checkpoint; cp != nil {
		st.CheckpointSnapshotID, st.Generation, st.Objects, st.builtAt = cp.SnapshotID, cp.Generation, cp.Objects, cp.BuiltAt
		st.InvalidRows.Count = cp.InvalidRows.Count
		if len(cp.InvalidRows.Samples) > 0 {
			st.InvalidRows.Samples = cp.InvalidRows.Samples
		}
		if cp.LastBuild != nil {
			st.LastBuild = cp.LastBuild.Summary()
			if st.LastBuild.FinishedAt.IsZero() {
				st.LastBuild.FinishedAt = cp.BuiltAt
			}
		}
	}
	if es.LastError != nil {
		e := *es.LastError
		st.LastError = &e
		st.State = StateFailing
		if e.Code == indexer.CodeMergeOnRead {
			st.State = StateBlocked
		}
	}
	if es.Building {
		st.State = StateBuilding
	}
	return st
}

func (d *Daemon) statusLocked(r *typeRun, now time.Time) TypeStatus {
	es, err := d.ix.Status(r.name)
	if err != nil {
		return EngineStatus(indexer.Status{ObjectType: r.name})
	}
	st := EngineStatus(es)
	// The schedule, not the engine's last build, says whether the type is
	// failing or blocked: it counts failed polls too.
	st.State, st.LastError = StateIdle, nil
	cp := es.Checkpoint
	// The daemon's own result has the full duration; the one stored with
	// the checkpoint covers builds made elsewhere.
	if lb := r.lastBuild; cp != nil && lb != nil && lb.ToSnapshotID == cp.SnapshotID && lb.Generation == cp.Generation {
		st.LastBuild = lb.Summary()
	}
	if r.polled {
		st.TableSnapshotID, st.PolledAt = r.poll.snapshotID, r.poll.at.UTC()
		if cp == nil || cp.SnapshotID != r.poll.snapshotID {
			st.LagSnapshots = r.poll.lagSnapshots
			if !r.poll.oldest.IsZero() {
				st.LagSeconds = math.Round(max(now.Sub(r.poll.oldest).Seconds(), 0)*1000) / 1000
			}
		}
	}
	if r.lastErr != nil {
		e := *r.lastErr
		st.LastError = &e
	}
	st.RecentBuilds = append(st.RecentBuilds, r.history...)
	switch {
	// The engine's flag, read with the checkpoint, and not the daemon's:
	// a full build stops building when its generation is swapped in.
	case es.Building:
		st.State = StateBuilding
	case r.sched.blocked:
		st.State = StateBlocked
	case r.sched.failures > 0:
		st.State = StateFailing
		st.NextRetryAt = r.sched.retryAt.UTC()
	}
	return st
}

// lag counts the snapshots in the current snapshot's lineage that the
// checkpoint does not reflect, and returns the commit time of the oldest.
// A table rolled back to an ancestor of the checkpoint lags by one step,
// since the rollback was committed.
func lag(md table.Metadata, checkpoint int64) (int, time.Time) {
	cur := md.CurrentSnapshot()
	if cur == nil || cur.SnapshotID == checkpoint {
		return 0, time.Time{}
	}
	parent := func(s *table.Snapshot) *table.Snapshot {
		if s.ParentSnapshotID == nil {
			return nil
		}
		return md.SnapshotByID(*s.ParentSnapshotID)
	}
	indexed := map[int64]bool{}
	if checkpoint != 0 {
		for s := md.SnapshotByID(checkpoint); s != nil && !indexed[s.SnapshotID]; s = parent(s) {
			indexed[s.SnapshotID] = true
		}
	}
	n, oldest := 0, int64(0)
	seen := map[int64]bool{}
	for s := cur; s != nil && !indexed[s.SnapshotID] && !seen[s.SnapshotID]; s = parent(s) {
		seen[s.SnapshotID] = true
		n++
		oldest = s.TimestampMs
	}
	if n == 0 {
		return 1, time.UnixMilli(md.LastUpdatedMillis())
	}
	return n, time.UnixMilli(oldest)
}
