// Package backend holds what a request shares with the search backend
// that answers it (the adapters are its sub-packages: opensearch): a way
// to give back, while the request waits on the backend, what it holds
// only to compute. The API server bounds the requests that compute at
// once (server.maxConcurrentRequests, a few per processor): a request
// whose answer is a cluster's spends most of its time waiting on it, and
// holding a slot meanwhile would bound what the cluster is given to a few
// requests a processor of the API server, whatever the cluster's size.
package backend
