// Package subscribebench measures the websocket subscriptions of `indexer
// serve` (`ontolab bench subscribe`): many subscriptions on the Customer
// type of the search bench, over a few websocket connections or one each,
// while a writer commits copy-on-write edits to its Iceberg table.
//
// It reports the latency from each commit's return to the receipt of the
// objectSetChanged message that names the edited key (p50, p99), the
// server's CPU per delivered change (from /proc, against the same commits
// with no subscribers), every delivery that went wrong (lost, unexpected,
// repeated, stale), and a search query's q/s while the subscriptions run
// against its q/s without subscribers, in alternating rounds.
//
// It runs on the search bench's parts (internal/searchbench): the server
// child, the data, the query load and the /proc readings.
package subscribebench
