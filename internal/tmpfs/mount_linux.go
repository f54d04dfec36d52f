//go:build linux

package tmpfs

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// Supported says why Mount cannot work here (nil: it can).
func Supported() error {
	if os.Geteuid() != 0 {
		return errors.New("mounting a tmpfs needs root")
	}
	return nil
}

// Mount mounts a tmpfs of size bytes on dir, which must exist.
func Mount(dir string, size int64) (*FS, error) {
	if err := Supported(); err != nil {
		return nil, err
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+strconv.FormatInt(size, 10)+",mode=0755"); err != nil {
		return nil, fmt.Errorf("mount a tmpfs of %d bytes on %s: %w", size, dir, err)
	}
	return newFS(dir), nil
}

// Unmount detaches the tmpfs (lazily: a process that still has a file
// open in it keeps it until it exits); its files are gone.
func (fs *FS) Unmount() error {
	if err := syscall.Unmount(fs.dir, syscall.MNT_DETACH); err != nil {
		return fmt.Errorf("unmount %s: %w", fs.dir, err)
	}
	return nil
}

// Free is what the file system has left for files.
func (fs *FS) Free() (int64, error) {
	st, err := fs.statfs()
	return int64(st.Bavail) * st.Bsize, err
}

// Used is what the files take.
func (fs *FS) Used() (int64, error) {
	st, err := fs.statfs()
	return int64(st.Blocks-st.Bfree) * st.Bsize, err
}

func (fs *FS) statfs() (syscall.Statfs_t, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(fs.dir, &st); err != nil {
		return st, fmt.Errorf("statfs %s: %w", fs.dir, err)
	}
	return st, nil
}
