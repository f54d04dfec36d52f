package indexer

import (
	"errors"
	"sync"
	"time"

	"github.com/ontoindex/ontoindex/indexer/backend/opensearch"
)

// BackendStatus is how an object type's writes to its search backend and
// its reads from it went since the indexer opened (or the type's config
// last changed).
type BackendStatus struct {
	Backend string `json:"backend"`
	// EmbeddedIndex is the backend's embeddedIndex: whether the type
	// also keeps the embedded index (full) or not (none).
	EmbeddedIndex string `json:"embeddedIndex"`
	// Writes counts the bulk writes the backend acknowledged; BulkLatencyMs
	// is the duration of the last, MeanBulkLatencyMs their mean.
	Writes            int64   `json:"writes"`
	BulkLatencyMs     float64 `json:"bulkLatencyMs"`
	MeanBulkLatencyMs float64 `json:"meanBulkLatencyMs"`
	// Indexed, Deleted and Stale count the documents the writes indexed,
	// deleted, and found the backend to hold at their version or a newer
	// one already (a replay).
	Indexed int64 `json:"indexed"`
	Deleted int64 `json:"deleted"`
	Stale   int64 `json:"stale"`
	// Retries counts the documents sent again after the backend refused
	// them for load (429); Rejections the writes the backend refused a
	// document of (a value its mapping cannot take); Failures every failed
	// request of a build (writes, rejections included, and the requests
	// that find, create and publish its generation).
	Retries    int64 `json:"retries"`
	Rejections int64 `json:"rejections"`
	Failures   int64 `json:"failures"`
	// Reads counts the searches and aggregations the backend answered (a
	// page larger than its window is several), MeanReadLatencyMs their
	// mean duration, the wait for a connection included
	// (backends.<name>.connectionsPerNode); ReadFailures the ones it did
	// not answer (unreachable, an error, a query it refused), of which
	// Fallbacks counts those it refused and the embedded index answered.
	// A read whose caller gave up is in neither.
	Reads             int64   `json:"reads"`
	MeanReadLatencyMs float64 `json:"meanReadLatencyMs"`
	ReadFailures      int64   `json:"readFailures"`
	Fallbacks         int64   `json:"fallbacks"`
	// LagSeconds is how long the backend has been behind the table: since
	// the first failed request of a build after the last that went
	// through (0 while they go through). LastError is the last failure's
	// error.
	LagSeconds float64    `json:"lagSeconds"`
	LastError  *ErrorInfo `json:"lastError,omitempty"`
	LastWrite  time.Time  `json:"lastWrite,omitzero"`
}

// backendStats gathers a type's BackendStatus.
type backendStats struct {
	mu        sync.Mutex
	st        BackendStatus
	total     time.Duration // of the acknowledged writes
	readTotal time.Duration // of the answered reads
	failingAt time.Time     // the first failure after the last success
}

// wrote records a write that took d and ended with err.
func (b *backendStats) wrote(d time.Duration, ws opensearch.Stats, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	b.st.Indexed += int64(ws.Indexed)
	b.st.Deleted += int64(ws.Deleted)
	b.st.Stale += int64(ws.Stale)
	b.st.Retries += int64(ws.Retries)
	if err != nil {
		var re *opensearch.RejectedError
		if errors.As(err, &re) {
			b.st.Rejections++
		}
		b.failedLocked(err, now)
		return
	}
	b.st.Writes++
	b.total += d
	b.st.BulkLatencyMs = float64(d.Microseconds()) / 1000
	b.st.MeanBulkLatencyMs = float64(b.total.Microseconds()) / 1000 / float64(b.st.Writes)
	b.st.LastWrite = now.UTC()
	b.failingAt = time.Time{}
}

// failed records a request of a build to the backend that failed (one
// that finds or publishes its generation).
func (b *backendStats) failed(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.failedLocked(err, time.Now())
}

func (b *backendStats) failedLocked(err error, now time.Time) {
	b.st.Failures++
	b.st.LastError = NewErrorInfo(err, now)
	if b.failingAt.IsZero() {
		b.failingAt = now
	}
}

// reached records that the backend answered a build's requests: it is no
// longer failing.
func (b *backendStats) reached() {
	b.mu.Lock()
	b.failingAt = time.Time{}
	b.mu.Unlock()
}

// read records a read of the backend that took d and ended with err.
func (b *backendStats) read(d time.Duration, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil {
		b.st.ReadFailures++
		return
	}
	b.st.Reads++
	b.readTotal += d
	b.st.MeanReadLatencyMs = float64(b.readTotal.Microseconds()) / 1000 / float64(b.st.Reads)
}

// fellBack records a read the embedded index answered for the backend.
func (b *backendStats) fellBack(error) {
	b.mu.Lock()
	b.st.Fallbacks++
	b.mu.Unlock()
}

// status is a copy of the status now.
func (b *backendStats) status() *BackendStatus {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.st
	if !b.failingAt.IsZero() {
		st.LagSeconds = time.Since(b.failingAt).Seconds()
	}
	return &st
}

// backendStats is the backend status of an object type; nil for a type
// without a backend (or not configured).
func (ix *Indexer) backendStats(name string) *backendStats {
	ts, err := ix.state(name)
	if err != nil || ts.spec.Backend == "" {
		return nil
	}
	return &ts.backend
}
