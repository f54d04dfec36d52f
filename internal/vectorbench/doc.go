// Package vectorbench is `ontolab bench vector`: ontoindex's vector index
// (indexer/vector) against exact search and against FAISS's HNSW
// (faiss-cpu from PyPI, in a virtualenv the bench makes) with the same
// graph parameters, on the same generated vectors, in one run.
//
// The vectors are drawn as embeddings are shaped: a mixture of clusters
// in a low-dimensional latent space, mapped into the full dimension by a
// fixed random matrix, plus a little noise in every dimension (data.go).
// Uniform noise in 128 dimensions has no near neighbours to speak of and
// is no benchmark of a nearest-neighbour index.
//
// Both sides use every core: ontoindex one goroutine per core over the
// queries, FAISS its OpenMP threads. Recall@k of both is measured against
// ontoindex's exact search, whose throughput is the exact baseline.
package vectorbench
