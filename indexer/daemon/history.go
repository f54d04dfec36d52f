package daemon

import (
	"encoding/json"
	"math"
	"time"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/internal/jsonid"
)

// MaxRecentBuilds bounds the builds a status lists in recentBuilds: the
// ring of each object type's last builds, in memory only (a restart starts
// it empty), for charts of build durations and lag over the recent past.
const MaxRecentBuilds = 60

// BuildRecord is one build the daemon ran, successful or failed, as a
// status lists it in recentBuilds. Builds that found nothing to do and
// builds interrupted by a shutdown or a reload are not recorded.
type BuildRecord struct {
	FinishedAt time.Time    `json:"finishedAt"`
	Kind       indexer.Kind `json:"kind"`
	// To is the snapshot the build went to (refused, for a merge-on-read
	// refusal); a string in JSON (package jsonid).
	To         int64 `json:"to,string"`
	DurationMs int64 `json:"durationMs"`
	FilesRead  int   `json:"filesRead"`
	BytesRead  int64 `json:"bytesRead"`
	Upserts    int64 `json:"upserts"`
	Deletes    int64 `json:"deletes"`
	// LagSeconds is the lag when the build ended: the time since the
	// commit of the oldest snapshot the index did not reflect when the
	// build started. For a successful build it is that commit's time to
	// searchable; 0 when the build brought in no new snapshot (a rebuild).
	LagSeconds float64 `json:"lagSeconds"`
	// Error is the error code of a failed build ("": it succeeded).
	Error string `json:"error,omitempty"`
}

// UnmarshalJSON decodes the snapshot id as a string or, as servers of
// earlier releases would have written it, a bare number.
func (b *BuildRecord) UnmarshalJSON(raw []byte) error {
	type plain BuildRecord // without this method
	aux := struct {
		*plain
		To jsonid.Int64 `json:"to"`
	}{plain: (*plain)(b), To: jsonid.Int64(b.To)}
	if err := json.Unmarshal(raw, &aux); err != nil {
		return err
	}
	b.To = int64(aux.To)
	return nil
}

// recordBuild appends a finished build to the ring of the type; oldest is
// the commit time of the oldest unindexed snapshot the build started
// from. Callers hold Daemon.mu.
func (r *typeRun) recordBuild(res *indexer.BuildResult, oldest, now time.Time) {
	rec := BuildRecord{FinishedAt: res.FinishedAt, Kind: res.Kind, To: res.ToSnapshotID, DurationMs: res.DurationMs,
		FilesRead: res.FilesRead, BytesRead: res.BytesRead, Upserts: res.Upserts, Deletes: res.Deletes}
	if rec.FinishedAt.IsZero() {
		rec.FinishedAt = now.UTC()
	}
	if !oldest.IsZero() {
		rec.LagSeconds = math.Round(max(now.Sub(oldest).Seconds(), 0)*1000) / 1000
	}
	if res.Error != nil {
		rec.Error = res.Error.Code
	}
	if len(r.history) == MaxRecentBuilds {
		r.history = append(r.history[:0], r.history[1:]...)
	}
	r.history = append(r.history, rec)
}

// failedAt is the error of a failed build as the daemon keeps it: the
// build's own, stamped with the time the daemon saw it.
func failedAt(e *indexer.ErrorInfo, now time.Time) *indexer.ErrorInfo {
	c := *e
	c.At = now.UTC()
	return &c
}
