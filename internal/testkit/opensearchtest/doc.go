// Package opensearchtest runs real OpenSearch clusters for tests: one
// node, or three on loopback, each a JVM with a small heap. The nodes are
// OpenSearch Version from its Maven Central artifacts, not the
// distribution: the server jar and the modules ontoindex needs
// (transport-netty4, analysis-common, reindex, mapper-extras and
// lang-painless, as their "-client" jars; geo, with JTS and Spatial4j,
// without which the server does not register the geo_shape query),
// resolved by
// .ci/install-opensearch from pom.xml into the JVM test cache (jvmtest),
// and a small launcher (launcher/OpenSearchNode.java, compiled by the same
// script) that starts org.opensearch.node.Node with the modules as
// classpath plugins.
//
//	c := opensearchtest.Must(t, opensearchtest.Options{Nodes: 3}) // skips without the jars unless CI=true
//	status, body, err := c.Do(ctx, "GET", "/_cat/nodes", nil)
//
// Every node binds ports the kernel chooses (http.port and transport.port
// 0) and writes them to its ports files (node.portsfile), so that
// parallel tests never race for a port. One node runs with discovery.type
// single-node; three find each other through the file-based seed hosts
// provider (config/unicast_hosts.txt, written once every node has bound
// its transport port) and bootstrap a cluster of three cluster-manager
// eligible data nodes. Start returns once the cluster is green with all
// its nodes.
//
// The launcher installs no security manager, runs no bootstrap checks and
// loads no native library (no JNA, no memory lock, no seccomp): it is a
// test cluster, not a production one. Its nodes ignore disk watermarks so
// that a full shared disk does not turn a test yellow. By default
// (ProfileTest) each one counts one processor, which keeps its thread
// pools small on a two-core machine, and runs the serial collector and
// the client compiler only; benchmarks start ProfileBench nodes (G1, both
// compilers, every processor), as the distribution runs them, so that
// the test settings do not slow the node they compare with.
//
// Kill kills a node with SIGKILL (a crash: nothing flushed, no goodbye to
// the cluster) and Restart starts it again over its data directory, on
// the ports it had, so that clients' URLs and the other nodes' seed hosts
// still name it; Restart returns once it has joined the cluster again.
//
// Stop sends every node SIGTERM, which closes it (the launcher's shutdown
// hook), waits for the JVMs to exit, kills the ones that do not in time,
// and removes the cluster's directory.
package opensearchtest
