// Package skips holds tests that skip as the module's do without their
// servers, and one that passes.
package skips

import "testing"

func TestPass(t *testing.T) { t.Log("a passing test's log is not shown") }

func TestNoPostgres(t *testing.T) {
	t.Skip("no PostgreSQL: exec: \"pg_ctl\": executable file not found in $PATH")
}

func TestNoPostgresEither(t *testing.T) {
	t.Log("a line before the skip")
	t.Skip("no PostgreSQL: exec: \"pg_ctl\": executable file not found in $PATH")
}

func TestCases(t *testing.T) {
	t.Run("runs", func(t *testing.T) {})
	t.Run("s3", func(t *testing.T) { t.Skipf("no S3 server: %s", "versitygw not found") })
}

func TestSilent(t *testing.T) { t.SkipNow() }
