package searchbench

import "syscall"

// childAttr has the kernel stop the server should the bench die without
// stopping it (Linux: the parent-death signal).
func childAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM} }
