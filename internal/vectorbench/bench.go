package vectorbench

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/ontoindex/ontoindex/indexer/vector"
)

// Options configure a run.
type Options struct {
	Vectors        int
	Dimension      int
	Queries        int
	K              int
	M              int
	EfConstruction int
	EfSearch       int
	Seed           uint64
	// MinDuration is the least time each side's searches are measured for
	// (the queries are repeated until it has passed).
	MinDuration time.Duration
	// Python is a python that imports faiss; empty: the one of Venv, which
	// the bench makes and fills with faiss-cpu when it cannot.
	Python   string
	Venv     string
	Dir      string    // work directory; empty: a temporary one, removed
	Progress io.Writer // progress lines; nil: none
}

// Side is one engine's figures.
type Side struct {
	BuildSeconds     float64 `json:"buildSeconds"`
	QueriesPerSecond float64 `json:"queriesPerSecond"`
	RecallAtK        float64 `json:"recallAtK"`
	// BytesPerVector is the memory the index's structures hold per vector
	// as it accounts for them (ontoindex: vectors, norms, links, document
	// map), or the size of the serialized index per vector (FAISS: vectors,
	// links and levels, as it holds them).
	BytesPerVector float64 `json:"bytesPerVector"`
}

// Report is what a run measures.
type Report struct {
	Vectors        int    `json:"vectors"`
	Dimension      int    `json:"dimension"`
	Queries        int    `json:"queries"`
	K              int    `json:"k"`
	M              int    `json:"m"`
	EfConstruction int    `json:"efConstruction"`
	EfSearch       int    `json:"efSearch"`
	Threads        int    `json:"threads"`
	FaissVersion   string `json:"faissVersion"`

	ExactQueriesPerSecond float64 `json:"exactQueriesPerSecond"`
	Ontoindex             Side    `json:"ontoindex"`
	Faiss                 Side    `json:"faiss"`
	VsExact               float64 `json:"vsExact"` // ontoindex q/s / exact q/s (target >= 20)
	VsFaiss               float64 `json:"vsFaiss"` // ontoindex q/s / FAISS q/s (target >= 0.5)
}

// Run generates the vectors, builds both indexes, and measures them.
func Run(ctx context.Context, o Options) (*Report, error) {
	dir := o.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "ontolab-bench-vector-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	progress := func(format string, args ...any) {
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, format+"\n", args...)
		}
	}
	python, err := pythonWithFaiss(ctx, o.Python, o.Venv)
	if err != nil {
		return nil, err
	}
	threads := runtime.GOMAXPROCS(0)
	rep := &Report{Vectors: o.Vectors, Dimension: o.Dimension, Queries: o.Queries, K: o.K, M: o.M,
		EfConstruction: o.EfConstruction, EfSearch: o.EfSearch, Threads: threads}

	progress("generating %d vectors of dimension %d", o.Vectors, o.Dimension)
	g := newGenerator(o.Seed, o.Dimension)
	base := make([]float32, o.Vectors*o.Dimension)
	g.fill(base)
	queries := make([]float32, o.Queries*o.Dimension)
	g.fill(queries)
	if err := writeFloats(filepath.Join(dir, "base.f32"), base); err != nil {
		return nil, err
	}
	if err := writeFloats(filepath.Join(dir, "queries.f32"), queries); err != nil {
		return nil, err
	}
	query := func(i int) []float32 { return queries[i*o.Dimension : (i+1)*o.Dimension] }

	progress("building ontoindex's index (M %d, efConstruction %d)", o.M, o.EfConstruction)
	params := vector.Params{M: o.M, EfConstruction: o.EfConstruction, EfSearch: o.EfSearch, ExactBelow: 0, Seed: o.Seed}
	start := time.Now()
	changes := make([]vector.Change, o.Vectors)
	for i := range changes {
		changes[i] = vector.Change{Doc: uint32(i), Vector: base[i*o.Dimension : (i+1)*o.Dimension]}
	}
	ix, err := vector.New(o.Dimension, vector.Euclidean, params).Apply(changes)
	if err != nil {
		return nil, err
	}
	rep.Ontoindex.BuildSeconds = time.Since(start).Seconds()
	rep.Ontoindex.BytesPerVector = float64(ix.Bytes()) / float64(o.Vectors)

	progress("exact search of %d queries (the recall's truth)", o.Queries)
	truth := make([][]vector.Hit, o.Queries)
	elapsed, err := parallel(ctx, o.Queries, threads, func(i int) error {
		h, err := ix.Exact(ctx, query(i), o.K, nil)
		truth[i] = h
		return err
	})
	if err != nil {
		return nil, err
	}
	rep.ExactQueriesPerSecond = float64(o.Queries) / elapsed.Seconds()

	progress("ontoindex searches (efSearch %d)", o.EfSearch)
	found := make([][]vector.Hit, o.Queries)
	done, total := 0, time.Duration(0)
	for total < o.MinDuration || done == 0 {
		d, err := parallel(ctx, o.Queries, threads, func(i int) error {
			h, err := ix.Search(ctx, query(i), o.K, nil)
			found[i] = h
			return err
		})
		if err != nil {
			return nil, err
		}
		done, total = done+o.Queries, total+d
	}
	rep.Ontoindex.QueriesPerSecond = float64(done) / total.Seconds()
	rep.Ontoindex.RecallAtK = recall(truth, func(i int) []int64 {
		ids := make([]int64, len(found[i]))
		for j, h := range found[i] {
			ids[j] = int64(h.Doc)
		}
		return ids
	})

	progress("FAISS: building and searching with the same parameters")
	fr, ids, err := runFaiss(ctx, python, dir, o, threads)
	if err != nil {
		return nil, err
	}
	rep.FaissVersion = fr.Version
	rep.Faiss = Side{BuildSeconds: fr.BuildSeconds, QueriesPerSecond: fr.QueriesPerSecond,
		BytesPerVector: float64(fr.IndexBytes) / float64(o.Vectors),
		RecallAtK:      recall(truth, func(i int) []int64 { return ids[i*o.K : (i+1)*o.K] })}
	rep.VsExact = rep.Ontoindex.QueriesPerSecond / rep.ExactQueriesPerSecond
	rep.VsFaiss = rep.Ontoindex.QueriesPerSecond / rep.Faiss.QueriesPerSecond
	return rep, nil
}

// recall is the share of the true k nearest that ids(i) finds, over the
// queries.
func recall(truth [][]vector.Hit, ids func(i int) []int64) float64 {
	hits, total := 0, 0
	for i, want := range truth {
		got := map[int64]bool{}
		for _, id := range ids(i) {
			got[id] = true
		}
		for _, h := range want {
			total++
			if got[int64(h.Doc)] {
				hits++
			}
		}
	}
	if total == 0 {
		return math.NaN()
	}
	return float64(hits) / float64(total)
}

// parallel runs fn(0..n-1) on threads goroutines and returns the time it
// took; the first error stops it.
func parallel(ctx context.Context, n, threads int, fn func(i int) error) (time.Duration, error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	start := time.Now()
	for range threads {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				if err := fn(i); err != nil {
					mu.Lock()
					first = cmp.Or(first, err)
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return time.Since(start), first
}

// writeFloats writes vs as little-endian float32s, what numpy's fromfile
// reads as "<f4".
func writeFloats(path string, vs []float32) error {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return os.WriteFile(path, b, 0o644)
}

// WriteText prints the report as a table.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%d vectors of dimension %d, %d queries, k %d; HNSW M %d, efConstruction %d, efSearch %d; %d threads; FAISS %s\n\n",
		r.Vectors, r.Dimension, r.Queries, r.K, r.M, r.EfConstruction, r.EfSearch, r.Threads, r.FaissVersion)
	fmt.Fprintln(tw, "\trecall@k\tq/s\tbuild s\tbytes/vector")
	fmt.Fprintf(tw, "ontoindex HNSW\t%.4f\t%.0f\t%.1f\t%.0f\n", r.Ontoindex.RecallAtK, r.Ontoindex.QueriesPerSecond, r.Ontoindex.BuildSeconds, r.Ontoindex.BytesPerVector)
	fmt.Fprintf(tw, "FAISS HNSW\t%.4f\t%.0f\t%.1f\t%.0f\n", r.Faiss.RecallAtK, r.Faiss.QueriesPerSecond, r.Faiss.BuildSeconds, r.Faiss.BytesPerVector)
	fmt.Fprintf(tw, "exact\t1\t%.1f\t\t\n", r.ExactQueriesPerSecond)
	fmt.Fprintf(tw, "\nontoindex / exact q/s\t%.1fx (target >= 20x)\n", r.VsExact)
	fmt.Fprintf(tw, "ontoindex / FAISS q/s\t%.2fx (target >= 0.5x)\n", r.VsFaiss)
	return tw.Flush()
}
