// Package daemontest waits for the daemon's status in tests: WaitStatus
// re-reads the status of an object type until a condition holds, from a
// *daemon.Daemon (woken by its Changed notification) or from anything else
// that reads a status, such as the ops endpoint over HTTP (polled). It is
// for tests only; nothing in the indexer binary imports it.
package daemontest
