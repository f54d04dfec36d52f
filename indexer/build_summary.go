package indexer

import "time"

// BuildSummary is a finished build as status reports it.
type BuildSummary struct {
	Kind        Kind      `json:"kind"`
	From        int64     `json:"from"`
	To          int64     `json:"to"`
	Generation  int       `json:"generation"`
	FilesRead   int       `json:"filesRead"`
	BytesRead   int64     `json:"bytesRead"`
	RowsRead    int64     `json:"rowsRead"`
	Upserts     int64     `json:"upserts"`
	Deletes     int64     `json:"deletes"`
	SkippedRows int64     `json:"skippedRows"`
	DurationMs  int64     `json:"durationMs"`
	FinishedAt  time.Time `json:"finishedAt"`
}

// Summary is the status form of a build result.
func (r *BuildResult) Summary() *BuildSummary {
	return &BuildSummary{Kind: r.Kind, From: r.FromSnapshotID, To: r.ToSnapshotID, Generation: r.Generation,
		FilesRead: r.FilesRead, BytesRead: r.BytesRead, RowsRead: r.RowsRead, Upserts: r.Upserts, Deletes: r.Deletes,
		SkippedRows: r.SkippedRows, DurationMs: r.DurationMs, FinishedAt: r.FinishedAt}
}
