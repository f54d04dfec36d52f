//go:build !linux

package main

import (
	"os"
	"testing"
)

// tmpfs is what the Linux tests mount; elsewhere there is none.
type tmpfs struct{ dir string }

func mustTmpfs(tb testing.TB, size int64) *tmpfs {
	tb.Helper()
	msg := "this test mounts a tmpfs: it runs on Linux, as root (CI does)"
	if os.Getenv("CI") == "true" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
	return nil
}

func (fs *tmpfs) free(testing.TB) int64  { return 0 }
func (fs *tmpfs) used(testing.TB) int64  { return 0 }
func (fs *tmpfs) fill(testing.TB, int64) {}
func (fs *tmpfs) drain(testing.TB)       {}
