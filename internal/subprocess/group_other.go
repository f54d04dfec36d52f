//go:build !unix

package subprocess

import (
	"os"
	"syscall"
)

// newGroup does nothing: process groups are Unix's.
func newGroup(*syscall.SysProcAttr) {}

// killGroup kills the child alone.
func killGroup(p *os.Process) { _ = p.Kill() }
