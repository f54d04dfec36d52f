//go:build !unix

package pgserver

import (
	"os"
	"syscall"
)

// osUser is the OS user PostgreSQL runs as: always this process's here.
type osUser struct{}

func runAsUser(string) (*osUser, error) { return nil, nil }

func handTo(string, *osUser) error { return nil }

func procAttr(*osUser, bool) *syscall.SysProcAttr { return nil }

// quit stops the server; without signals that is a kill.
func quit(p *os.Process) error { return p.Kill() }

func kill(p *os.Process) { _ = p.Kill() }
