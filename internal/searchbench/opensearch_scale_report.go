package searchbench

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// ScaleReport is what the scale run of the OpenSearch backend measured.
type ScaleReport struct {
	Rows    int    `json:"rows"`
	Files   int    `json:"files"`
	CPUs    int    `json:"cpus"`
	Version string `json:"version"` // the serving ontoindex's

	OpenSearch   string `json:"openSearch"` // its version
	Nodes        int    `json:"nodes"`
	HeapMiB      int    `json:"heapMiB"` // each node's
	Profile      string `json:"profile"` // the test kit's profile of the nodes
	Shards       int    `json:"shards"`
	Replicas     int    `json:"replicas"`
	PollInterval string `json:"pollInterval"`
	// EmbeddedIndex is the backend's embeddedIndex: full or none.
	EmbeddedIndex string `json:"embeddedIndex"`

	WriteTableSeconds   float64 `json:"writeTableSeconds"`   // writing the Iceberg table: not part of time to searchable
	ClusterStartSeconds float64 `json:"clusterStartSeconds"` // the nodes' start until green

	// Baseline is the same table built into the embedded index alone
	// (nil: not measured).
	Baseline *ScaleBaseline `json:"baseline,omitempty"`
	// WarmUp is the throwaway build before the measured one (nil: none).
	WarmUp *WarmUp       `json:"warmUp,omitempty"`
	Build  ScaleBuild    `json:"build"`
	Edits  ScaleEdits    `json:"edits"`
	Memory []ScaleMemory `json:"memory"`
}

// ScaleBuild is the full build's figures.
type ScaleBuild struct {
	// SearchableSeconds is the server's process start until /readyz:
	// the type built into the cluster (and into the embedded index, which
	// a backend type keeps for gets).
	SearchableSeconds float64 `json:"searchableSeconds"`
	// LoadMin and LoadMax are the 1-minute load averages read every 5 s
	// while it built.
	LoadMin float64      `json:"loadMin"`
	LoadMax float64      `json:"loadMax"`
	Objects int64        `json:"objects"` // what the server serves
	Backend BackendBuild `json:"backend"` // the build, as the type's status reports it
	// IndexerCPUSeconds is the server's user+system time until
	// searchable; NodesCPUSeconds the nodes' JVMs' over the same time.
	IndexerCPUSeconds float64 `json:"indexerCpuSeconds"`
	NodesCPUSeconds   float64 `json:"nodesCpuSeconds"`
	// Node is what the nodes counted over the same time.
	Node *NodeStats `json:"node,omitempty"`
	// Index, Documents, StoreMiB (every copy) and PrimariesMiB are the
	// type's index as the cluster reports it after the build.
	Index        string  `json:"index"`
	Documents    int64   `json:"documents"`
	StoreMiB     float64 `json:"storeMiB"`
	PrimariesMiB float64 `json:"primariesMiB"`
	// Straight is the first of the built documents sent again straight
	// in bulk requests into a new index like the type's, as the build
	// sends them (nil: not measured); IngestRatio is the build's
	// documents/s over the straight bulk's.
	Straight    *IngestFigures `json:"straight,omitempty"`
	IngestRatio float64        `json:"ingestRatio,omitempty"`
	// IngestRatioStraightFirst is the build's documents/s over the
	// straight bulk's that ran before it, after the warm-up (0: none).
	IngestRatioStraightFirst float64 `json:"ingestRatioStraightFirst,omitempty"`
}

// ScaleBaseline is the table's build into a server of the embedded index
// alone, before the cluster starts.
type ScaleBaseline struct {
	SearchableSeconds float64 `json:"searchableSeconds"` // process start until /readyz
	LoadMin           float64 `json:"loadMin"`
	LoadMax           float64 `json:"loadMax"`
	Objects           int64   `json:"objects"`
	CPUSeconds        float64 `json:"cpuSeconds"` // the server's user+system time until then
	PeakRSSMiB        float64 `json:"peakRssMiB"`
}

// ScaleEdits are the one-row edits after the build.
type ScaleEdits struct {
	Edits []Edit `json:"edits"`
	// P50Ms, P99Ms and MaxMs are of SearchableMs (nearest rank).
	P50Ms float64 `json:"p50Ms"`
	P99Ms float64 `json:"p99Ms"`
	MaxMs float64 `json:"maxMs"`
	// CommitP50Ms is the median time the commits took (not part of the
	// latency, which starts at their return).
	CommitP50Ms float64 `json:"commitP50Ms"`
	// Fallbacks are the edits' searches the embedded index answered
	// (the run fails unless 0).
	Fallbacks  int64   `json:"fallbacks"`
	LoadBefore float64 `json:"loadBefore"`
	LoadAfter  float64 `json:"loadAfter"`
}

// Edit is one edit: the customer, how long its commit took, and the time
// from the commit's return until a search through the API found it.
type Edit struct {
	Key          int64   `json:"key"`
	CommitMs     float64 `json:"commitMs"`
	SearchableMs float64 `json:"searchableMs"`
	Searches     int     `json:"searches"` // searches sent until it was found
}

// ScaleMemory are resident sets at one point of the run.
type ScaleMemory struct {
	When              string  `json:"when"`
	IndexerRSSMiB     float64 `json:"indexerRssMiB"`
	IndexerPeakRSSMiB float64 `json:"indexerPeakRssMiB"` // VmHWM since the server started
	// IndexerAnonMiB is the anonymous part of the RSS (RssAnon): the
	// rest is the store's file, mapped, which the kernel may drop.
	IndexerAnonMiB float64 `json:"indexerAnonMiB"`
	// IndexerHeapMiB is the Go heap in use (go_memstats_heap_inuse_bytes
	// of /metrics; 0 when it could not be read).
	IndexerHeapMiB float64      `json:"indexerHeapMiB"`
	Nodes          []NodeMemory `json:"nodes"`
}

// NodeMemory is one node's JVM's resident set, now and at its peak.
type NodeMemory struct {
	Name       string  `json:"name"`
	RSSMiB     float64 `json:"rssMiB"`
	PeakRSSMiB float64 `json:"peakRssMiB"`
}

// summarize computes the percentiles of the edits.
func (e *ScaleEdits) summarize() {
	var found, commits []time.Duration
	for _, ed := range e.Edits {
		found = append(found, time.Duration(ed.SearchableMs*float64(time.Millisecond)))
		commits = append(commits, time.Duration(ed.CommitMs*float64(time.Millisecond)))
	}
	e.P50Ms, e.P99Ms, e.MaxMs = percentileMs(found, 50), percentileMs(found, 99), percentileMs(found, 100)
	e.CommitP50Ms = percentileMs(commits, 50)
}

// WriteText prints the report.
func (r *ScaleReport) WriteText(w io.Writer) error {
	b := &r.Build
	var s strings.Builder
	fmt.Fprintf(&s, "OpenSearch backend at scale: %d customers (%d files), ontoindex %s, %d CPUs\n", r.Rows, r.Files, r.Version, r.CPUs)
	fmt.Fprintf(&s, "cluster: OpenSearch %s, %d nodes of %d MiB heap (the test kit's %s profile), index of %d shards, %d replicas; started in %s s\n",
		r.OpenSearch, r.Nodes, r.HeapMiB, r.Profile, r.Shards, r.Replicas, num(r.ClusterStartSeconds))
	fmt.Fprintf(&s, "backend embeddedIndex: %s\n", r.EmbeddedIndex)
	fmt.Fprintf(&s, "full build: searchable after %s s (serve --build until /readyz; load average %.1f-%.1f), %d objects served\n",
		num(b.SearchableSeconds), b.LoadMin, b.LoadMax, b.Objects)
	if bl := r.Baseline; bl != nil && bl.SearchableSeconds > 0 {
		fmt.Fprintf(&s, "  baseline, the embedded index alone: searchable after %s s (load average %.1f-%.1f), CPU %s s, peak RSS %.0f MiB: the backend %.2fx its time\n",
			num(bl.SearchableSeconds), bl.LoadMin, bl.LoadMax, num(bl.CPUSeconds), bl.PeakRSSMiB, b.SearchableSeconds/bl.SearchableSeconds)
	}
	if wu := r.WarmUp; wu != nil && len(wu.Builds) > 0 && wu.Builds[0].Seconds > 0 {
		fmt.Fprintf(&s, "  warm-up before it, the node's first writes: searchable after %s s (load average %.1f-%.1f), the build %s s, %s documents/s\n",
			num(wu.Seconds), wu.LoadMin, wu.LoadMax, num(wu.Builds[0].Seconds), num(float64(wu.Builds[0].Indexed)/wu.Builds[0].Seconds))
		if t := wu.Node.text(wu.Indexed()); t != "" {
			fmt.Fprintf(&s, "  during the warm-up: %s\n", t)
		}
		if in := wu.Straight; in != nil && in.BulkSeconds > 0 {
			fmt.Fprintf(&s, "  after the warm-up, before the build: the first %d documents sent straight in %d bulk requests, two at once: %s s, %s documents/s\n",
				in.Documents, in.Requests, num(in.BulkSeconds), num(float64(in.Documents)/in.BulkSeconds))
			if t := in.Node.text(in.Documents); t != "" {
				fmt.Fprintf(&s, "  during that straight bulk: %s\n", t)
			}
		}
	}
	if b.SearchableSeconds > 0 {
		fmt.Fprintf(&s, "  %s objects/s to searchable; the build %s s, %d documents indexed in %d writes (mean %s ms each), %d sent again after a 429\n",
			num(float64(b.Objects)/b.SearchableSeconds), num(b.Backend.Seconds), b.Backend.Indexed, b.Backend.Writes, num(b.Backend.MeanWriteMs), b.Backend.Retries)
	}
	if b.Objects > 0 {
		fmt.Fprintf(&s, "  CPU: the indexer %s s (%s µs an object), the nodes %s s (%s µs an object)\n",
			num(b.IndexerCPUSeconds), num(b.IndexerCPUSeconds*1e6/float64(b.Objects)), num(b.NodesCPUSeconds), num(b.NodesCPUSeconds*1e6/float64(b.Objects)))
	}
	if t := b.Node.text(b.Objects); t != "" {
		fmt.Fprintf(&s, "  during the build: %s\n", t)
	}
	fmt.Fprintf(&s, "  index %s: %d documents, %s MiB stored (%s MiB of primaries)\n", b.Index, b.Documents, num(b.StoreMiB), num(b.PrimariesMiB))
	if in := b.Straight; in != nil && in.BulkSeconds > 0 && b.Backend.Seconds > 0 {
		fmt.Fprintf(&s, "  ingest: the build %s documents/s; the first %d documents sent again straight in %d bulk requests, two at once: %s s, %s documents/s: ratio %.2f\n",
			num(float64(b.Backend.Indexed)/b.Backend.Seconds), in.Documents, in.Requests, num(in.BulkSeconds), num(float64(in.Documents)/in.BulkSeconds), b.IngestRatio)
		if b.IngestRatioStraightFirst > 0 {
			fmt.Fprintf(&s, "  ingest, the other order: the build's rate over the straight bulk's before it (after the warm-up): ratio %.2f\n", b.IngestRatioStraightFirst)
		}
		if t := in.Node.text(in.Documents); t != "" {
			fmt.Fprintf(&s, "  during the straight bulk: %s\n", t)
		}
	}
	e := &r.Edits
	fmt.Fprintf(&s, "one-row edits (poll interval %s; load average %.1f before, %.1f after): %d, commit to found by a search p50 %s ms, p99 %s ms, max %s ms (commits took %s ms at the median)\n",
		r.PollInterval, e.LoadBefore, e.LoadAfter, len(e.Edits), num(e.P50Ms), num(e.P99Ms), num(e.MaxMs), num(e.CommitP50Ms))
	for _, m := range r.Memory {
		fmt.Fprintf(&s, "memory %s: indexer RSS %.0f MiB (peak %.0f MiB; anonymous %.0f MiB, Go heap in use %.0f MiB)",
			m.When, m.IndexerRSSMiB, m.IndexerPeakRSSMiB, m.IndexerAnonMiB, m.IndexerHeapMiB)
		for _, n := range m.Nodes {
			fmt.Fprintf(&s, "; %s %.0f MiB (peak %.0f)", n.Name, n.RSSMiB, n.PeakRSSMiB)
		}
		s.WriteString("\n")
	}
	_, err := io.WriteString(w, s.String())
	return err
}
