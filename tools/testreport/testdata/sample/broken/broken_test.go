// Package broken does not compile.
package broken

import "testing"

func TestBroken(t *testing.T) { var n int = "not a number"; _ = n }
