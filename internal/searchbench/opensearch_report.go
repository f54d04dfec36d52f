package searchbench

import (
	"fmt"
	"io"
	"time"
)

// OpenSearchFigures are the OpenSearch side's figures (Options.OpenSearch).
type OpenSearchFigures struct {
	Version      string  `json:"version"`
	Nodes        int     `json:"nodes"`
	HeapMiB      int     `json:"heapMiB"`
	Profile      string  `json:"profile"`        // the test kit's profile of the node (opensearchtest.Profile)
	CPUs         string  `json:"cpus,omitempty"` // the processors the node ran on alone ("": shared with the rest)
	StartSeconds float64 `json:"startSeconds"`   // the cluster's start until green
	// SearchableSeconds is the backend server's process start until
	// /readyz answers 200: both types built into OpenSearch (and into the
	// embedded index, which a backend type keeps for gets).
	SearchableSeconds float64        `json:"searchableSeconds"`
	Objects           int64          `json:"objects"`
	Orders            int64          `json:"orders"`
	Builds            []BackendBuild `json:"builds"`
	// BuildNode is what the node counted while the backend server
	// started and built both types: without a warm-up, the node's first
	// writes since its start, which pay for its JIT's warm-up.
	BuildNode *NodeStats `json:"buildNode,omitempty"`
	// WarmUp is the throwaway build of both types before the measured
	// one (nil: none, Options.OpenSearchWarmUp).
	WarmUp *WarmUp `json:"warmUp,omitempty"`
	// Ingest compares the builds' writes with OpenSearch's own bulk
	// rate for the same documents (nil: not measured).
	Ingest        *IngestFigures `json:"ingest,omitempty"`
	PeakRSSMiB    float64        `json:"peakRssMiB"`    // the backend server's VmHWM
	ServingRSSMiB float64        `json:"servingRssMiB"` // the backend server's VmRSS after the queries
	NodeRSSMiB    float64        `json:"nodeRssMiB"`    // the node's JVM's VmRSS after the queries
}

// BackendBuild is one type's full build on the backend server.
type BackendBuild struct {
	Type        string    `json:"type"`
	Seconds     float64   `json:"seconds"` // the build's duration (its status's durationMs)
	Indexed     int64     `json:"indexed"` // documents the backend's writes indexed
	Writes      int64     `json:"writes"`  // Writes acknowledged (each several bulk requests)
	MeanWriteMs float64   `json:"meanWriteMs"`
	Retries     int64     `json:"retries"` // documents sent again after the cluster refused them for load (429)
	FinishedAt  time.Time `json:"finishedAt"`
}

// IngestFigures compare the full builds' writes with bulk requests of the
// same documents sent straight to the cluster.
type IngestFigures struct {
	Documents int64 `json:"documents"`
	// BuildSeconds is the window of the two types' full builds on the
	// backend server (first start to last end): reading the Iceberg
	// files, the embedded index and the bulk writes, which overlap.
	BuildSeconds float64 `json:"buildSeconds"`
	// BulkSeconds is the same documents' bulk requests sent straight,
	// as many at once as the builds send, into new indexes of the same
	// settings and mappings, until refreshed.
	BulkSeconds float64 `json:"bulkSeconds"`
	Requests    int     `json:"requests"`
	// Node is what the nodes counted while the straight bulk ran.
	Node *NodeStats `json:"node,omitempty"`
	// Ratio is the builds' documents/s over the straight bulk's.
	Ratio float64 `json:"ratio"`
}

// openSearchTargets are the goals of the backend: within 1.15x
// of the straight DSL, the embedded engine ahead on every query, and
// ingest at least 0.8x the straight bulk rate.
func (r *Report) openSearchTargets() {
	if r.OpenSearch == nil {
		return
	}
	for _, q := range r.Queries {
		if q.Backend == nil || q.Backend.QPS <= 0 {
			continue
		}
		if q.Straight != nil {
			r.Targets = append(r.Targets, newTarget("OpenSearch: straight DSL q/s / backend q/s: "+q.Name, q.Straight.QPS/q.Backend.QPS, "<=", 1.15))
		}
		if q.Ontoindex != nil {
			r.Targets = append(r.Targets, newTarget("OpenSearch: embedded q/s / backend q/s: "+q.Name, q.Ontoindex.QPS/q.Backend.QPS, ">=", 1))
		}
	}
	if in := r.OpenSearch.Ingest; in != nil && in.Ratio > 0 {
		r.Targets = append(r.Targets, newTarget("OpenSearch: backend build docs/s / straight bulk docs/s", in.Ratio, ">=", 0.8))
	}
}

// writeOpenSearch prints the OpenSearch side's table and figures.
func (r *Report) writeOpenSearch(w io.Writer, width int) {
	f := r.OpenSearch
	if f == nil {
		return
	}
	on := "on the processors of everything else"
	if f.CPUs != "" {
		on = "on processors " + f.CPUs + " of its own"
	}
	fmt.Fprintf(w, "OpenSearch backend: OpenSearch %s, %d node, heap %d MiB (the test kit's %s profile), %s; the same queries on a second ontoindex whose types name it\n",
		f.Version, f.Nodes, f.HeapMiB, f.Profile, on)
	row := func(cells ...string) {
		fmt.Fprintf(w, "%-*s  %8s  %12s %8s %8s  %13s %8s %8s  %10s  %10s\n", width, cells[0],
			cells[1], cells[2], cells[3], cells[4], cells[5], cells[6], cells[7], cells[8], cells[9])
	}
	row("query", "searches", "backend q/s", "p50 ms", "p99 ms", "straight q/s", "p50 ms", "p99 ms", "straight/b", "embedded/b")
	for _, q := range r.Queries {
		if q.Ontoindex == nil {
			continue
		}
		if q.Backend == nil {
			note := q.OpenSearchNote
			if note == "" {
				note = "not measured"
			}
			fmt.Fprintf(w, "%-*s  %8d  %s\n", width, q.Name, q.OpenSearchSearches, note)
			continue
		}
		straight, embedded := "-", "-"
		if q.Straight != nil && q.Backend.QPS > 0 {
			straight = fmt.Sprintf("%.2f", q.Straight.QPS/q.Backend.QPS)
		}
		if q.Backend.QPS > 0 {
			embedded = fmt.Sprintf("%.2f", q.Ontoindex.QPS/q.Backend.QPS)
		}
		row(q.Name, fmt.Sprint(q.OpenSearchSearches), stat(q.Backend, "qps"), stat(q.Backend, "p50"), stat(q.Backend, "p99"),
			stat(q.Straight, "qps"), stat(q.Straight, "p50"), stat(q.Straight, "p99"), straight, embedded)
		if q.Straight == nil && q.OpenSearchNote != "" {
			fmt.Fprintf(w, "%-*s  straight: not measured: %s\n", width, "", q.OpenSearchNote)
		}
	}
	fmt.Fprintf(w, "%-*s  %14s  %14s  %15s\n", width, "CPU per request (µs)", "backend+node", "node (backend)", "node (straight)")
	for _, q := range r.Queries {
		if q.Backend == nil {
			continue
		}
		node, straight := "-", "-"
		if q.Backend.NodeCPUus > 0 {
			node = num(q.Backend.NodeCPUus)
		}
		if q.Straight != nil && q.Straight.ServerCPUus > 0 {
			straight = num(q.Straight.ServerCPUus)
		}
		fmt.Fprintf(w, "%-*s  %14s  %14s  %15s\n", width, q.Name, num(q.Backend.ServerCPUus), node, straight)
	}
	fmt.Fprintf(w, "time to searchable: OpenSearch backend %s s (serve --build until /readyz, both types into OpenSearch and the embedded index; cluster start %s s apart)\n",
		num(f.SearchableSeconds), num(f.StartSeconds))
	for _, b := range f.Builds {
		fmt.Fprintf(w, "  full build of %s: %s s, %d documents indexed in %d writes (mean %s ms each, two at once)\n", b.Type, num(b.Seconds), b.Indexed, b.Writes, num(b.MeanWriteMs))
	}
	if wu := f.WarmUp; wu != nil {
		fmt.Fprintf(w, "  warm-up before it, a throwaway build of both types (the node's first writes since its start): searchable after %s s (load average %.1f-%.1f)\n",
			num(wu.Seconds), wu.LoadMin, wu.LoadMax)
		if t := wu.Node.text(wu.Indexed()); t != "" {
			fmt.Fprintf(w, "  during the warm-up: %s\n", t)
		}
	}
	if in := f.Ingest; in != nil {
		fmt.Fprintf(w, "ingest: %d documents: builds %s s (%s docs/s), straight bulk %s s in %d requests (%s docs/s): ratio %.2f\n",
			in.Documents, num(in.BuildSeconds), num(float64(in.Documents)/in.BuildSeconds), num(in.BulkSeconds), in.Requests,
			num(float64(in.Documents)/in.BulkSeconds), in.Ratio)
		if t := f.BuildNode.text(in.Documents); t != "" {
			what := "the node's first writes: its JIT warms up"
			if f.WarmUp != nil {
				what = "after the warm-up"
			}
			fmt.Fprintf(w, "  during the builds (%s): %s\n", what, t)
		}
		if t := in.Node.text(in.Documents); t != "" {
			fmt.Fprintf(w, "  during the straight bulk: %s\n", t)
		}
	}
	fmt.Fprintf(w, "memory: backend server peak RSS %.0f MiB, while serving %.0f MiB; OpenSearch node RSS %.0f MiB\n\n", f.PeakRSSMiB, f.ServingRSSMiB, f.NodeRSSMiB)
}

// openSearchNotes explain the OpenSearch side's figures.
func openSearchNotes() []string {
	return []string{
		"OpenSearch backend: searches = the searches the backend sent OpenSearch per call, counted by a recording proxy while the answers were checked against the embedded server's; 0: the embedded index answered (gets, relevance order, what the backend refuses), and the row has no OpenSearch figures",
		"OpenSearch straight: the DSL the backend sent, taken down by the proxy, with each call's parameters put in (the template gave back the DSL of every checked call exactly), posted to the node with the same HTTP client and read, not decoded: straight/b is what the API costs over OpenSearch; the backend server talks to the node without the proxy while measured",
		"OpenSearch request cache: off on both indexes while measured (index.requests.cache.enable false): the backend and the straight DSL send the same parameters in each round, and the shard request cache would answer the second's size-0 searches (the aggregations) from the first's",
		"OpenSearch CPU per request: the backend server's and the node's JVM's user+system time, and the node's alone (node (backend)); straight: the node's",
	}
}
