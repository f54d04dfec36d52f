package tmpfs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// FS is a mounted tmpfs and the ballast file in it that fills it.
type FS struct {
	dir     string
	ballast string
}

// Dir is where the tmpfs is mounted.
func (fs *FS) Dir() string { return fs.dir }

// Fill grows the ballast until at most leave bytes are free.
func (fs *FS) Fill(leave int64) error {
	f, err := os.OpenFile(fs.ballast, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("fill %s: %w", fs.dir, err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for {
		free, err := fs.Free()
		if err != nil {
			return err
		}
		n := free - leave
		if n <= 0 {
			return nil
		}
		if _, err := f.Write(chunk[:min(n, int64(len(chunk)))]); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return nil
			}
			return fmt.Errorf("fill %s: %w", fs.dir, err)
		}
	}
}

// Drain removes the ballast: the space returns.
func (fs *FS) Drain() error {
	if err := os.Remove(fs.ballast); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("drain %s: %w", fs.dir, err)
	}
	return nil
}

func newFS(dir string) *FS { return &FS{dir: dir, ballast: filepath.Join(dir, "ballast")} }
