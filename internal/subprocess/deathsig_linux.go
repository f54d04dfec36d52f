package subprocess

import "syscall"

// dieWithParent has the kernel kill the child should this process die
// without stopping it (doc.go says why SIGKILL).
func dieWithParent(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
