package indexer

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/apache/iceberg-go/catalog"
	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/cowguard"
	"github.com/ontoindex/ontoindex/indexer/config"
)

// Sentinel errors of the engine. Callers branch with errors.Is; builds
// also fail with the typed errors of packages cowguard
// (*MergeOnReadError) and changelog (*DuplicateKeyError,
// *InvalidRowError), with *SchemaError below, and with
// *config.StorageError (a refused or failed request to the tables'
// object store). ErrorCode classifies them all for status and metrics.
var (
	// ErrUnknownType reports an object type the config does not declare.
	ErrUnknownType = errors.New("unknown object type")
	// ErrNotBuilt reports an object type that has never been built.
	ErrNotBuilt = errors.New("object type has not been built yet")
	// ErrClosed reports a use of a closed indexer.
	ErrClosed = errors.New("indexer is closed")
	// ErrInvalidConfig wraps the reasons a reload rejected a new config.
	ErrInvalidConfig = errors.New("invalid config")
	// ErrIncrementalRequired: the type sets requireIncremental and the
	// build would have to be full.
	ErrIncrementalRequired = errors.New("a full build is needed but requireIncremental is set")
	// ErrSnapshotNotFound: the requested snapshot is not in the table.
	ErrSnapshotNotFound = errors.New("snapshot not found")
	// ErrStoreMoved: a held snapshot whose objects are read from the
	// store (Snapshot.Readable is false) can no longer be read, because a
	// build has committed since it was held (HeldSnapshot.View).
	ErrStoreMoved = errors.New("the store has moved past the held snapshot")
	// ErrNoIndex: the read needs the embedded index, which the object
	// type does not keep (its backend's embeddedIndex is none); the error
	// is a *NoIndexError.
	ErrNoIndex = errors.New("the object type keeps no embedded index")
)

// NoIndexError is a read refused because only the embedded index answers
// it and the object type keeps none (lean.go): it names the type, the
// read, and the config that would allow it.
type NoIndexError struct {
	ObjectType string
	// Read is what was asked ("relevance order", "links (searchAround)").
	Read    string
	Backend string
	// Cause is why the backend did not answer it, when it was asked first.
	Cause error
	// Why is Cause's message when it is the backend's refusal of what it
	// does not support, which users may read ("" otherwise).
	Why string
}

// Config is the config key that allows the read.
func (e *NoIndexError) Config() string { return "backends." + e.Backend + ".embeddedIndex" }

func (e *NoIndexError) Error() string {
	msg := fmt.Sprintf("object type %s: %s needs the embedded index, which the type does not keep (%s is %s; %s answers it)",
		e.ObjectType, e.Read, e.Config(), config.EmbeddedIndexNone, config.EmbeddedIndexFull)
	if e.Cause != nil {
		msg += ": the backend refused it: " + e.Cause.Error()
	}
	return msg
}

func (e *NoIndexError) Is(target error) bool { return target == ErrNoIndex }
func (e *NoIndexError) Unwrap() error        { return e.Cause }

// ErrorInfo is an error as builds and status report it.
type ErrorInfo struct {
	Code    string    `json:"code"`
	Message string    `json:"message"`
	At      time.Time `json:"at,omitzero"`
	// MergeOnRead details a refusal of code MERGE_ON_READ (null for other
	// codes), so that a reader needs not parse the message.
	MergeOnRead *MergeOnReadInfo `json:"mergeOnRead,omitempty"`
	// TableMissing: the catalog has no such table (code
	// TABLE_NOT_AVAILABLE), as opposed to one it could not reach or read.
	TableMissing bool `json:"tableMissing,omitempty"`
}

// MergeOnReadInfo is a merge-on-read refusal (*cowguard.MergeOnReadError)
// as status reports it: the refused snapshot, its live delete files, the
// table's write modes and the fix.
type MergeOnReadInfo struct {
	Table           string                `json:"table"`
	SnapshotID      int64                 `json:"snapshotId,string"`
	Operation       string                `json:"operation,omitempty"`
	LiveDeleteFiles cowguard.DeleteCounts `json:"liveDeleteFiles"`
	WriteModes      cowguard.Modes        `json:"writeModes"`
	Fix             string                `json:"fix"`
}

// NewErrorInfo is err as builds and status report it, at time at (zero:
// no time).
func NewErrorInfo(err error, at time.Time) *ErrorInfo {
	e := &ErrorInfo{Code: ErrorCode(err), Message: err.Error(), At: at, TableMissing: errors.Is(err, catalog.ErrNoSuchTable)}
	var mor *cowguard.MergeOnReadError
	if errors.As(err, &mor) {
		e.MergeOnRead = &MergeOnReadInfo{Table: mor.Table, SnapshotID: mor.SnapshotID, Operation: mor.Operation,
			LiveDeleteFiles: mor.Deletes, WriteModes: mor.Modes, Fix: cowguard.Fix}
	}
	return e
}

// Error codes of failed builds.
const (
	CodeMergeOnRead       = "MERGE_ON_READ"
	CodeDuplicateKeys     = "DUPLICATE_PRIMARY_KEYS"
	CodeInvalidRow        = "INVALID_ROW"
	CodeSchemaMismatch    = "SCHEMA_MISMATCH"
	CodeIncrementalNeeded = "INCREMENTAL_REQUIRED"
	CodeSnapshotNotFound  = "SNAPSHOT_NOT_FOUND"
	CodeTableNotAvailable = "TABLE_NOT_AVAILABLE"
	CodeNoSpace           = "NO_SPACE" // the data dir's disk is full
	CodeCanceled          = "CANCELED"
	CodeInternal          = "INTERNAL"
	CodeUnknownObjectType = "UNKNOWN_OBJECT_TYPE"
)

// SchemaError reports a mapping that does not fit the table's schema.
type SchemaError struct {
	ObjectType string
	Table      string
	SchemaID   int
	Err        error
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("object type %s: %v (table %s, schema id %d)", e.ObjectType, e.Err, e.Table, e.SchemaID)
}

func (e *SchemaError) Unwrap() error { return e.Err }

// tableError reports a table that could not be loaded or read.
type tableError struct{ err error }

func (e *tableError) Error() string { return e.err.Error() }
func (e *tableError) Unwrap() error { return e.err }

// ErrorCode classifies a build error.
func ErrorCode(err error) string {
	var mor *cowguard.MergeOnReadError
	var dup *changelog.DuplicateKeyError
	var inv *changelog.InvalidRowError
	var sch *SchemaError
	var te *tableError
	var se *config.StorageError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &mor):
		return CodeMergeOnRead
	case errors.As(err, &dup):
		return CodeDuplicateKeys
	case errors.As(err, &inv):
		return CodeInvalidRow
	case errors.As(err, &sch):
		return CodeSchemaMismatch
	case errors.Is(err, ErrIncrementalRequired):
		return CodeIncrementalNeeded
	case errors.Is(err, ErrSnapshotNotFound):
		return CodeSnapshotNotFound
	case errors.Is(err, ErrUnknownType):
		return CodeUnknownObjectType
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return CodeCanceled
	case errors.Is(err, syscall.ENOSPC):
		return CodeNoSpace
	case errors.As(err, &te), errors.As(err, &se):
		return CodeTableNotAvailable
	}
	return CodeInternal
}
