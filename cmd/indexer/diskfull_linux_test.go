//go:build linux

package main

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// tmpfs is a small tmpfs the test mounted, and a ballast file in it that
// fills it up to what a test leaves free.
type tmpfs struct {
	dir     string
	ballast string
}

// mustTmpfs mounts a tmpfs of size bytes on a new directory and unmounts
// it when the test ends. Mounting takes root: without it the test fails
// under CI=true (CI runs as root) and is skipped elsewhere, saying why.
func mustTmpfs(tb testing.TB, size int64) *tmpfs {
	tb.Helper()
	if os.Geteuid() != 0 {
		msg := "this test mounts a tmpfs and needs root; run it as root (CI does)"
		if os.Getenv("CI") == "true" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	dir := tb.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+strconv.FormatInt(size, 10)+",mode=0755"); err != nil {
		tb.Fatalf("mount a tmpfs of %d bytes on %s: %v", size, dir, err)
	}
	tb.Cleanup(func() {
		// After the serve process (whose kill was registered later) is gone.
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			tb.Errorf("unmount %s: %v", dir, err)
		}
	})
	return &tmpfs{dir: dir, ballast: filepath.Join(dir, "ballast")}
}

// free is what the file system has left for files.
func (fs *tmpfs) free(tb testing.TB) int64 {
	tb.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(fs.dir, &st); err != nil {
		tb.Fatal(err)
	}
	return int64(st.Bavail) * st.Bsize
}

// used is what the files take.
func (fs *tmpfs) used(tb testing.TB) int64 {
	tb.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(fs.dir, &st); err != nil {
		tb.Fatal(err)
	}
	return int64(st.Blocks-st.Bfree) * st.Bsize
}

// fill grows the ballast until at most leave bytes are free, as another
// process filling the disk would.
func (fs *tmpfs) fill(tb testing.TB, leave int64) {
	tb.Helper()
	f, err := os.OpenFile(fs.ballast, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for {
		n := fs.free(tb) - leave
		if n <= 0 {
			return
		}
		if _, err := f.Write(chunk[:min(n, int64(len(chunk)))]); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return
			}
			tb.Fatal(err)
		}
	}
}

// drain removes the ballast: the space returns.
func (fs *tmpfs) drain(tb testing.TB) {
	tb.Helper()
	if err := os.Remove(fs.ballast); err != nil {
		tb.Fatal(err)
	}
}
