package soak

import "syscall"

// childAttr has the kernel kill a server the campaign leaves behind should
// it die itself (Linux: the parent-death signal).
func childAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }
