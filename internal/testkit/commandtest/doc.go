// Package commandtest builds the commands of cmd/ for tests that run them
// as processes: `ontolab` runs the `indexer` binary as its child, so its
// tests need one, built from the same source as the test. For tests only;
// nothing in a command binary imports it.
package commandtest
