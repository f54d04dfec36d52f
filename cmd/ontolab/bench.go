package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/benchdata"
	"github.com/ontoindex/ontoindex/internal/cli"
	"github.com/ontoindex/ontoindex/internal/icebergwrite"
	"github.com/ontoindex/ontoindex/objects"
)

// runBench dispatches to `bench build` (also plain `bench`, as before
// there were two), `bench search`, `bench subscribe`, `bench opensearch`,
// `bench interface`, `bench geo` and `bench floor`,
// the net/http server bench search measures a get by key on besides
// ontoindex.
func runBench(ctx context.Context, env *Env, args []string) int {
	if len(args) > 0 {
		switch args[0] {
		case "build":
			return runBenchBuild(ctx, env, "bench build", args[1:])
		case "search":
			return runBenchSearch(ctx, env, args[1:])
		case "floor": // started by bench search
			return runBenchFloor(ctx, env, args[1:])
		case "subscribe":
			return runBenchSubscribe(ctx, env, args[1:])
		case "opensearch":
			return runBenchOpenSearch(ctx, env, args[1:])
		case "interface":
			return runBenchInterface(ctx, env, args[1:])
		case "geo":
			return runBenchGeo(ctx, env, args[1:])
		case "vector":
			return runBenchVector(ctx, env, args[1:])
		}
	}
	return runBenchBuild(ctx, env, "bench", args)
}

// benchReport is what `ontolab bench` measures. Ratios compare the engine
// with baselines measured in the same run on the same machine.
type benchReport struct {
	Rows  int `json:"rows"`
	Files int `json:"files"`
	CPUs  int `json:"cpus"`

	ScanSeconds       float64 `json:"scanSeconds"`       // baseline: iceberg-go reads every row, no indexing
	ScanRowsPerSecond float64 `json:"scanRowsPerSecond"` //
	ScanPeakHeapMiB   float64 `json:"scanPeakHeapMiB"`   //

	FullSeconds          float64 `json:"fullSeconds"`
	FullObjectsPerSecond float64 `json:"fullObjectsPerSecond"`
	FullPeakHeapMiB      float64 `json:"fullPeakHeapMiB"`
	FullPeakRSSMiB       float64 `json:"fullPeakRssMiB"`
	FullBytesRead        int64   `json:"fullBytesRead"`
	FullVsScan           float64 `json:"fullVsScanTimeRatio"` // full build time / scan time

	SmallRows         int     `json:"smallRows"` // the same build on a table of rows/10
	SmallPeakHeapMiB  float64 `json:"smallPeakHeapMiB"`
	HeapGrowthRatio   float64 `json:"heapGrowthRatio"` // peak heap at rows / peak heap at rows/10
	IncrementalMs     float64 `json:"incrementalMs"`   // build after a one-row COW edit, median of benchEdits
	IncrementalFiles  int     `json:"incrementalFilesRead"`
	IncrementalBytes  int64   `json:"incrementalBytesRead"`
	IncrementalVsFull float64 `json:"incrementalVsFullTimeRatio"`

	// Warehouse: the same builds on the warehouse of --warehouse.
	Warehouse *benchWarehouse `json:"warehouse,omitempty"`
}

// benchEdits is how many one-row edits the incremental figure is the
// median of.
const benchEdits = 5

func runBenchBuild(ctx context.Context, env *Env, name string, args []string) int {
	fs := newFlags(env, name, "[--rows N] [--files N] [--dir D] [--warehouse URL] [--json]\n\n"+
		"Measures full and incremental build speed and memory against baselines. With --warehouse (an\n"+
		"s3://bucket/prefix), also the full and incremental builds of the same table in that warehouse,\n"+
		"through a sql catalog on SQLite in the work directory; the S3 connection is iceberg-go's, from\n"+
		"AWS_S3_ENDPOINT, AWS_REGION, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY. `ontolab bench search -h`\n"+
		"describes the search benchmark, `ontolab bench subscribe -h` the subscriptions benchmark,\n"+
		"`ontolab bench opensearch -h` the OpenSearch backend's scale run,\n"+
		"`ontolab bench interface -h` the benchmark of a search over an interface, `ontolab bench geo -h`\n"+
		"the geo filters against PostGIS.")
	rows := fs.Int("rows", 1_000_000, "rows in the benchmark table")
	files := fs.Int("files", 40, "data files the table is written as")
	dir := fs.String("dir", "", "work directory (default: a temporary directory, removed afterwards)")
	warehouse := fs.String("warehouse", "", "also build the table in this warehouse (s3://bucket/prefix), next to the local figures; a run's objects go under <prefix>/bench-<time>, removed afterwards unless --dir is set")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file")
	memProfile := fs.String("memprofile", "", "write a heap profile taken at the peak of the full build to this file")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if *cpuProfile != "" {
		stop, err := cli.StartCPUProfile(*cpuProfile)
		if err != nil {
			fmt.Fprintf(env.Stderr, "ontolab bench: %v\n", err)
			return exitFailed
		}
		defer stop()
	}
	if *rows < 10 || *files < 1 || *files > *rows {
		fmt.Fprintln(env.Stderr, "ontolab bench: need --rows >= 10 and 1 <= --files <= --rows")
		return exitUsage
	}
	if *warehouse != "" && !strings.Contains(*warehouse, "://") {
		fmt.Fprintf(env.Stderr, "ontolab bench: --warehouse %q is not a URL such as s3://bucket/prefix\n", *warehouse)
		return exitUsage
	}
	work := *dir
	if work == "" {
		tmp, err := os.MkdirTemp("", "indexer-bench-")
		if err != nil {
			fmt.Fprintf(env.Stderr, "ontolab bench: %v\n", err)
			return exitFailed
		}
		defer os.RemoveAll(tmp)
		work = tmp
	}
	rep, err := bench(ctx, env, work, *rows, *files, *memProfile)
	if err == nil && *warehouse != "" {
		rep.Warehouse, err = benchOnWarehouse(ctx, work, *warehouse, rep, *dir != "")
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "ontolab bench: %v\n", err)
		return exitFailed
	}
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
		return exitOK
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "table\t%d rows in %d files, %d CPUs\n", rep.Rows, rep.Files, rep.CPUs)
	fmt.Fprintf(tw, "baseline scan (iceberg-go, all rows)\t%.2fs\t%.0f rows/s\tpeak heap %.0f MiB\n", rep.ScanSeconds, rep.ScanRowsPerSecond, rep.ScanPeakHeapMiB)
	fmt.Fprintf(tw, "full build\t%.2fs\t%.0f objects/s, %d bytes read\tpeak heap %.0f MiB, peak RSS %.0f MiB\n", rep.FullSeconds, rep.FullObjectsPerSecond, rep.FullBytesRead, rep.FullPeakHeapMiB, rep.FullPeakRSSMiB)
	fmt.Fprintf(tw, "full build / scan time\t%.1fx\t\t\n", rep.FullVsScan)
	fmt.Fprintf(tw, "peak heap at %d rows / at %d rows\t%.2fx\t\t\n", rep.Rows, rep.SmallRows, rep.HeapGrowthRatio)
	fmt.Fprintf(tw, "incremental build after a one-row COW edit (median of %d)\t%.0f ms\t%d files, %d bytes read\t%.4fx the full build time\n", benchEdits, rep.IncrementalMs, rep.IncrementalFiles, rep.IncrementalBytes, rep.IncrementalVsFull)
	if w := rep.Warehouse; w != nil {
		fmt.Fprintf(tw, "full build in %s\t%.2fs\t%.0f objects/s, %d bytes read\t%.2fx the local full build time\n", w.URL, w.FullSeconds, w.FullObjectsPerSecond, w.FullBytesRead, w.FullVsLocal)
		fmt.Fprintf(tw, "incremental build there (median of %d)\t%.0f ms\t%d files, %d bytes read\t%.2fx the local incremental time\n", benchEdits, w.IncrementalMs, w.IncrementalFiles, w.IncrementalBytes, w.IncrementalVsLocal)
	}
	_ = tw.Flush()
	return exitOK
}

func bench(ctx context.Context, env *Env, work string, rows, files int, memProfile string) (*benchReport, error) {
	rep := &benchReport{Rows: rows, Files: files, CPUs: runtime.NumCPU(), SmallRows: rows / 10}
	_, err := benchdata.WriteTable(ctx, filepath.Join(work, "small"), rep.SmallRows, max(1, files/10))
	if err != nil {
		return nil, err
	}
	_, smallHeap, _, _, err := benchBuild(ctx, filepath.Join(work, "small"), hadoopCatalog(filepath.Join(work, "small")), "")
	if err != nil {
		return nil, err
	}
	rep.SmallPeakHeapMiB = smallHeap

	tbl, err := benchdata.WriteTable(ctx, filepath.Join(work, "big"), rows, files)
	if err != nil {
		return nil, err
	}
	// Baseline: read every row through iceberg-go, discarding it.
	runtime.GC()
	peak := cli.WatchHeap("")
	start := time.Now()
	_, it, err := tbl.Scan(table.WithSelectedFields("*")).ToArrowRecords(ctx)
	if err != nil {
		return nil, err
	}
	var n int64
	for rec, err := range it {
		if err != nil {
			return nil, err
		}
		n += rec.NumRows()
		rec.Release()
	}
	rep.ScanSeconds = time.Since(start).Seconds()
	rep.ScanPeakHeapMiB = peak()
	rep.ScanRowsPerSecond = float64(n) / rep.ScanSeconds

	full, heap, rss, ix, err := benchBuild(ctx, filepath.Join(work, "big"), hadoopCatalog(filepath.Join(work, "big")), memProfile)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	rep.FullSeconds = float64(full.DurationMs) / 1000
	rep.FullObjectsPerSecond = float64(full.Upserts) / rep.FullSeconds
	rep.FullPeakHeapMiB, rep.FullPeakRSSMiB = heap, rss
	rep.FullBytesRead = full.BytesRead
	rep.FullVsScan = rep.FullSeconds / rep.ScanSeconds
	rep.HeapGrowthRatio = rep.FullPeakHeapMiB / rep.SmallPeakHeapMiB

	if rep.IncrementalMs, rep.IncrementalFiles, rep.IncrementalBytes, err = benchIncremental(ctx, ix, tbl, rows); err != nil {
		return nil, err
	}
	rep.IncrementalVsFull = rep.IncrementalMs / (rep.FullSeconds * 1000)
	return rep, nil
}

// benchIncremental commits one-row copy-on-write edits, each followed by
// an incremental build, and returns the median build time (the first one
// shares the machine with the index file the full build left to write)
// and what the last one read.
func benchIncremental(ctx context.Context, ix *indexer.Indexer, tbl *table.Table, rows int) (ms float64, files int, bytes int64, err error) {
	var times []float64
	for i := range benchEdits {
		id := rows/2 + i
		tbl, err = icebergwrite.Overwrite(ctx, tbl, iceberg.EqualTo(iceberg.Reference("id"), int64(id)), benchdata.Items(id, 1, "edited"))
		if err != nil {
			return 0, 0, 0, err
		}
		inc, err := ix.Build(ctx, "Item", indexer.BuildOptions{})
		if err != nil {
			return 0, 0, 0, err
		}
		if inc.Kind != indexer.KindIncremental || inc.Upserts != 1 {
			return 0, 0, 0, fmt.Errorf("incremental build after a one-row edit: %+v", inc)
		}
		times = append(times, float64(inc.DurationMs))
		files, bytes = inc.FilesRead, inc.BytesRead
	}
	slices.Sort(times)
	return times[len(times)/2], files, bytes, nil
}

// hadoopCatalog is the catalog of the local warehouse under dir.
func hadoopCatalog(dir string) config.Catalog {
	return config.Catalog{Type: "hadoop", Properties: map[string]string{"warehouse": benchdata.Warehouse(dir)}}
}

// benchBuild runs a full build of table ns.items of catalog cat, with the
// data dir in dir; it returns the result, the peak heap and the peak RSS
// (MiB) during the build.
func benchBuild(ctx context.Context, dir string, cat config.Catalog, memProfile string) (*indexer.BuildResult, float64, float64, *indexer.Indexer, error) {
	cfg := config.Default()
	cfg.Dir = dir
	cfg.DataDir = "data"
	cfg.Catalogs = map[string]config.Catalog{"warehouse": cat}
	cfg.ObjectTypes = []objects.TypeSpec{{APIName: "Item", Table: "warehouse." + benchdata.Ident, TitleProperty: "name"}}
	if err := cfg.Validate(); err != nil {
		return nil, 0, 0, nil, err
	}
	ix, err := indexer.Open(ctx, cfg, indexer.Options{})
	if err != nil {
		return nil, 0, 0, nil, err
	}
	runtime.GC()
	resetPeakRSS()
	peak := cli.WatchHeap(memProfile)
	r, err := ix.Build(ctx, "Item", indexer.BuildOptions{})
	heap := peak()
	if err != nil {
		ix.Close()
		return nil, 0, 0, nil, err
	}
	return r, heap, peakRSS(), ix, nil
}

// resetPeakRSS resets the kernel's high-water mark of this process (Linux).
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS reads the high-water mark of the resident set (Linux), in MiB.
func peakRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb float64
			fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(v), " kB"), &kb)
			return kb / 1024
		}
	}
	return 0
}
