//go:build !linux

package tmpfs

import "errors"

var errNotLinux = errors.New("mounting a tmpfs needs Linux")

// Supported says why Mount cannot work here: it needs Linux.
func Supported() error { return errNotLinux }

// Mount fails: mounting a tmpfs needs Linux.
func Mount(string, int64) (*FS, error) { return nil, errNotLinux }

// Unmount, Free and Used have no tmpfs to work on.
func (fs *FS) Unmount() error       { return errNotLinux }
func (fs *FS) Free() (int64, error) { return 0, errNotLinux }
func (fs *FS) Used() (int64, error) { return 0, errNotLinux }
