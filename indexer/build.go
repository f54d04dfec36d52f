package indexer

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/ontoindex/ontoindex/internal/jsonid"
	"github.com/ontoindex/ontoindex/objects"
)

// Kind is the kind of a build.
type Kind string

// Build kinds.
const (
	KindFull        Kind = "full"
	KindIncremental Kind = "incremental"
	KindNone        Kind = "none"
)

// BuildOptions select what a build does.
type BuildOptions struct {
	// Full forces a full build into a new generation.
	Full bool
	// SnapshotID builds to this snapshot instead of the current one.
	SnapshotID int64
	// Polled is the type's table as the caller just loaded it (Poll): the
	// build targets its current snapshot rather than loading the table
	// again, unless the type's table changed since.
	Polled *Polled
}

// BuildResult reports one build of one object type. Its JSON is what
// `indexer build --json` prints, and part of the stored checkpoint; the
// snapshot ids are strings there (package jsonid tells why).
type BuildResult struct {
	ObjectType string `json:"objectType"`
	Kind       Kind   `json:"kind"`
	// ReadMode is the read mode the build ran with; Reason, for a full
	// build, says why it was full (first build, --full, the mapping
	// changed, an overwrite snapshot in an appendOnly range, ...).
	ReadMode       objects.ReadMode `json:"readMode,omitempty"`
	Reason         string           `json:"reason,omitempty"`
	FromSnapshotID int64            `json:"fromSnapshotId,string"`
	ToSnapshotID   int64            `json:"toSnapshotId,string"`
	FilesRead      int              `json:"filesRead"`
	BytesRead      int64            `json:"bytesRead"`
	RowsRead       int64            `json:"rowsRead"`
	Upserts        int64            `json:"upserts"`
	Deletes        int64            `json:"deletes"`
	SkippedRows    int64            `json:"skippedRows"`
	// What merge-on-read delete files cost (mergeOnRead: index): the
	// delete files read, the deleted positions and keys applied to the
	// baseline, and the data files an equality delete on other columns
	// read; their bytes are in BytesRead.
	DeleteFilesRead      int        `json:"deleteFilesRead,omitempty"`
	PositionsApplied     int64      `json:"positionsApplied,omitempty"`
	KeysApplied          int64      `json:"keysApplied,omitempty"`
	EqualityFilesScanned int        `json:"equalityFilesScanned,omitempty"`
	DurationMs           int64      `json:"durationMs"`
	Generation           int        `json:"generation,omitempty"`
	FinishedAt           time.Time  `json:"finishedAt"`
	Error                *ErrorInfo `json:"error,omitempty"`
}

// Build builds one object type to the current snapshot of its table, or to
// opts.SnapshotID. The result is returned even on error, with Error set.
func (ix *Indexer) Build(ctx context.Context, name string, opts BuildOptions) (*BuildResult, error) {
	res := &BuildResult{ObjectType: name, Kind: KindNone}
	start := time.Now()
	ts, err := ix.lockBuild(name)
	if err == nil {
		ts.mu.Lock()
		ts.building = true
		ts.mu.Unlock()
		err = (&buildJob{ix: ix, ts: ts, opts: opts, res: res, start: start}).run(ctx)
		err = ix.Config().Explain(ts.spec.Table, err)
		ts.mu.Lock()
		ts.building = false
		ts.lastAt = time.Now()
		if err != nil {
			ts.lastErr = NewErrorInfo(err, ts.lastAt)
		} else {
			ts.lastErr = nil
		}
		ts.mu.Unlock()
		ts.buildMu.Unlock()
	}
	res.DurationMs = time.Since(start).Milliseconds()
	res.FinishedAt = time.Now().UTC()
	if err != nil {
		// Nothing of a failed build is served: report what it read, not
		// what it would have applied.
		res.Upserts, res.Deletes, res.SkippedRows = 0, 0, 0
		res.Error = NewErrorInfo(err, time.Time{})
		// Returned, so reported by the caller (the command line, the
		// daemon's status and events); a warning here too printed every
		// failed build twice.
		ix.log.Debug("build failed", "objectType", name, "code", res.Error.Code, "error", err)
	} else {
		ix.log.Info("build done", "objectType", name, "kind", res.Kind, "readMode", res.ReadMode, "reason", res.Reason, "from", res.FromSnapshotID, "to", res.ToSnapshotID,
			"filesRead", res.FilesRead, "rowsRead", res.RowsRead, "upserts", res.Upserts, "deletes", res.Deletes, "ms", res.DurationMs)
	}
	return res, err
}

// BuildAll builds every object type, at most daemon.maxConcurrentBuilds
// at once (the limit the daemon keeps), and returns the results in config
// order. Builds of different types share nothing but the store's one
// writer, which they take in turns, one chunk or commit at a time; the
// rest of their work (reading, converting, indexing) runs side by side.
func (ix *Indexer) BuildAll(ctx context.Context, opts BuildOptions) []*BuildResult {
	names := ix.Types()
	out := make([]*BuildResult, len(names))
	slots := make(chan struct{}, max(1, ix.Config().Daemon.WithDefaults().MaxConcurrentBuilds))
	var wg sync.WaitGroup
	for i, name := range names {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			out[i], _ = ix.Build(ctx, name, opts)
		})
	}
	wg.Wait()
	return out
}

// BuildSummary is a finished build as status reports it; From and To are
// snapshot ids, strings in JSON (package jsonid).
type BuildSummary struct {
	Kind        Kind             `json:"kind"`
	ReadMode    objects.ReadMode `json:"readMode,omitempty"`
	Reason      string           `json:"reason,omitempty"`
	From        int64            `json:"from,string"`
	To          int64            `json:"to,string"`
	Generation  int              `json:"generation"`
	FilesRead   int              `json:"filesRead"`
	BytesRead   int64            `json:"bytesRead"`
	RowsRead    int64            `json:"rowsRead"`
	Upserts     int64            `json:"upserts"`
	Deletes     int64            `json:"deletes"`
	SkippedRows int64            `json:"skippedRows"`
	// Merge-on-read costs (BuildResult).
	DeleteFilesRead      int       `json:"deleteFilesRead,omitempty"`
	PositionsApplied     int64     `json:"positionsApplied,omitempty"`
	KeysApplied          int64     `json:"keysApplied,omitempty"`
	EqualityFilesScanned int       `json:"equalityFilesScanned,omitempty"`
	DurationMs           int64     `json:"durationMs"`
	FinishedAt           time.Time `json:"finishedAt"`
}

// Summary is the status form of a build result.
func (r *BuildResult) Summary() *BuildSummary {
	return &BuildSummary{Kind: r.Kind, ReadMode: r.ReadMode, Reason: r.Reason, From: r.FromSnapshotID, To: r.ToSnapshotID, Generation: r.Generation,
		FilesRead: r.FilesRead, BytesRead: r.BytesRead, RowsRead: r.RowsRead, Upserts: r.Upserts, Deletes: r.Deletes,
		SkippedRows: r.SkippedRows, DeleteFilesRead: r.DeleteFilesRead, PositionsApplied: r.PositionsApplied, KeysApplied: r.KeysApplied,
		EqualityFilesScanned: r.EqualityFilesScanned, DurationMs: r.DurationMs, FinishedAt: r.FinishedAt}
}

// UnmarshalJSON decodes the snapshot ids as strings or, as data dirs of
// earlier releases stored them in checkpoints, as bare numbers.
func (r *BuildResult) UnmarshalJSON(b []byte) error {
	type plain BuildResult // without this method
	aux := struct {
		*plain
		From jsonid.Int64 `json:"fromSnapshotId"`
		To   jsonid.Int64 `json:"toSnapshotId"`
	}{plain: (*plain)(r), From: jsonid.Int64(r.FromSnapshotID), To: jsonid.Int64(r.ToSnapshotID)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	r.FromSnapshotID, r.ToSnapshotID = int64(aux.From), int64(aux.To)
	return nil
}

// UnmarshalJSON decodes the snapshot ids as strings or, as servers of
// earlier releases wrote them, as bare numbers.
func (s *BuildSummary) UnmarshalJSON(b []byte) error {
	type plain BuildSummary
	aux := struct {
		*plain
		From jsonid.Int64 `json:"from"`
		To   jsonid.Int64 `json:"to"`
	}{plain: (*plain)(s), From: jsonid.Int64(s.From), To: jsonid.Int64(s.To)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	s.From, s.To = int64(aux.From), int64(aux.To)
	return nil
}
