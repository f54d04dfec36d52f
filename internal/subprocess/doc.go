// Package subprocess starts and stops the child processes of ontolab's
// campaign and benchmarks (`indexer serve`, the net/http floor,
// PostgreSQL) and of the tests' throwaway servers, one way for all:
//
//   - Start starts a command with a parent-death signal, so that a child
//     does not outlive an owner that dies without stopping it, and reads
//     its stderr line by line: the last lines are kept for errors (Tail),
//     each line can go to a log and a callback, and WaitMatch waits for
//     the first line that matches a pattern (a server's "listening on").
//   - Stop asks the child to stop with a signal, waits for it until a
//     deadline and kills it then; Kill kills it at once. Both return once
//     the process has exited and been waited for.
//
// The parent-death signal is SIGKILL, for every child. The kernel sends
// it only when the owner died without stopping the child, so nobody is
// left to wait for a graceful stop, and every child here is throwaway: a
// server over a temporary directory. SIGKILL cannot be caught or ignored,
// so a child that is wedged, or slow in a shutdown of its own (a server
// drains for up to its stop grace), goes at once rather than later or
// never. PostgreSQL's backends notice their postmaster's death and exit
// themselves. Only Linux has the signal; elsewhere a child outlives an
// owner that dies without stopping it. The kernel ties the signal to the
// thread that started the child, not the process: Go keeps its threads
// unless a goroutine that locked one (runtime.LockOSThread) exits locked,
// which no owner here does.
package subprocess
