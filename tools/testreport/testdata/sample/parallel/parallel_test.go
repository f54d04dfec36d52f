// Package parallel holds parallel tests, one of them failing.
package parallel

import "testing"

func TestA(t *testing.T) { t.Parallel(); t.Log("A's log is not shown") }
func TestB(t *testing.T) { t.Parallel(); t.Error("B failed") }
