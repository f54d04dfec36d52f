//go:build !unix

package pgserver

import (
	"syscall"
)

// osUser is the OS user PostgreSQL runs as: always this process's here.
type osUser struct{}

func runAsUser(string) (*osUser, error) { return nil, nil }

func handTo(string, *osUser) error { return nil }

func procAttr(*osUser) *syscall.SysProcAttr { return nil }
