//go:build unix

package subprocess

import (
	"os"
	"syscall"
)

// newGroup makes the child the leader of a process group of its own.
func newGroup(attr *syscall.SysProcAttr) { attr.Setpgid = true }

// killGroup kills the group the child leads, its own children included.
func killGroup(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) }
