package searchbench

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Report is what a run measured. Ratios compare ontoindex with PostgreSQL
// measured in the same run on the same machine, in parts that alternate
// between the two (rounds).
type Report struct {
	Rows            int     `json:"rows"`
	Files           int     `json:"files"`
	Clients         int     `json:"clients"`
	CPUs            int     `json:"cpus"`
	Seed            uint64  `json:"seed"`
	DurationSeconds float64 `json:"durationSeconds"` // measured, per query and system
	WarmupSeconds   float64 `json:"warmupSeconds"`
	Rounds          int     `json:"rounds"` // parts per query and system, alternating

	Ontoindex OntoindexFigures `json:"ontoindex"`
	Postgres  *PostgresFigures `json:"postgres,omitempty"` // nil when PostgreSQL is not available
	// PostgresAbsent says why there are no PostgreSQL figures.
	PostgresAbsent string `json:"postgresAbsent,omitempty"`
	// OpenSearch is the OpenSearch backend's side (nil: not measured).
	OpenSearch *OpenSearchFigures `json:"openSearch,omitempty"`

	DeepPage int           `json:"deepPage"` // the page number of the deep paging rows
	Queries  []QueryReport `json:"queries"`
	Targets  []Target      `json:"targets"`
	Notes    []string      `json:"notes"`
}

// OntoindexFigures are the server's figures.
type OntoindexFigures struct {
	Binary            string  `json:"binary"`
	Version           string  `json:"version"`
	WriteTableSeconds float64 `json:"writeTableSeconds"` // writing the Iceberg tables: not part of time to searchable
	SearchableSeconds float64 `json:"searchableSeconds"` // process start until /readyz answers 200
	Objects           int64   `json:"objects"`           // Customer objects
	Orders            int64   `json:"orders"`            // Order objects
	PeakRSSMiB        float64 `json:"peakRssMiB"`        // VmHWM of the server at the end of the run
	ServingRSSMiB     float64 `json:"servingRssMiB"`     // VmRSS after the queries
}

// PostgresFigures are PostgreSQL's figures.
type PostgresFigures struct {
	Version           string  `json:"version"`
	Indexes           string  `json:"indexes"`
	SearchableSeconds float64 `json:"searchableSeconds"` // both tables: CREATE TABLE, COPY, primary keys, 4 indexes, ANALYZE
	ServingPSSMiB     float64 `json:"servingPssMiB"`     // PSS of the postmaster and its backends after the queries
}

// QueryReport is one row of the table.
type QueryReport struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Ontoindex *Stats `json:"ontoindex,omitempty"`
	Postgres  *Stats `json:"postgres,omitempty"`
	// Floor is the get by key on a bare net/http server that answers the
	// bytes of one get (floor.go); nil for the other queries.
	Floor *Stats `json:"floor,omitempty"`
	// Backend is the query on the OpenSearch backend's server, Straight
	// its DSL sent straight to the node (opensearch_dsl.go); nil when not
	// measured, OpenSearchNote saying why. OpenSearchSearches counts the
	// searches a call sent the node (0: the embedded index answered).
	Backend            *Stats `json:"openSearchBackend,omitempty"`
	Straight           *Stats `json:"openSearchStraight,omitempty"`
	OpenSearchSearches int    `json:"openSearchSearches,omitempty"`
	OpenSearchNote     string `json:"openSearchNote,omitempty"`
	// Clients is the row's clients when fewer than the run's (query.clients).
	Clients int `json:"clients,omitempty"`
	// Ratio is ontoindex q/s over PostgreSQL q/s (0 without both).
	Ratio  float64 `json:"ratio,omitempty"`
	Target float64 `json:"target,omitempty"` // least ratio asked for; 0: information
}

// Target is one figure the issue sets a bound for.
type Target struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Op    string  `json:"op"` // ">=" or "<="
	Limit float64 `json:"limit"`
	Met   bool    `json:"met"`
}

func newTarget(name string, value float64, op string, limit float64) Target {
	met := value >= limit
	if op == "<=" {
		met = value <= limit
	}
	return Target{Name: name, Value: value, Op: op, Limit: limit, Met: met}
}

// addTargets computes the ratios and the targets of the issue: q/s ratios
// per query, time to searchable, deep paging and the sorted search's p99.
func (r *Report) addTargets() {
	for i := range r.Queries {
		q := &r.Queries[i]
		if q.Ontoindex != nil && q.Postgres != nil && q.Postgres.QPS > 0 {
			q.Ratio = q.Ontoindex.QPS / q.Postgres.QPS
			if q.Target > 0 {
				r.Targets = append(r.Targets, newTarget("q/s ratio: "+q.Name, q.Ratio, ">=", q.Target))
			}
		}
	}
	if q := r.query("get"); q != nil && q.Ontoindex != nil && q.Floor != nil && q.Floor.ServerCPUus > 0 {
		r.Targets = append(r.Targets, newTarget("get by key: server CPU per get, ontoindex / net/http floor", q.Ontoindex.ServerCPUus/q.Floor.ServerCPUus, "<=", 1.3))
	}
	if r.Postgres != nil && r.Ontoindex.SearchableSeconds > 0 {
		r.Targets = append(r.Targets, newTarget("time to searchable ratio (PostgreSQL / ontoindex)",
			r.Postgres.SearchableSeconds/r.Ontoindex.SearchableSeconds, ">=", 0.25))
	}
	if a, b := r.query("deep1"), r.query("deepN"); a != nil && b != nil && a.Ontoindex != nil && b.Ontoindex != nil && a.Ontoindex.P50Ms > 0 {
		r.Targets = append(r.Targets, newTarget(fmt.Sprintf("deep paging: ontoindex p50 at page %d / page 1", r.DeepPage), b.Ontoindex.P50Ms/a.Ontoindex.P50Ms, "<=", 1.5))
	}
	if q := r.query("sorted"); q != nil && q.Ontoindex != nil {
		r.Targets = append(r.Targets, newTarget("sorted search: ontoindex p99 ms", q.Ontoindex.P99Ms, "<=", 50))
	}
	r.openSearchTargets()
}

func (r *Report) query(id string) *QueryReport {
	for i := range r.Queries {
		if r.Queries[i].ID == id {
			return &r.Queries[i]
		}
	}
	return nil
}

// WriteText prints the report as tables.
func (r *Report) WriteText(w io.Writer) error {
	pgName := "PostgreSQL"
	if r.Postgres != nil {
		pgName = "PostgreSQL " + r.Postgres.Version
	}
	fmt.Fprintf(w, "ontoindex vs %s: %d customers and as many orders, %d clients, %gs per query and system (%d alternating rounds) after %gs warm-up, %d CPUs, seed %d\n",
		pgName, r.Rows, r.Clients, r.DurationSeconds, r.Rounds, r.WarmupSeconds, r.CPUs, r.Seed)
	fmt.Fprintf(w, "ontoindex:  %s (%s)\n", r.Ontoindex.Version, r.Ontoindex.Binary)
	if r.Postgres != nil {
		fmt.Fprintf(w, "PostgreSQL: %s; default settings\n", r.Postgres.Indexes)
	} else {
		fmt.Fprintf(w, "PostgreSQL: not measured: %s\n", r.PostgresAbsent)
	}
	fmt.Fprintln(w)

	width := len("query")
	for _, q := range r.Queries {
		width = max(width, len(q.Name))
	}
	row := func(cells ...string) {
		fmt.Fprintf(w, "%-*s  %14s %8s %8s  %15s %8s %8s  %6s  %-7s %s\n", width, cells[0],
			cells[1], cells[2], cells[3], cells[4], cells[5], cells[6], cells[7], cells[8], cells[9])
	}
	row("query", "ontoindex q/s", "p50 ms", "p99 ms", "PostgreSQL q/s", "p50 ms", "p99 ms", "ratio", "target", "")
	for _, q := range r.Queries {
		ratio, target, verdict := "-", "-", ""
		if q.Ratio > 0 {
			ratio = fmt.Sprintf("%.2f", q.Ratio)
		}
		if q.Target > 0 {
			target = fmt.Sprintf(">= %.1f", q.Target)
			if q.Ratio > 0 {
				verdict = okMiss(q.Ratio >= q.Target)
			}
		}
		row(q.Name, stat(q.Ontoindex, "qps"), stat(q.Ontoindex, "p50"), stat(q.Ontoindex, "p99"),
			stat(q.Postgres, "qps"), stat(q.Postgres, "p50"), stat(q.Postgres, "p99"), ratio, target, verdict)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-*s  %14s  %14s  %6s  %14s  %14s  %13s\n", width, "CPU per request (µs)", "ontoindex", "PostgreSQL", "PG/onto",
		"clients onto", "clients PG", "idle % onto/PG")
	for _, q := range r.Queries {
		us := func(s *Stats, v func(*Stats) float64) string {
			if s == nil || v(s) == 0 {
				return "-"
			}
			return num(v(s))
		}
		server := func(s *Stats) float64 { return s.ServerCPUus }
		client := func(s *Stats) float64 { return s.ClientCPUus }
		ratio := "-"
		if q.Ontoindex != nil && q.Postgres != nil && q.Ontoindex.ServerCPUus > 0 && q.Postgres.ServerCPUus > 0 {
			ratio = fmt.Sprintf("%.2f", q.Postgres.ServerCPUus/q.Ontoindex.ServerCPUus)
		}
		idle := "-"
		if q.Ontoindex != nil && q.Postgres != nil {
			idle = fmt.Sprintf("%.0f / %.0f", q.Ontoindex.IdlePct, q.Postgres.IdlePct)
		}
		fmt.Fprintf(w, "%-*s  %14s  %14s  %6s  %14s  %14s  %13s\n", width, q.Name, us(q.Ontoindex, server), us(q.Postgres, server), ratio,
			us(q.Ontoindex, client), us(q.Postgres, client), idle)
	}
	if q := r.query("get"); q != nil && q.Floor != nil {
		fmt.Fprintf(w, "%-*s  %14s  %14s  %6s  %14s  %14s  %13s\n", width, "get: net/http floor", num(q.Floor.ServerCPUus), "", "",
			num(q.Floor.ClientCPUus), "", fmt.Sprintf("%.0f", q.Floor.IdlePct))
		fmt.Fprintf(w, "get on the floor: %s q/s, p50 %s ms, p99 %s ms\n", stat(q.Floor, "qps"), stat(q.Floor, "p50"), stat(q.Floor, "p99"))
	}
	fmt.Fprintln(w)

	o := r.Ontoindex
	fmt.Fprintf(w, "time to searchable: ontoindex %s s (serve --build until /readyz; %d customers, %d orders)", num(o.SearchableSeconds), o.Objects, o.Orders)
	if p := r.Postgres; p != nil {
		fmt.Fprintf(w, ", PostgreSQL %s s (both tables: CREATE TABLE, COPY, primary keys, 4 indexes, ANALYZE)", num(p.SearchableSeconds))
	}
	fmt.Fprintf(w, "\nIceberg tables: written in %s s (%d files each; not part of time to searchable)\n", num(o.WriteTableSeconds), r.Files)
	fmt.Fprintf(w, "memory: ontoindex peak RSS %.0f MiB, RSS while serving %.0f MiB", o.PeakRSSMiB, o.ServingRSSMiB)
	if p := r.Postgres; p != nil {
		fmt.Fprintf(w, "; PostgreSQL PSS of server and backends while serving %.0f MiB", p.ServingPSSMiB)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w)
	r.writeOpenSearch(w, width)

	met := 0
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "target\tvalue\tbound\t")
	for _, t := range r.Targets {
		fmt.Fprintf(tw, "%s\t%s\t%s %g\t%s\n", t.Name, num(t.Value), t.Op, t.Limit, okMiss(t.Met))
		if t.Met {
			met++
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "targets met: %d of %d\n", met, len(r.Targets))
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return nil
}

func stat(s *Stats, what string) string {
	if s == nil {
		return "-"
	}
	switch what {
	case "qps":
		q := fmt.Sprintf("%.0f", s.QPS)
		if s.QPS < 10 {
			q = num(s.QPS) // the derived and relevance rows at ten million: 0.05-1 q/s
		}
		if s.Errors > 0 {
			return fmt.Sprintf("%s (%d errors)", q, s.Errors)
		}
		return q
	case "p50":
		return num(s.P50Ms)
	default:
		return num(s.P99Ms)
	}
}

// num formats a figure with three significant digits or more.
func num(v float64) string {
	switch {
	case v < 1:
		return fmt.Sprintf("%.3f", v)
	case v < 10:
		return fmt.Sprintf("%.2f", v)
	case v < 100:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

func okMiss(ok bool) string {
	if ok {
		return "ok"
	}
	return "MISS"
}

// notes explain how to read the figures.
func notes(r *Report) []string {
	n := []string{
		"ontoindex responses carry totalCount (the API always computes it); the PostgreSQL queries do not count",
		"both return whole rows (6 columns of a customer, 5 of an order); ontoindex as JSON over HTTP/1.1 with keep-alive (objects without rids: excludeRid), PostgreSQL over pgx (extended protocol, cached statements)",
		"the clients do the same work on both: the ontoindex one is a plain HTTP/1.1 load generator that reads each body and scans it for the primary keys; the PostgreSQL one (pgx) receives each row and decodes its id",
		"q/s: requests completed by the closed-loop clients over the wall time of the measured parts; p50/p99 include queueing at the server",
		fmt.Sprintf("rounds: each query's measured time is cut into %d parts per system that alternate (ontoindex, PostgreSQL, then PostgreSQL, ontoindex, ...), each after a short warm-up, so that a shared machine's drift in speed falls on both systems alike", r.Rounds),
		"ratio: ontoindex q/s / PostgreSQL q/s; the deep paging rows compare a page token with a keyset condition on (balance, id); the searchAround row a loadObjects of the link Customer.orders with a join of orders and customers",
		"net/http floor: the get by key also runs, in the same rounds, on a bare net/http server (its own process, the default server timeouts) that answers the bytes of one ontoindex get: the standard library's cost of a request and response; ontoindex's CPU per get over the floor's is what the API adds",
		"CPU per request: the server processes' user+system time over the measured window (/proc), divided by the requests; clients: the bench process's (the load generators, on the same cores); idle: the machine's CPU time nobody used in that window (other work on the machine shows as less idle and less CPU for both)",
	}
	if r.OpenSearch != nil {
		n = append(n, openSearchNotes()...)
	}
	var errs []string
	for _, q := range r.Queries {
		for _, sys := range []struct {
			name string
			s    *Stats
		}{{"ontoindex", q.Ontoindex}, {"PostgreSQL", q.Postgres}, {"the net/http floor", q.Floor},
			{"the OpenSearch backend", q.Backend}, {"OpenSearch straight", q.Straight}} {
			if sys.s != nil && sys.s.Errors > 0 {
				errs = append(errs, fmt.Sprintf("%s on %s: %d errors, first: %s", q.Name, sys.name, sys.s.Errors, sys.s.FirstError))
			}
		}
	}
	if len(errs) > 0 {
		n = append(n, "ERRORS under load: "+strings.Join(errs, "; "))
	}
	return n
}

// measuredLine is a query's figures as the progress shows them once it is
// measured: q/s and p50 of each side and their ratio.
func measuredLine(q QueryReport) string {
	line := fmt.Sprintf("ontoindex %s q/s p50 %s ms, PostgreSQL %s q/s p50 %s ms", stat(q.Ontoindex, "qps"), stat(q.Ontoindex, "p50"),
		stat(q.Postgres, "qps"), stat(q.Postgres, "p50"))
	if q.Ontoindex != nil && q.Postgres != nil && q.Postgres.QPS > 0 {
		line += ", ratio " + num(q.Ontoindex.QPS/q.Postgres.QPS)
	}
	if q.Backend != nil {
		line += fmt.Sprintf("; OpenSearch backend %s q/s p50 %s ms, straight %s q/s p50 %s ms", stat(q.Backend, "qps"), stat(q.Backend, "p50"),
			stat(q.Straight, "qps"), stat(q.Straight, "p50"))
	}
	return line
}
