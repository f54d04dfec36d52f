package daemon

import (
	"fmt"
	"time"

	"github.com/ontoindex/ontoindex/indexer"
)

// Problem says, for people, what keeps a failing or blocked object type
// from its table's current snapshot, without the error's internals (it
// goes into API errors): the table is missing, it has merge-on-read delete
// files, or the code of the last error. Empty when nothing does.
func (st TypeStatus) Problem() string {
	e := st.LastError
	switch {
	case e == nil:
		return ""
	case e.TableMissing:
		return fmt.Sprintf("table %s does not exist", st.Table)
	case e.Code == indexer.CodeMergeOnRead:
		return fmt.Sprintf("table %s has live merge-on-read delete files", st.Table)
	}
	return fmt.Sprintf("the last build or poll of table %s failed (%s)", st.Table, e.Code)
}

// Next says, for people, what the daemon does about the type's problem:
// a missing table is looked for again every poll interval (poll), other
// failures are retried with backoff, a blocked type waits for its table to
// change.
func (st TypeStatus) Next(poll time.Duration, now time.Time) string {
	switch {
	case st.State == StateBlocked:
		return "the daemon builds it again once the table changes (a compaction)"
	case st.State != StateFailing:
		return ""
	case st.LastError != nil && st.LastError.TableMissing:
		return fmt.Sprintf("the daemon looks for it again every %s (the poll interval)", poll)
	case !st.NextRetryAt.IsZero():
		return fmt.Sprintf("the daemon retries with backoff, next in %s", max(st.NextRetryAt.Sub(now), 0).Round(time.Millisecond))
	}
	return "the daemon retries with backoff"
}
