// Package cputime reads the CPU time a benchmark spent: on a machine
// shared with other work it is steadier than the time elapsed, which is
// why the benchmarks report it beside ns/op (as cpu-ns/op).
package cputime

import (
	"syscall"
	"testing"
	"time"
)

// rusageThread is Linux's RUSAGE_THREAD, which package syscall does not
// name.
const rusageThread = 1

// Process is the CPU time, user and system, the process has used so far:
// the caller's work and what it costs others (the collector's workers).
func Process(tb testing.TB) time.Duration {
	return read(tb, syscall.RUSAGE_SELF)
}

// Thread is the CPU time the calling thread has used so far: the
// caller's work alone, for benchmarks that lock their goroutine to it or
// run too briefly to be moved.
func Thread(tb testing.TB) time.Duration {
	return read(tb, rusageThread)
}

func read(tb testing.TB, who int) time.Duration {
	tb.Helper()
	var u syscall.Rusage
	if err := syscall.Getrusage(who, &u); err != nil {
		tb.Fatalf("getrusage: %v", err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// PerOp reports the CPU time since start a b.N-th at a time, as cpu-ns/op.
func PerOp(b *testing.B, start time.Duration, now func(testing.TB) time.Duration) {
	b.ReportMetric(float64(now(b)-start)/float64(b.N), "cpu-ns/op")
}
