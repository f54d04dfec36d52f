//go:build unix

package store

import (
	"os"
	"syscall"
)

// unlock releases the lock bbolt took on f. Closing f is not enough: the
// memory map of a panicked open still refers to the file, and a flock
// lasts as long as any reference.
func unlock(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
