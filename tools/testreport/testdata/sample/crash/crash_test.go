// Package crash panics in a test, which then never ends.
package crash

import "testing"

func TestCrash(t *testing.T) {
	t.Log("before the panic")
	panic("boom")
}
