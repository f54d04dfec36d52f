package changelog

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go/table"
)

// Metadata columns of a replayed changelog, named as Spark names them. They
// follow the table columns in every record batch Replay yields.
const (
	ChangeTypeColumn     = "_change_type"        // string: INSERT, DELETE, UPDATE_BEFORE, UPDATE_AFTER
	ChangeOrdinalColumn  = "_change_ordinal"     // int32: position of the snapshot in the range
	CommitSnapshotColumn = "_commit_snapshot_id" // int64: the snapshot that made the change
)

// Updates says whether a replay turns a DELETE and an INSERT of one
// identifier in one snapshot into an UPDATE_BEFORE and UPDATE_AFTER pair
// (Spark's compute_updates).
type Updates int

// Update-image settings.
const (
	// UpdatesAuto computes update images when Options.Identifiers is set.
	UpdatesAuto Updates = iota
	// UpdatesOn computes update images, by the table's identifier fields
	// when Options.Identifiers is empty.
	UpdatesOn
	// UpdatesOff never computes update images.
	UpdatesOff
)

// Default buffering of a replay.
const (
	// DefaultBufferBytes is how many bytes of decoded record batches one
	// snapshot's replay keeps in memory to avoid reading its files twice.
	DefaultBufferBytes = 64 << 20
)

// Options select the range and the shape of a replay.
type Options struct {
	// From is the exclusive start of the range. 0 starts before the oldest
	// ancestor of To, so that its changes are included. An expired From is
	// accepted as long as its child is still an ancestor of To.
	From int64
	// To is the inclusive end of the range; 0 is the current snapshot.
	To int64

	// Identifiers are the columns that identify a row across an update
	// (Spark's identifier_columns).
	Identifiers []string
	// Updates controls update images; see Updates.
	Updates Updates
	// Net emits only net changes over the whole range (Spark's
	// net_changes): identical rows cancel between INSERT and DELETE across
	// snapshots. Incompatible with update images.
	Net bool
	// Latest emits one change per identifier: the last one in the range
	// (INSERT, UPDATE_AFTER or DELETE). It uses Identifiers, or the table's
	// identifier fields.
	Latest bool

	// BatchRows is the number of rows per record batch read from data
	// files (default DefaultBatchRows). Output batches hold at most that
	// many rows, except in net mode where a repeated net change repeats
	// its row.
	BatchRows int
	// BufferBytes bounds the decoded record batches one snapshot keeps in
	// memory so that its files are read once (default DefaultBufferBytes).
	// A snapshot whose changes are larger is read twice; a negative value
	// always reads twice.
	BufferBytes int64
	// Table names the table in errors (default: its identifier).
	Table string

	// planner forces a file planner; tests use it to compare both.
	planner plannerKind
}

// SnapshotChange is one snapshot of a replayed range.
type SnapshotChange struct {
	Ordinal      int    `json:"ordinal"`
	SnapshotID   int64  `json:"snapshotId"`
	Operation    string `json:"operation"`
	AddedFiles   int    `json:"addedFiles"`
	DeletedFiles int    `json:"deletedFiles"`
}

// ReplayStats counts what a replay did.
type ReplayStats struct {
	FilesRead     int   // data file reads, a file read twice counted twice
	RowsRead      int64 // rows read from data files
	CarryOvers    int64 // DELETE and INSERT row pairs that cancelled within a snapshot (net mode: within the range)
	Inserts       int64 // rows emitted, by change type
	Deletes       int64
	UpdatesBefore int64
	UpdatesAfter  int64
	// PeakTrackedRows is the largest number of distinct row values (or
	// identifiers, in latest mode) tracked at once: memory grows with it.
	PeakTrackedRows int
}

// ErrInvalidOptions reports options that contradict each other or the
// table. Replay wraps it with the reason.
var ErrInvalidOptions = errors.New("invalid changelog options")

// Range errors, wrapped by *RangeError.
var (
	ErrSnapshotNotFound = errors.New("snapshot not found")
	ErrNotAncestor      = errors.New("snapshot is not an ancestor")
	ErrEmptyRange       = errors.New("empty snapshot range")
)

// RangeError reports a snapshot range that cannot be replayed. Err is one
// of ErrSnapshotNotFound, ErrNotAncestor and ErrEmptyRange.
type RangeError struct {
	Table    string
	From, To int64 // as asked; 0 when not given
	Err      error
	Detail   string
}

func (e *RangeError) Error() string {
	return fmt.Sprintf("table %s: changelog from %s to %s: %s", e.Table, snapName(e.From, "the first snapshot"), snapName(e.To, "the current snapshot"), e.Detail)
}

func (e *RangeError) Unwrap() error { return e.Err }

func snapName(id int64, zero string) string {
	if id == 0 {
		return zero
	}
	return fmt.Sprintf("snapshot %d", id)
}

// DuplicateIdentifierError fails a replay that computes update images (or
// identifier-latest changes) when one snapshot deletes, or in latest mode
// inserts, the same identifier more than once.
type DuplicateIdentifierError struct {
	Table       string
	SnapshotID  int64
	Ordinal     int
	Identifiers []string
	Key         string // the identifier values, "id=1, name=a"
	Change      ChangeType
	Count       int
}

func (e *DuplicateIdentifierError) Error() string {
	verb := "deletes"
	if e.Change == Insert {
		verb = "inserts"
	}
	return fmt.Sprintf("table %s snapshot %d (ordinal %d) %s %d rows with identifier %s: cannot compute update images; the identifier columns (%s) must be unique",
		e.Table, e.SnapshotID, e.Ordinal, verb, e.Count, e.Key, strings.Join(e.Identifiers, ", "))
}

// Changelog is a planned replay: the snapshots of a range and the data
// files each added and removed. Records reads them. A Changelog is not safe
// for concurrent use.
type Changelog struct {
	tbl         *table.Table
	name        string
	from, to    int64
	mode        mode
	ids         []string
	idIdx       []int
	data        *arrow.Schema // the table columns at To
	out         *arrow.Schema // data plus the metadata columns
	steps       []step
	skipped     []int64
	scan        *table.Scan
	bufferBytes int64
	planner     plannerKind
	stats       ReplayStats
}

// Schema is the schema of the record batches: the table columns at the end
// of the range (the current schema when it ends at the current snapshot),
// then _change_type, _change_ordinal and _commit_snapshot_id.
func (c *Changelog) Schema() *arrow.Schema { return c.out }

// Range returns the resolved range (from, to]: from is 0 when the range
// starts at the table's first snapshot, or the (expired) parent of the
// oldest snapshot still in the table's metadata.
func (c *Changelog) Range() (from, to int64) { return c.from, c.to }

// Identifiers are the identifier columns the replay uses, nil when none.
func (c *Changelog) Identifiers() []string { return slices.Clone(c.ids) }

// Snapshots lists the snapshots that take an ordinal, oldest first.
func (c *Changelog) Snapshots() []SnapshotChange {
	out := make([]SnapshotChange, len(c.steps))
	for i, s := range c.steps {
		out[i] = SnapshotChange{Ordinal: s.ordinal, SnapshotID: s.snapshotID, Operation: s.operation}
		for _, f := range s.files {
			if f.deleted {
				out[i].DeletedFiles++
			} else {
				out[i].AddedFiles++
			}
		}
	}
	return out
}

// Skipped lists the replace snapshots of the range (compactions, manifest
// rewrites), which change no rows and take no ordinal.
func (c *Changelog) Skipped() []int64 { return slices.Clone(c.skipped) }

// Stats counts what the last call of Records did so far.
func (c *Changelog) Stats() ReplayStats { return c.stats }

// errStopped ends a replay whose consumer stopped iterating.
var errStopped = errors.New("changelog: iteration stopped")

// Records streams the changes as record batches with Schema. Each batch is
// released after the loop body returns; Retain it to keep it. An error
// ends the sequence. Records can be called again to replay again.
func (c *Changelog) Records(ctx context.Context) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		err := c.run(ctx, func(rec arrow.RecordBatch) error {
			if !yield(rec, nil) {
				return errStopped
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStopped) {
			yield(nil, err)
		}
	}
}
