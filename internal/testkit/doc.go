// Package testkit holds, in its sub-packages, the helpers that only tests
// (and the end-to-end test's seed command) import; none of them is linked
// into the indexer binary. The production code under internal/ (demo,
// benchdata, pgserver, searchbench) stays beside testkit, not in it.
//
//   - icebergtest: real Iceberg tables written with iceberg-go in a hadoop
//     catalog, and the commits the scenarios need.
//   - indexertest: indexers opened over icebergtest warehouses, and checks
//     that an index matches its table.
//   - fixtures: the read-only loader of the real-engine fixture tables
//     under testdata/real-iceberg.
//   - apidemo: the demo warehouse the API tests, the examples and the
//     end-to-end test run against.
//   - peopletest: the copy-on-write table ns.people and the merge-on-read
//     table ns.planes, and their object types, that the daemon, ops, serve
//     and status tests share.
//   - leaktest: Find, a secret anywhere in the values reachable from one.
//   - daemontest: WaitStatus, the one wait for an object type's status,
//     from a daemon (woken by Daemon.Changed) or over HTTP.
//
// This package itself has no code.
package testkit
