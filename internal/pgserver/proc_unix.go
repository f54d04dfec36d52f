//go:build unix

package pgserver

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"strconv"
	"syscall"
)

// osUser is the OS user PostgreSQL runs as; nil: this process's user.
type osUser = syscall.Credential

// runAsUser returns the user PostgreSQL must run as, or nil to run as this
// process: PostgreSQL refuses to run as root.
func runAsUser(name string) (*osUser, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	if name == "" {
		name = "postgres"
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL does not run as root, and user %q to run it as: %w", name, err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("user %q: %w", name, err)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// handTo makes u the owner of dir.
func handTo(dir string, u *osUser) error {
	if u == nil {
		return nil
	}
	if err := os.Chown(dir, int(u.Uid), int(u.Gid)); err != nil {
		return fmt.Errorf("hand the cluster directory to uid %d: %w", u.Uid, err)
	}
	return nil
}

// procAttr runs a child as u.
func procAttr(u *osUser) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: u}
}
