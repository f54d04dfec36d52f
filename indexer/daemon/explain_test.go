package daemon

import (
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/indexer"
)

func TestTypeStatus_Problem(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name          string
		st            TypeStatus
		problem, next string
	}{
		{"idle", TypeStatus{Table: "lake.ns.t", State: StateIdle}, "", ""},
		{"table missing", TypeStatus{Table: "lake.ns.t", State: StateFailing,
			LastError: &indexer.ErrorInfo{Code: indexer.CodeTableNotAvailable, TableMissing: true}, NextRetryAt: now.Add(time.Second)},
			"table lake.ns.t does not exist", "the daemon looks for it again every 2s (the poll interval)"},
		{"catalog unreachable", TypeStatus{Table: "lake.ns.t", State: StateFailing,
			LastError: &indexer.ErrorInfo{Code: indexer.CodeTableNotAvailable}, NextRetryAt: now.Add(1500 * time.Millisecond)},
			"the last build or poll of table lake.ns.t failed (TABLE_NOT_AVAILABLE)", "the daemon retries with backoff, next in 1.5s"},
		{"blocked", TypeStatus{Table: "lake.ns.t", State: StateBlocked, LastError: &indexer.ErrorInfo{Code: indexer.CodeMergeOnRead}},
			"table lake.ns.t has live merge-on-read delete files", "the daemon builds it again once the table changes (a compaction)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.st.Problem(); got != tt.problem {
				t.Errorf("Problem = %q, want %q", got, tt.problem)
			}
			if got := tt.st.Next(2*time.Second, now); got != tt.next {
				t.Errorf("Next = %q, want %q", got, tt.next)
			}
		})
	}
}
