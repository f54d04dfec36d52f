//go:build unix && !linux

package pgserver

import "syscall"

// stopWithParent does nothing: only Linux has a parent-death signal.
func stopWithParent(*syscall.SysProcAttr) {}
