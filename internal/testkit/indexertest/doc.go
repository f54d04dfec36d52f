// Package indexertest opens indexers over icebergtest warehouses for tests
// (Config, Open), exports what an index holds (Export), and checks that a
// built object type holds exactly the rows of its table (Match, MatchTable).
// It is for tests only; nothing in the indexer binary imports it.
package indexertest
