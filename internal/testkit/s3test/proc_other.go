//go:build !linux

package s3test

import (
	"os"
	"syscall"
)

func procAttr() *syscall.SysProcAttr { return nil }

func terminate(p *os.Process) error { return p.Kill() }
