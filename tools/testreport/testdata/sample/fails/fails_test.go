// Package fails holds a test whose one subtest fails.
package fails

import "testing"

func TestFail(t *testing.T) {
	t.Run("ok", func(t *testing.T) { t.Log("a passing subtest's log is not shown") })
	t.Run("bad", func(t *testing.T) { t.Error("want 1, got 2") })
}
