// Package daemon keeps every object type of an indexer fresh, as
// `indexer serve` runs it: one loop per object type polls its table and
// builds when the table moved past the checkpoint, with at most
// maxConcurrentBuilds builds at once, backoff after failures, and a
// merge-on-read refusal held until the table changes.
//
// The decisions are a pure state machine (schedule.go: what to do next,
// given the clock, the table and the checkpoint) kept apart from the
// goroutines that carry them out (daemon.go: the loops, which Run owns,
// cancels and waits for). operate.go holds what operators ask for
// (Rebuild, Refresh, Reload), status.go what the daemon reports (Status,
// Report, and EngineStatus for a server without a daemon; Changed
// notifies each change) and metrics.go the Prometheus metrics computed
// from the status.
//
// The daemon uses the indexer only through its public API (Build,
// Checkpoint, Status, CheckReload, Reload).
package daemon
