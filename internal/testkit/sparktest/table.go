package sparktest

import (
	"fmt"
	"strings"
	"testing"
)

// WriteMode is how Spark writes a row-level DELETE, UPDATE or MERGE INTO.
type WriteMode string

// The write modes.
const (
	CopyOnWrite WriteMode = "copy-on-write"
	MergeOnRead WriteMode = "merge-on-read" // position deletes (format 2)
)

// MustCreateTable creates table (catalog.namespace.name) with columns (a
// SQL column list), format 2, write.delete.mode, write.update.mode and
// write.merge.mode all mode, and the identifier fields given (their
// columns NOT NULL).
func (s *Session) MustCreateTable(tb testing.TB, table, columns string, mode WriteMode, identifiers ...string) {
	tb.Helper()
	stmts := []string{fmt.Sprintf(`CREATE TABLE %s (%s) USING iceberg
		TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='%[3]s', 'write.update.mode'='%[3]s', 'write.merge.mode'='%[3]s')`, table, columns, mode)}
	if len(identifiers) > 0 {
		stmts = append(stmts, "ALTER TABLE "+table+" SET IDENTIFIER FIELDS "+strings.Join(identifiers, ", "))
	}
	s.MustSQL(tb, stmts...)
}

// MustCurrentSnapshot is the id of the snapshot the table's main branch
// points at, as Spark sees it.
func (s *Session) MustCurrentSnapshot(tb testing.TB, table string) int64 {
	tb.Helper()
	res := s.MustSQL(tb, "SELECT snapshot_id FROM "+table+".refs WHERE name = 'main'")
	if len(res.Rows) != 1 {
		tb.Fatalf("the main branch of %s: %+v", table, res)
	}
	id, ok := res.Rows[0][0].(int64)
	if !ok {
		tb.Fatalf("the main branch of %s: snapshot %#v", table, res.Rows[0][0])
	}
	return id
}
