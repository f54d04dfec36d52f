package pgserver

import "syscall"

// stopWithParent has the kernel ask the server for an immediate shutdown
// should this process die without Stop (Linux: the parent-death signal).
func stopWithParent(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGQUIT }
