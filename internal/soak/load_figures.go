package soak

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"time"
)

// LoadFigures are the load's figures: every error and violation must be 0.
type LoadFigures struct {
	Clients   int                   `json:"clients"`
	DurationS float64               `json:"durationSeconds"`
	Requests  int                   `json:"requests"`
	Errors    int                   `json:"errors"`
	QPS       float64               `json:"qps"`
	P50Ms     float64               `json:"p50Ms"`
	P99Ms     float64               `json:"p99Ms"`
	MaxMs     float64               `json:"maxMs"`
	ByOp      map[string]*OpFigures `json:"byOp"`
	// ExactPages counts the first pages compared with the model's page
	// of every state they may be of.
	ExactPages int `json:"exactPages"`
	// Violations counts the answers that showed what must never be: by
	// kind (partial object, mixed snapshots, stale read, wrong count,
	// wrong page, lost or ghost object).
	Violations  map[string]int `json:"violations"`
	Samples     []violation    `json:"samples,omitempty"`
	FirstErrors []string       `json:"firstErrors,omitempty"`
	// Commits of the writer during the load, and their lag: from the
	// commit's return to the first status that served it.
	Commits int        `json:"commits"`
	Lag     LagFigures `json:"lag"`
	// Rebuilds counts the full rebuilds into a new generation asked for
	// during the load (one every 10 s).
	Rebuilds int `json:"rebuilds"`
	// Resent counts the requests the HTTP client sent again on a new
	// connection because the kept-alive one it picked had been closed.
	Resent int64 `json:"resent"`

	lat []time.Duration
}

// OpFigures are the figures of one kind of request.
type OpFigures struct {
	Requests int     `json:"requests"`
	Errors   int     `json:"errors"`
	P50Ms    float64 `json:"p50Ms"`
	P99Ms    float64 `json:"p99Ms"`
	lat      []time.Duration
}

// LagFigures: commit to searchable.
type LagFigures struct {
	Commits int     `json:"commits"`
	P50Ms   float64 `json:"p50Ms"`
	P99Ms   float64 `json:"p99Ms"`
	MaxMs   float64 `json:"maxMs"`
	// NeverServed lists the commits no status showed served.
	NeverServed []int64 `json:"neverServed,omitempty"`
	// ByKind: the lags of each kind of commit.
	ByKind map[string]*LagFigures `json:"byKind,omitempty"`
}

func newLoadFigures(o Options, d time.Duration) *LoadFigures {
	return &LoadFigures{Clients: o.Clients, DurationS: d.Seconds(), ByOp: map[string]*OpFigures{}, Violations: map[string]int{}}
}

func (f *LoadFigures) add(cs *clientStats) {
	for op, lat := range cs.lat {
		of := f.op(op)
		of.lat = append(of.lat, lat...)
		of.Requests += len(lat)
		f.lat = append(f.lat, lat...)
		f.Requests += len(lat)
	}
	for op, n := range cs.errors {
		f.op(op).Errors += n
		f.Errors += n
		f.Requests += n
	}
	for k, n := range cs.vcount {
		f.Violations[k] += n
	}
	for _, v := range cs.samples {
		if len(f.Samples) < maxSamples {
			f.Samples = append(f.Samples, v)
		}
	}
	for _, e := range cs.firstErrs {
		if len(f.FirstErrors) < 10 {
			f.FirstErrors = append(f.FirstErrors, e)
		}
	}
	f.ExactPages += cs.exact
}

// finish computes the rates and percentiles of what add gathered.
func (f *LoadFigures) finish() {
	f.QPS = float64(f.Requests) / f.DurationS
	f.P50Ms, f.P99Ms, f.MaxMs = pct(f.lat, 50), pct(f.lat, 99), pct(f.lat, 100)
	for _, of := range f.ByOp {
		of.P50Ms, of.P99Ms = pct(of.lat, 50), pct(of.lat, 99)
	}
}

func (f *LoadFigures) op(name string) *OpFigures {
	if f.ByOp[name] == nil {
		f.ByOp[name] = &OpFigures{}
	}
	return f.ByOp[name]
}

func (f *LoadFigures) violate(v violation) {
	f.Violations[v.Kind]++
	if len(f.Samples) < maxSamples {
		f.Samples = append(f.Samples, v)
	}
}

func (f *LoadFigures) setLag(lags []lag, missing []int64) {
	var all []time.Duration
	kinds := map[string][]time.Duration{}
	for _, l := range lags {
		all = append(all, l.d)
		kinds[l.kind] = append(kinds[l.kind], l.d)
	}
	f.Lag = lagFigures(all)
	f.Lag.NeverServed = missing
	f.Lag.ByKind = map[string]*LagFigures{}
	for k, ds := range kinds {
		lf := lagFigures(ds)
		f.Lag.ByKind[k] = &lf
	}
	if len(missing) > 0 {
		f.Violations["commit never served"] += len(missing)
	}
}

func lagFigures(ds []time.Duration) LagFigures {
	return LagFigures{Commits: len(ds), P50Ms: pct(ds, 50), P99Ms: pct(ds, 99), MaxMs: pct(ds, 100)}
}

func (f *LoadFigures) violations() int {
	n := 0
	for _, c := range f.Violations {
		n += c
	}
	return n
}

func (f *LoadFigures) ok() bool { return f.Errors == 0 && f.violations() == 0 }

// pct is the nearest-rank percentile p of d in milliseconds (0 for none).
func pct(d []time.Duration, p int) float64 {
	if len(d) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(d))
	rank := (len(s)*p + 99) / 100
	return float64(s[max(rank, 1)-1]) / float64(time.Millisecond)
}

func (f *LoadFigures) print(w io.Writer) {
	fmt.Fprintf(w, "  load: %d clients for %.0f s: %d requests (%.0f/s), %d errors, %d violations; p50 %.1f ms, p99 %.1f ms, max %.1f ms; %d first pages compared with the model's\n",
		f.Clients, f.DurationS, f.Requests, f.QPS, f.Errors, f.violations(), f.P50Ms, f.P99Ms, f.MaxMs, f.ExactPages)
	for _, op := range slices.Sorted(maps.Keys(f.ByOp)) {
		o := f.ByOp[op]
		fmt.Fprintf(w, "    %-24s %8d requests, %d errors, p50 %.1f ms, p99 %.1f ms\n", op, o.Requests, o.Errors, o.P50Ms, o.P99Ms)
	}
	fmt.Fprintf(w, "  rebuilds into a new generation during the load: %d\n", f.Rebuilds)
	fmt.Fprintf(w, "  requests sent again on a new connection (the kept-alive one was closed): %d\n", f.Resent)
	fmt.Fprintf(w, "  lag (commit to served): %d commits, p50 %.0f ms, p99 %.0f ms, max %.0f ms; %d never served\n",
		f.Lag.Commits, f.Lag.P50Ms, f.Lag.P99Ms, f.Lag.MaxMs, len(f.Lag.NeverServed))
	for _, k := range slices.Sorted(maps.Keys(f.Lag.ByKind)) {
		l := f.Lag.ByKind[k]
		fmt.Fprintf(w, "    %-24s %5d commits, p50 %.0f ms, max %.0f ms\n", k, l.Commits, l.P50Ms, l.MaxMs)
	}
	for k, n := range f.Violations {
		fmt.Fprintf(w, "  VIOLATIONS %s: %d\n", k, n)
	}
	for _, v := range f.Samples {
		fmt.Fprintf(w, "    %s: %s\n", v.Kind, v.Detail)
	}
	for _, e := range f.FirstErrors {
		fmt.Fprintf(w, "  ERROR %s\n", e)
	}
}
