package searchbench

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// InterfaceTarget is the bound: a query over the interface
// answers within 1.2x of the same query over the one type, so its q/s is
// at least 1/1.2 of the one type's.
const InterfaceTarget = 1 / 1.2

// InterfaceReport is what RunInterface measured: each query over the one
// type and over the interface, in the same server, in alternating rounds.
type InterfaceReport struct {
	Rows            int     `json:"rows"`
	Files           int     `json:"files"` // of the whole table; each half has half as many
	Clients         int     `json:"clients"`
	CPUs            int     `json:"cpus"`
	Seed            uint64  `json:"seed"`
	DurationSeconds float64 `json:"durationSeconds"` // measured, per query and side
	WarmupSeconds   float64 `json:"warmupSeconds"`
	Rounds          int     `json:"rounds"`

	Binary            string           `json:"binary"`
	Version           string           `json:"version"`
	WriteTableSeconds float64          `json:"writeTableSeconds"` // the three Iceberg tables
	SearchableSeconds float64          `json:"searchableSeconds"` // serve --build until /readyz: all three types
	Objects           map[string]int64 `json:"objects"`           // per object type
	PeakRSSMiB        float64          `json:"peakRssMiB"`

	Queries []InterfaceQueryReport `json:"queries"`
	Targets []Target               `json:"targets"`
}

// InterfaceQueryReport is one row: the query over the one type and over
// the interface.
type InterfaceQueryReport struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Asked     string `json:"asked"` // the routes of the two sides
	OneType   Stats  `json:"oneType"`
	Interface Stats  `json:"interface"`
	// Ratio is the interface's q/s over the one type's; P50Ratio the
	// interface's p50 over the one type's (information).
	Ratio    float64 `json:"ratio"`
	P50Ratio float64 `json:"p50Ratio"`
}

// addTargets computes the ratios and a target per query.
func (r *InterfaceReport) addTargets() {
	for i := range r.Queries {
		q := &r.Queries[i]
		if q.OneType.QPS > 0 {
			q.Ratio = q.Interface.QPS / q.OneType.QPS
		}
		if q.OneType.P50Ms > 0 {
			q.P50Ratio = q.Interface.P50Ms / q.OneType.P50Ms
		}
		r.Targets = append(r.Targets, newTarget("q/s ratio interface / one type: "+q.Name, q.Ratio, ">=", InterfaceTarget))
	}
}

// WriteText prints the report as tables.
func (r *InterfaceReport) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "ontoindex %s (%s)\n", r.Version, r.Binary)
	fmt.Fprintf(w, "one type %s of %d objects against the interface %s implemented by %s (%d) and %s (%d), the same rows; %d CPUs\n",
		objectType, r.Objects[objectType], clientInterface, lowType, r.Objects[lowType], highType, r.Objects[highType], r.CPUs)
	fmt.Fprintf(w, "%d clients, %s s measured per query and side in %d alternating rounds, warm-up %s s, seed %d\n\n",
		r.Clients, num(r.DurationSeconds), r.Rounds, num(r.WarmupSeconds), r.Seed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "query\tone type q/s\tp50 ms\tp99 ms\tinterface q/s\tp50 ms\tp99 ms\tq/s ratio\tp50 ratio\ttarget\t")
	for _, q := range r.Queries {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.2f\t%.2f\t>= %.2f\t%s\n", q.Name,
			stat(&q.OneType, "qps"), stat(&q.OneType, "p50"), stat(&q.OneType, "p99"),
			stat(&q.Interface, "qps"), stat(&q.Interface, "p50"), stat(&q.Interface, "p99"),
			q.Ratio, q.P50Ratio, InterfaceTarget, okMiss(q.Ratio >= InterfaceTarget))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "time to searchable: %s s (serve --build until /readyz, all three types); Iceberg tables written in %s s; peak RSS %.0f MiB\n\n",
		num(r.SearchableSeconds), num(r.WriteTableSeconds), r.PeakRSSMiB)
	met := 0
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "target\tvalue\tbound\t")
	for _, t := range r.Targets {
		fmt.Fprintf(tw, "%s\t%.2f\t%s %.2f\t%s\n", t.Name, t.Value, t.Op, t.Limit, okMiss(t.Met))
		if t.Met {
			met++
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "targets met: %d of %d\n", met, len(r.Targets))
	for _, q := range r.Queries {
		fmt.Fprintf(w, "note: %s: %s\n", q.ID, q.Asked)
		for _, side := range []struct {
			name string
			s    Stats
		}{{"one type", q.OneType}, {"interface", q.Interface}} {
			if side.s.Errors > 0 {
				fmt.Fprintf(w, "note: ERRORS under load: %s on the %s: %d, first: %s\n", q.Name, side.name, side.s.Errors, side.s.FirstError)
			}
		}
	}
	fmt.Fprintln(w, "note: q/s ratio: the interface's q/s over the one type's (the issue's bound: within 1.2x, so >= 1/1.2); both sides run in the same server, in parts that alternate")
	return nil
}
