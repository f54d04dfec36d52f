// Package testkit holds, in its sub-packages, the helpers that only tests
// (and the end-to-end test's seed command) import; none of them is linked
// into the indexer binary. The production code under internal/ (demo,
// benchdata, icebergwrite, pgserver, searchbench) stays beside testkit,
// not in it.
//
//   - icebergtest: real Iceberg tables written with iceberg-go in a hadoop
//     catalog, and the commits the scenarios need (through icebergwrite,
//     which the demo and the benchmarks write with too).
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
//   - browsertest: headless Chromium through chromedp for the console's
//     end-to-end tests: tabs that record exceptions and CSP violations,
//     screenshots checked to be non-blank PNGs.
//   - s3test: a throwaway S3 server (versitygw) that can be stopped,
//     restarted and have its key rotated, and a proxy that meters what
//     clients fetch from it.
//   - deploytest: the deployments ontoindex is tested in (hadoop+local,
//     sql/postgres+s3, sql/sqlite+local), their config entries with the
//     credentials as ${ENV} references, and a writer in another process.
//   - restcatalog: Apache Iceberg's REST catalog server (its test fixture,
//     from Maven Central) on loopback, tables on disk or in s3test, that
//     can be stopped and restarted and can vend its S3 keys; Gate, an
//     authenticating proxy that wants OAuth2 client credentials. With
//     deploytest.MustREST, the REST deployments of the JVM target.
//   - sparktest: one small PySpark session with Iceberg's Spark runtime
//     that runs SQL (writes through any catalog, create_changelog_view)
//     and returns the rows; jvmtest finds what .ci/install-restcatalog
//     installed for both.
//   - opensearchtest: a real OpenSearch cluster (one node, or three on
//     loopback) from Maven Central's jars through a small launcher,
//     installed by .ci/install-opensearch; requests to any node and the
//     wait for a cluster's health.
//   - fuzztest: Lines, the seeds of a seed file several packages' fuzz
//     targets share.
//   - commandtest: MustBuild, a command of cmd/ built with go build, for
//     the tests of ontolab, which runs the indexer binary as its child.
//   - tsctest: tsc and @osdk/client 2.22.0 from api/testdata/e2e's
//     node_modules, a project around generated definitions, and the errors
//     tsc reports, for the tests of `indexer osdk-types`.
//   - tlstest: a throwaway CA, server and client certificates, and
//     WriteFiles: ca.pem, cert.pem and key.pem for 127.0.0.1 and localhost,
//     for a server config's server.tls and for clients outside Go.
//   - cputime: the CPU time a benchmark spent (its process's or its
//     thread's), which benchmarks report as cpu-ns/op beside ns/op.
//
// This package itself has no code.
package testkit
