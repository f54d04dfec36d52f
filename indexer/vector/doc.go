// Package vector is the nearest-neighbour index of one vector property:
// an HNSW graph (Malkov and Yashunin, 2016) over the property's vectors,
// and exact search where it is cheaper.
//
// # Snapshots
//
// An Index is immutable, as the engine's snapshots are (indexer/index):
// Apply returns the next one and copies only the chunks of 1024 nodes or
// documents the changes touch, so readers of the old one never lock and
// an incremental build costs its changes. The graph's nodes are not the
// documents: a new vector is a new node, and the node of a deleted or
// changed vector stays in the graph as a tombstone that searches walk
// through but never return (hnswlib's markDelete). When tombstones are a
// quarter of the nodes, Apply rebuilds the graph from the live vectors.
//
// # Searches
//
// A search with a filter (the documents it may return) walks the graph
// from the entry point and keeps only documents in the filter; a filter
// so selective that the walk would read more vectors than the filter
// holds is searched exactly instead, as is an index of fewer than
// ExactBelow vectors. Exact results are exact; graph results are
// approximate (recall_test.go measures them).
//
// Cosine vectors are normalized when stored, so cosine is a dot product.
// Distances are smaller-is-nearer; scores (Metric.Score) are
// larger-is-nearer and positive, as Elasticsearch defines them.
package vector
