package soak

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"time"
)

// Report is what a campaign measured and found; every count of things
// that went wrong must be 0 (OK).
type Report struct {
	Date     string        `json:"date"`
	Options  ReportOptions `json:"options"`
	Dir      string        `json:"dir"`
	Duration float64       `json:"durationSeconds"`
	// FullBuildMs is the first full build of Item.
	FullBuildMs int64          `json:"fullBuildMs"`
	Commits     map[string]int `json:"commits"` // the writer's commits by kind
	Kills       KillFigures    `json:"kills"`
	Faults      []FaultResult  `json:"faults"`
	// DataDir are the faults of the data dir: index file and state.db
	// damaged, disk full (skipped without root on Linux).
	DataDir []FaultResult `json:"dataDirFaults"`
	Load    *LoadFigures  `json:"load,omitempty"`
	// Store is what the checks of the data dir after each kill found;
	// Served what the comparisons of served results with the tables found
	// (after each restart, fault and at the end).
	Store  tally `json:"store"`
	Served tally `json:"served"`
	OK     bool  `json:"ok"`
	// Evidence lists the copies of the data dir kept after failed checks.
	Evidence []string `json:"evidence,omitempty"`
	// Error is the campaign's own failure, if any (Run's error).
	Error string `json:"error,omitempty"`
}

// ReportOptions are the settings of the run.
type ReportOptions struct {
	Kills      int     `json:"kills"`
	LoadS      float64 `json:"loadSeconds"`
	Clients    int     `json:"clients"`
	Faults     bool    `json:"faults"`
	DiskFaults bool    `json:"diskFaults"`
	Rows       int     `json:"rows"`
	Groups     int     `json:"groups"`
	EveryMs    int64   `json:"everyMs"`
	Columns    int     `json:"columns"`
	Seed       uint64  `json:"seed"`
}

// KillFigures count the kill -9 of the server.
type KillFigures struct {
	Killed int `json:"killed"`
	// DuringBuild: the status said a build was running just before the
	// kill; DuringRebuild: of those, the ones during a full rebuild into a
	// new generation that an operator had asked for.
	DuringBuild   int `json:"duringBuild"`
	DuringRebuild int `json:"duringRebuild"`
	Rebuilds      int `json:"rebuildsRequested"`
	// DuringStart: kills of a new server before it was ready.
	DuringStart int `json:"duringStart"`
	// Reloads: config reloads that bumped semanticVersion (a full build);
	// Resumed: full builds a restart resumed from their last chunk.
	Reloads int `json:"reloads"`
	Resumed int `json:"resumed"`
	// DuringStop: kills during a graceful stop (SIGTERM); Stopped: those
	// that came after the server had exited (not counted as kills).
	DuringStop int `json:"duringStop"`
	Stopped    int `json:"stoppedFirst"`
	// Restarts that served again, caught up and passed the checks.
	Survived  int     `json:"survived"`
	RestartMs []int64 `json:"-"`
	// RestartP50Ms and RestartMaxMs: from the start of the new process to
	// /readyz 200.
	RestartP50Ms int64 `json:"restartP50Ms"`
	RestartMaxMs int64 `json:"restartMaxMs"`
}

func newReport(o Options) *Report {
	return &Report{Date: time.Now().UTC().Format(time.RFC3339), Options: ReportOptions{Kills: o.Kills, LoadS: o.Load.Seconds(), Clients: o.Clients,
		Faults: o.Faults, DiskFaults: o.DiskFaults, Rows: o.Rows, Groups: o.Groups, EveryMs: o.Every.Milliseconds(), Columns: o.Columns, Seed: o.Seed}}
}

func (rep *Report) finish(r *run) {
	start, _ := time.Parse(time.RFC3339, rep.Date)
	rep.Duration = time.Since(start).Round(time.Second).Seconds()
	if r.w != nil {
		rep.Commits = r.w.commits
	}
	k := &rep.Kills
	if len(k.RestartMs) > 0 {
		s := slices.Sorted(slices.Values(k.RestartMs))
		k.RestartP50Ms, k.RestartMaxMs = s[len(s)/2], s[len(s)-1]
	}
	rep.OK = rep.Store.ok() && rep.Served.ok() && k.Survived == k.Killed
	for _, f := range slices.Concat(rep.Faults, rep.DataDir) {
		rep.OK = rep.OK && (f.OK || f.Skipped != "")
	}
	if rep.Load != nil {
		rep.OK = rep.OK && rep.Load.ok()
	}
}

// Print writes the figures for people.
func (rep *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "\nsoak campaign of %s (%.0f s):\n", rep.Date, rep.Duration)
	o := rep.Options
	fmt.Fprintf(w, "  setup: %d items, %d groups, a commit every %d ms, full build of Item %d ms\n", o.Rows, o.Groups, o.EveryMs, rep.FullBuildMs)
	total := 0
	for _, n := range rep.Commits {
		total += n
	}
	fmt.Fprintf(w, "  commits: %d", total)
	for _, k := range slices.Sorted(maps.Keys(rep.Commits)) {
		fmt.Fprintf(w, ", %s %d", k, rep.Commits[k])
	}
	fmt.Fprintln(w)
	k := rep.Kills
	fmt.Fprintf(w, "  kills: %d kill -9 of indexer serve, %d survived; %d during a build (%d of them during a full rebuild: %d requested, %d forced by a config reload; %d resumed after the restart), %d while starting, %d during a graceful stop (%d stops ended before the kill); restart to ready p50 %d ms, max %d ms\n",
		k.Killed, k.Survived, k.DuringBuild, k.DuringRebuild, k.Rebuilds, k.Reloads, k.Resumed, k.DuringStart, k.DuringStop, k.Stopped, k.RestartP50Ms, k.RestartMaxMs)
	s := rep.Store
	fmt.Fprintf(w, "  data dir after each kill: %d checks of %d objects: %d lost, %d ghost, %d different, %d other\n", s.Checks, s.Objects, s.Lost, s.Ghost, s.Differs, s.Wrong)
	s = rep.Served
	fmt.Fprintf(w, "  served vs table: %d checks of %d objects: %d lost, %d ghost, %d different, %d wrong answers\n", s.Checks, s.Objects, s.Lost, s.Ghost, s.Differs, s.Wrong)
	printFaults(w, "table faults", rep.Faults)
	printFaults(w, "data-dir faults", rep.DataDir)
	if l := rep.Load; l != nil {
		l.print(w)
	}
	for _, vs := range [][]violation{rep.Store.Violations, rep.Served.Violations} {
		for _, v := range vs {
			fmt.Fprintf(w, "  VIOLATION %s: %s\n", v.Kind, v.Detail)
		}
	}
	if rep.Error != "" {
		fmt.Fprintf(w, "  campaign error: %s\n", rep.Error)
	}
	verdict := "ok"
	if !rep.OK {
		verdict = "FAILED"
	}
	fmt.Fprintf(w, "  verdict: %s\n", verdict)
}

// printFaults writes a count of faults injected, survived and skipped, and
// a line for each.
func printFaults(w io.Writer, what string, faults []FaultResult) {
	if len(faults) == 0 {
		return
	}
	injected, ok, skipped := 0, 0, 0
	for _, f := range faults {
		switch {
		case f.Skipped != "":
			skipped++
		case f.OK:
			ok++
			injected++
		default:
			injected++
		}
	}
	fmt.Fprintf(w, "  %s: %d injected, %d survived", what, injected, ok)
	if skipped > 0 {
		fmt.Fprintf(w, ", %d skipped", skipped)
	}
	fmt.Fprintln(w)
	for _, f := range faults {
		fmt.Fprintf(w, "    %-28s %s\n", f.Name, f.summary())
	}
}
