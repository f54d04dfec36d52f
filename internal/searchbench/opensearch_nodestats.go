package searchbench

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/ontoindex/ontoindex/internal/testkit/opensearchtest"
)

// What the nodes did during a phase of the ingest comparison (the build,
// the straight bulk): their own counters (_nodes/stats) and their JVMs'
// CPU by thread, read before and after, so that the two phases can be
// set side by side: documents indexed against documents sent, the time
// in indexing, merges, refreshes, flushes and collections, and the CPU
// of the JIT compilers and collectors beside the node's own threads.

// NodeStats are the nodes' counters over one phase, summed over the
// nodes.
type NodeStats struct {
	// CPUSeconds is the JVMs' user+system time (/proc), Threads the same
	// by thread group (JIT compilers, collectors, the node's threads;
	// "exited": threads gone before the phase ended).
	CPUSeconds float64            `json:"cpuSeconds"`
	Threads    map[string]float64 `json:"threads"`
	// Indexed are the index operations the shards ran (a document sent
	// twice counts twice); DocStatus the bulk items by HTTP status class
	// (409s: a version conflict).
	Indexed     int64            `json:"indexed"`
	IndexMs     int64            `json:"indexMs"`
	IndexFailed int64            `json:"indexFailed"`
	DocStatus   map[string]int64 `json:"docStatus,omitempty"`
	Merges      int64            `json:"merges"`
	MergeMs     int64            `json:"mergeMs"`
	MergedDocs  int64            `json:"mergedDocs"`
	Refreshes   int64            `json:"refreshes"`
	RefreshMs   int64            `json:"refreshMs"`
	Flushes     int64            `json:"flushes"`
	FlushMs     int64            `json:"flushMs"`
	YoungGCs    int64            `json:"youngGcs"`
	YoungGCMs   int64            `json:"youngGcMs"`
	OldGCs      int64            `json:"oldGcs"`
	OldGCMs     int64            `json:"oldGcMs"`
	// WriteTasks are the tasks the write thread pool completed (about
	// one a bulk request and shard).
	WriteTasks int64 `json:"writeTasks"`
	// WritePool is the write threads sampled during the phase.
	WritePool *WritePool `json:"writePool,omitempty"`
}

// nodeSnapshot reads the counters of every node, and its JVM's CPU by
// thread group.
func nodeSnapshot(ctx context.Context, c *opensearchtest.Cluster, nodes []nodeProcess) (NodeStats, error) {
	var ans struct {
		Nodes map[string]struct {
			Indices struct {
				Indexing struct {
					IndexTotal  int64            `json:"index_total"`
					IndexMs     int64            `json:"index_time_in_millis"`
					IndexFailed int64            `json:"index_failed"`
					DocStatus   map[string]int64 `json:"doc_status"`
				} `json:"indexing"`
				Merges struct {
					Total int64 `json:"total"`
					Ms    int64 `json:"total_time_in_millis"`
					Docs  int64 `json:"total_docs"`
				} `json:"merges"`
				Refresh struct {
					Total int64 `json:"total"`
					Ms    int64 `json:"total_time_in_millis"`
				} `json:"refresh"`
				Flush struct {
					Total int64 `json:"total"`
					Ms    int64 `json:"total_time_in_millis"`
				} `json:"flush"`
			} `json:"indices"`
			JVM struct {
				GC struct {
					Collectors map[string]struct {
						Count int64 `json:"collection_count"`
						Ms    int64 `json:"collection_time_in_millis"`
					} `json:"collectors"`
				} `json:"gc"`
			} `json:"jvm"`
			ThreadPool map[string]struct {
				Completed int64 `json:"completed"`
			} `json:"thread_pool"`
		} `json:"nodes"`
	}
	status, body, err := c.Do(ctx, http.MethodGet, "/_nodes/stats/indices,jvm,thread_pool", nil)
	if err != nil {
		return NodeStats{}, err
	}
	if status != http.StatusOK {
		return NodeStats{}, fmt.Errorf("opensearch: the nodes' stats: %d %.300s", status, body)
	}
	if err := json.Unmarshal(body, &ans); err != nil {
		return NodeStats{}, fmt.Errorf("opensearch: the nodes' stats: %w", err)
	}
	s := NodeStats{DocStatus: map[string]int64{}, Threads: map[string]float64{}}
	for _, n := range ans.Nodes {
		ix := &n.Indices
		s.Indexed += ix.Indexing.IndexTotal
		s.IndexMs += ix.Indexing.IndexMs
		s.IndexFailed += ix.Indexing.IndexFailed
		for k, v := range ix.Indexing.DocStatus {
			s.DocStatus[k] += v
		}
		s.Merges, s.MergeMs, s.MergedDocs = s.Merges+ix.Merges.Total, s.MergeMs+ix.Merges.Ms, s.MergedDocs+ix.Merges.Docs
		s.Refreshes, s.RefreshMs = s.Refreshes+ix.Refresh.Total, s.RefreshMs+ix.Refresh.Ms
		s.Flushes, s.FlushMs = s.Flushes+ix.Flush.Total, s.FlushMs+ix.Flush.Ms
		young, old := n.JVM.GC.Collectors["young"], n.JVM.GC.Collectors["old"]
		s.YoungGCs, s.YoungGCMs = s.YoungGCs+young.Count, s.YoungGCMs+young.Ms
		s.OldGCs, s.OldGCMs = s.OldGCs+old.Count, s.OldGCMs+old.Ms
		s.WriteTasks += n.ThreadPool["write"].Completed
	}
	for _, n := range nodes {
		total := procCPUSeconds(n.pid)
		s.CPUSeconds += total
		threads := threadCPUSeconds(n.pid)
		for g, v := range threads {
			s.Threads[g] += v
			total -= v
		}
		s.Threads["exited"] += max(0, total)
	}
	return s, nil
}

// threadCPUSeconds is the user+system time of pid's threads, by group:
// the thread's name (Linux keeps its first 15 bytes) without a trailing
// number, so that the JIT compilers, the collectors' threads and the
// node's own ("opensearch[...") each sum to one figure.
func threadCPUSeconds(pid int) map[string]float64 {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	out := map[string]float64{}
	for _, e := range ents {
		b, err := os.ReadFile(dir + "/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		open, shut := strings.IndexByte(string(b), '('), strings.LastIndexByte(string(b), ')')
		if open < 0 || shut < open {
			continue
		}
		f := strings.Fields(string(b[shut+1:]))
		if len(f) < 13 {
			continue
		}
		u, _ := strconv.ParseFloat(f[11], 64)
		st, _ := strconv.ParseFloat(f[12], 64)
		out[threadGroup(string(b[open+1:shut]))] += (u + st) / clockTicks
	}
	return out
}

// threadGroup is the group of a thread's name: "C2 CompilerThre" and
// "C1 CompilerThre" the JIT's, "GC Thread#3" "GC Thread", the node's
// threads ("opensearch[node-0][write][T#1]", cut to 15 bytes) one group.
func threadGroup(name string) string {
	if strings.HasPrefix(name, "opensearch[") {
		return "opensearch"
	}
	return strings.TrimRight(name, "#0123456789 ")
}

// sub is s minus an earlier snapshot: the phase between them.
func (s NodeStats) sub(before NodeStats) *NodeStats {
	d := s
	d.CPUSeconds -= before.CPUSeconds
	d.Indexed -= before.Indexed
	d.IndexMs -= before.IndexMs
	d.IndexFailed -= before.IndexFailed
	d.Merges, d.MergeMs, d.MergedDocs = d.Merges-before.Merges, d.MergeMs-before.MergeMs, d.MergedDocs-before.MergedDocs
	d.Refreshes, d.RefreshMs = d.Refreshes-before.Refreshes, d.RefreshMs-before.RefreshMs
	d.Flushes, d.FlushMs = d.Flushes-before.Flushes, d.FlushMs-before.FlushMs
	d.YoungGCs, d.YoungGCMs = d.YoungGCs-before.YoungGCs, d.YoungGCMs-before.YoungGCMs
	d.OldGCs, d.OldGCMs = d.OldGCs-before.OldGCs, d.OldGCMs-before.OldGCMs
	d.WriteTasks -= before.WriteTasks
	d.DocStatus = maps.Clone(s.DocStatus)
	for k, v := range before.DocStatus {
		if d.DocStatus[k] -= v; d.DocStatus[k] == 0 {
			delete(d.DocStatus, k)
		}
	}
	d.Threads = maps.Clone(s.Threads)
	for k, v := range before.Threads {
		d.Threads[k] -= v
	}
	for k, v := range d.Threads {
		if v < 0.005 {
			delete(d.Threads, k)
		}
	}
	return &d
}

// text is the phase's figures a document, for the report.
func (s *NodeStats) text(docs int64) string {
	if s == nil || docs <= 0 {
		return ""
	}
	per := func(seconds float64) string { return num(seconds * 1e6 / float64(docs)) }
	var b strings.Builder
	fmt.Fprintf(&b, "the nodes %s µs of CPU a document (", per(s.CPUSeconds))
	groups := slices.SortedFunc(maps.Keys(s.Threads), func(a, b string) int {
		return cmp.Compare(s.Threads[b], s.Threads[a])
	})
	for i, g := range groups {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s", g, per(s.Threads[g]))
	}
	fmt.Fprintf(&b, "); %d index operations for %d documents (%v by status), indexing %s µs a document, %d merges of %d documents %s ms, %d refreshes %s ms, %d flushes %s ms, young GC %d %s ms, old GC %d %s ms, %d write tasks",
		s.Indexed, docs, s.DocStatus, per(float64(s.IndexMs)/1e3), s.Merges, s.MergedDocs, num(float64(s.MergeMs)),
		s.Refreshes, num(float64(s.RefreshMs)), s.Flushes, num(float64(s.FlushMs)), s.YoungGCs, num(float64(s.YoungGCMs)),
		s.OldGCs, num(float64(s.OldGCMs)), s.WriteTasks)
	b.WriteString(s.WritePool.text())
	return b.String()
}
