package s3test

import (
	"os"
	"syscall"
)

// procAttr puts the server in its own process group (a Ctrl-C reaches the
// test, which stops it) and has the kernel kill it should the test process
// die without stopping it.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

func terminate(p *os.Process) error { return p.Signal(syscall.SIGTERM) }
