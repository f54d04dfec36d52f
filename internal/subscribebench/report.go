package subscribebench

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/ontoindex/ontoindex/internal/searchbench"
)

// Report is what a run measured.
type Report struct {
	MeasuredAt string `json:"measuredAt"` // the machine is shared: when, to compare with its other work
	// LoadAverage is the machine's 1-minute load average at the start and
	// at the end of the run (/proc/loadavg; 0: unknown): other work shows.
	LoadAverage [2]float64 `json:"loadAverage"`
	Binary      string     `json:"binary"`
	Version     string     `json:"version"`
	Rows        int        `json:"rows"`
	Files       int        `json:"files"`
	CPUs        int        `json:"cpus"`
	Seed        uint64     `json:"seed"`

	Subscriptions  int     `json:"subscriptions"`
	Connections    int     `json:"connections"`
	Kinds          []Kind  `json:"kinds"`
	DistinctSets   int     `json:"distinctSets"` // different requests among the subscriptions
	PollIntervalMs float64 `json:"pollIntervalMs"`
	CommitEveryMs  float64 `json:"commitEveryMs"`

	Clients         int     `json:"clients"`         // search clients
	DurationSeconds float64 `json:"durationSeconds"` // measured per search part
	Rounds          int     `json:"rounds"`

	Quiet  QuietFigures    `json:"quiet"`
	Search []SearchFigures `json:"search"`
	// ServerMetrics are the server's ontoindex_subscription_* counters at
	// the end (summed over labels), and push_seconds' mean in ms.
	ServerMetrics map[string]float64   `json:"serverMetrics,omitempty"`
	Targets       []searchbench.Target `json:"targets"`
	Errors        []string             `json:"errors"`
	Notes         []string             `json:"notes,omitempty"`
}

// PartFigures are the figures of a quiet part.
type PartFigures struct {
	Commits          int     `json:"commits"`
	Seconds          float64 `json:"seconds"`          // first commit until built (and delivered)
	ServerCPUSeconds float64 `json:"serverCpuSeconds"` // over the same window
	ClientCPUSeconds float64 `json:"clientCpuSeconds"` // the bench process: writer and websocket clients
	IdlePct          float64 `json:"idlePct"`          // of the machine
	Stray            int     `json:"stray"`            // objectSetChanged for no current subscription
}

// QuietFigures are the commits without search load: the latency, and the
// server's CPU per delivered change.
type QuietFigures struct {
	Without      PartFigures `json:"withoutSubscribers"`
	With         PartFigures `json:"withSubscribers"`
	WithoutAfter PartFigures `json:"withoutSubscribersAfter"`
	Latency      Latency     `json:"latency"`
	// Served is commit return to the end of the build that served the
	// commit (the daemon's status), once per commit; Push the end of that
	// build to the receipt, once per delivery: the two parts of Latency.
	Served  Latency `json:"commitToServed"`
	Push    Latency `json:"servedToReceived"`
	Outcome Outcome `json:"deliveries"`
	// ServerCPUPerChangeUs is the server's CPU over the part with
	// subscribers per delivered change; MarginalCPUPerChangeUs the same
	// less what the same commits cost without subscribers (polls, builds:
	// the mean of the parts before and after).
	ServerCPUPerChangeUs   float64 `json:"serverCpuUsPerChange"`
	MarginalCPUPerChangeUs float64 `json:"marginalServerCpuUsPerChange"`
}

// SearchFigures are one query's q/s without and with subscribers, with the
// writer committing in both, and the deliveries under that load.
type SearchFigures struct {
	Query   string            `json:"query"`
	Without searchbench.Stats `json:"withoutSubscribers"`
	With    searchbench.Stats `json:"withSubscribers"`
	Ratio   float64           `json:"ratio"` // q/s with / without
	Latency Latency           `json:"latency"`
	Outcome Outcome           `json:"deliveries"`
	Stray   int               `json:"stray"`
}

func (s SearchFigures) finish() SearchFigures {
	if s.Without.QPS > 0 {
		s.Ratio = s.With.QPS / s.Without.QPS
	}
	s.Latency = summarize(s.Outcome.Latencies)
	return s
}

func figures(p partResult) PartFigures {
	return PartFigures{Commits: len(p.commits), Seconds: p.seconds, ServerCPUSeconds: p.serverCPU,
		ClientCPUSeconds: p.clientCPU, IdlePct: p.idlePct, Stray: p.stray}
}

func quietFigures(without, with, after partResult) QuietFigures {
	q := QuietFigures{Without: figures(without), With: figures(with), WithoutAfter: figures(after), Outcome: with.outcome}
	q.Served, q.Push = split(with.commits, with.outcome, servedAt(with.commits, with.builds))
	q.Latency = summarize(with.outcome.Latencies)
	if d := q.Outcome.Delivered; d > 0 {
		q.ServerCPUPerChangeUs = q.With.ServerCPUSeconds / float64(d) * 1e6
		perCommit := (q.Without.ServerCPUSeconds + q.WithoutAfter.ServerCPUSeconds) / float64(max(q.Without.Commits+q.WithoutAfter.Commits, 1))
		q.MarginalCPUPerChangeUs = (q.With.ServerCPUSeconds - perCommit*float64(q.With.Commits)) / float64(d) * 1e6
	}
	return q
}

// finish adds the targets of the issue and the errors.
func (r *Report) finish() {
	latency := searchbench.NewTarget(fmt.Sprintf("commit to onChange p99 ms, %d subscriptions, no search load (poll interval + 300)", r.Subscriptions),
		r.Quiet.Latency.P99Ms, "<=", r.PollIntervalMs+300)
	latency.Met = latency.Met && r.Quiet.Latency.Samples > 0 // no deliveries: no latency to meet it
	r.Targets = append(r.Targets, latency)
	for _, s := range r.Search {
		r.Targets = append(r.Targets, searchbench.NewTarget(
			fmt.Sprintf("%s: q/s with %d subscriptions / without", s.Query, r.Subscriptions), s.Ratio, ">=", 0.9))
	}
	r.Errors = nil
	check := func(where string, o Outcome, stray int) {
		if o.Errors() > 0 || stray > 0 {
			r.Errors = append(r.Errors, fmt.Sprintf("%s: %d missing, %d unexpected, %d duplicates, %d stale, %d after their subscription ended",
				where, o.Missing, o.Unexpected, o.Duplicates, o.Stale, stray))
		}
	}
	check("quiet", r.Quiet.Outcome, r.Quiet.With.Stray+r.Quiet.Without.Stray+r.Quiet.WithoutAfter.Stray)
	for _, s := range r.Search {
		check("under "+s.Query+" load", s.Outcome, s.Stray)
		if s.Without.Errors > 0 || s.With.Errors > 0 {
			r.Errors = append(r.Errors, fmt.Sprintf("%s: %d search errors without subscribers, %d with; first: %s%s",
				s.Query, s.Without.Errors, s.With.Errors, s.Without.FirstError, s.With.FirstError))
		}
	}
}

// WriteText prints the report as tables.
func (r *Report) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "ontoindex subscriptions: %d subscriptions (%s; %d distinct sets) on %d websocket connections, %d customers, poll interval %s ms, a commit every %s ms; %d CPUs, measured %s\n",
		r.Subscriptions, kindList(r.Kinds), r.DistinctSets, r.Connections, r.Rows, num(r.PollIntervalMs), num(r.CommitEveryMs), r.CPUs, r.MeasuredAt)
	fmt.Fprintf(w, "server: %s (%s); load average %.1f at the start, %.1f at the end\n\n", r.Version, r.Binary, r.LoadAverage[0], r.LoadAverage[1])

	q := r.Quiet
	fmt.Fprintf(w, "%-34s %7s %9s %8s %8s %8s %14s %14s %7s\n", "commits, no search load", "commits", "delivered", "p50 ms", "p99 ms", "max ms", "server CPU s", "CPU/change µs", "idle %")
	fmt.Fprintf(w, "%-34s %7d %9s %8s %8s %8s %14s %14s %7.0f\n", "without subscribers", q.Without.Commits, "-", "-", "-", "-", num(q.Without.ServerCPUSeconds), "-", q.Without.IdlePct)
	fmt.Fprintf(w, "%-34s %7d %9d %8s %8s %8s %14s %14s %7.0f\n", "with subscribers", q.With.Commits, q.Outcome.Delivered,
		num(q.Latency.P50Ms), num(q.Latency.P99Ms), num(q.Latency.MaxMs), num(q.With.ServerCPUSeconds), num(q.ServerCPUPerChangeUs), q.With.IdlePct)
	fmt.Fprintf(w, "%-34s %7d %9s %8s %8s %8s %14s %14s %7.0f\n", "without subscribers again", q.WithoutAfter.Commits, "-", "-", "-", "-", num(q.WithoutAfter.ServerCPUSeconds), "-", q.WithoutAfter.IdlePct)
	fmt.Fprintf(w, "of the latency: commit to served (the poll's wait and the build) p50 %s ms, p99 %s ms (%d commits); served to received (the push) p50 %s ms, p99 %s ms\n",
		num(q.Served.P50Ms), num(q.Served.P99Ms), q.Served.Samples, num(q.Push.P50Ms), num(q.Push.P99Ms))
	fmt.Fprintf(w, "server CPU per delivered change less the commits' own cost (polls, builds; the mean of the parts without): %s µs\n", num(q.MarginalCPUPerChangeUs))
	fmt.Fprintf(w, "deliveries: %s\n", deliveries(q.Outcome))

	if len(r.Search) > 0 {
		fmt.Fprintf(w, "\n%d search clients, %gs per part in %d alternating rounds, commits going on in both:\n", r.Clients, r.DurationSeconds, r.Rounds)
		fmt.Fprintf(w, "%-10s %14s %10s %14s %10s %6s %14s %14s %8s %8s\n", "query", "q/s without", "p99 ms", "q/s with", "p99 ms", "ratio", "CPU/req µs w/o", "CPU/req µs w/", "p50 ms", "p99 ms")
		for _, s := range r.Search {
			fmt.Fprintf(w, "%-10s %14s %10s %14s %10s %6.2f %14s %14s %8s %8s\n", s.Query, num(s.Without.QPS), num(s.Without.P99Ms), num(s.With.QPS), num(s.With.P99Ms),
				s.Ratio, num(s.Without.ServerCPUus), num(s.With.ServerCPUus), num(s.Latency.P50Ms), num(s.Latency.P99Ms))
			fmt.Fprintf(w, "%-10s deliveries under load: %s\n", "", deliveries(s.Outcome))
		}
		fmt.Fprintln(w, "(the last two columns: commit to onChange latency under the search load)")
	}
	if len(r.ServerMetrics) > 0 {
		fmt.Fprintf(w, "\nserver metrics:")
		for _, k := range sortedKeys(r.ServerMetrics) {
			if strings.HasSuffix(k, "_seconds_sum") || strings.HasSuffix(k, "_seconds_count") {
				continue // in the mean
			}
			v := r.ServerMetrics[k]
			text := num(v)
			if v == math.Trunc(v) {
				text = fmt.Sprintf("%.0f", v)
			}
			fmt.Fprintf(w, " %s %s;", strings.TrimPrefix(strings.TrimPrefix(k, "ontoindex_"), "subscription_"), text)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "\ntargets:")
	for _, t := range r.Targets {
		fmt.Fprintf(w, "  %-80s %10s %s %-8s %s\n", t.Name, num(t.Value), t.Op, num(t.Limit), searchbench.Verdict(t.Met))
	}
	for _, e := range r.Errors {
		fmt.Fprintf(w, "ERROR: %s\n", e)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return nil
}

func deliveries(o Outcome) string {
	return fmt.Sprintf("%d of %d delivered, %d missing, %d refreshed (%d refresh or close messages), %d unexpected, %d duplicates, %d stale, %d late from the part before",
		o.Delivered, o.Expected, o.Missing, o.Refreshed, o.Gaps, o.Unexpected, o.Duplicates, o.Stale, o.Earlier)
}

func kindList(kinds []Kind) string {
	s := make([]string, len(kinds))
	for i, k := range kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

func num(v float64) string { return searchbench.Figure(v) }
