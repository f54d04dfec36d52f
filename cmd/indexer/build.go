package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/ontoindex/ontoindex/indexer"
)

func runBuild(ctx context.Context, env *Env, args []string) int {
	fs := newFlags(env, "build", "--config F [--type T] [--full] [--snapshot ID] [--json] [--cpuprofile FILE] [--memprofile FILE]")
	cfgPath := fs.String("config", "", "config file")
	typ := fs.String("type", "", "build only this object type")
	full := fs.Bool("full", false, "force a full build into a new generation")
	snap := fs.Int64("snapshot", 0, "build to this snapshot id instead of the current one (needs --type)")
	asJSON := fs.Bool("json", false, "print the results as a JSON array")
	prof := profilingFlags(fs)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	stopProfiles, err := prof.start()
	if err != nil {
		fmt.Fprintf(env.Stderr, "indexer build: %v\n", err)
		return exitFailed
	}
	defer stopProfiles()
	if *snap != 0 && *typ == "" {
		fmt.Fprintln(env.Stderr, "indexer build: --snapshot needs --type")
		return exitUsage
	}
	prog := newProgress(env.Stderr)
	ix, code, ok := openIndex(ctx, env, openRequest{command: "build", configPath: *cfgPath, objectType: *typ, progress: prog.report, openFailed: exitFailed})
	if !ok {
		return code
	}
	defer ix.Close()
	opts := indexer.BuildOptions{Full: *full, SnapshotID: *snap}
	var results []*indexer.BuildResult
	if *typ != "" {
		r, _ := ix.Build(ctx, *typ, opts)
		results = append(results, r)
	} else {
		results = ix.BuildAll(ctx, opts)
	}
	prog.done()
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(results)
	} else {
		printResults(env.Stdout, results)
	}
	// The report goes to stdout, each error once to stderr (the engine
	// does not log what it returns).
	printBuildErrors(env.Stderr, "indexer build: ", results)
	for _, r := range results {
		if r.Error != nil {
			if r.Error.Code == indexer.CodeCanceled {
				return exitAborted
			}
			return exitFailed
		}
	}
	return exitOK
}

// printResults prints the table of build results.
func printResults(w io.Writer, results []*indexer.BuildResult) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "OBJECT TYPE\tKIND\tFROM\tTO\tFILES\tBYTES\tROWS\tUPSERTS\tDELETES\tSKIPPED\tMS\tRESULT")
	for _, r := range results {
		result := "ok"
		if r.Error != nil {
			result = r.Error.Code
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", r.ObjectType, r.Kind, r.FromSnapshotID, r.ToSnapshotID,
			r.FilesRead, r.BytesRead, r.RowsRead, r.Upserts, r.Deletes, r.SkippedRows, r.DurationMs, result)
	}
	_ = tw.Flush()
	// Why a build was full, when the type could have built incrementally.
	for _, r := range results {
		if r.Kind == indexer.KindFull && r.Reason != "" && r.Reason != "first build" {
			fmt.Fprintf(w, "%s: full build (readMode %s): %s\n", r.ObjectType, r.ReadMode, r.Reason)
		}
	}
}

// printBuildErrors prints the message of each failed build, after prefix.
func printBuildErrors(w io.Writer, prefix string, results []*indexer.BuildResult) {
	for _, r := range results {
		if r.Error != nil {
			fmt.Fprintf(w, "%s%s\n", prefix, typeMessage(r.ObjectType, r.Error.Message))
		}
	}
}

// typeMessage names the object type in an error message, unless the
// message starts with it already (most engine errors do).
func typeMessage(name, msg string) string {
	if strings.HasPrefix(msg, "object type "+name+":") {
		return msg
	}
	return name + ": " + msg
}

// progress prints build progress to a terminal once a build runs longer
// than a second: rows, rate, and an ETA from the rows the build will read.
type progress struct {
	w       io.Writer
	enabled bool
	mu      sync.Mutex
	last    time.Time
	shown   bool
}

func newProgress(w io.Writer) *progress { return &progress{w: w, enabled: isTerminal(w)} }

func (p *progress) report(ev indexer.Progress) {
	if !p.enabled || ev.Elapsed < time.Second {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Since(p.last) < 200*time.Millisecond {
		return
	}
	p.last = time.Now()
	rate := float64(ev.Rows) / ev.Elapsed.Seconds()
	eta := "?"
	if rate > 0 && ev.TotalRows > ev.Rows {
		eta = time.Duration(float64(ev.TotalRows-ev.Rows) / rate * float64(time.Second)).Round(time.Second).String()
	} else if ev.TotalRows <= ev.Rows {
		eta = "0s"
	}
	fmt.Fprintf(p.w, "\r%s %s build: %d/%d rows, %.0f rows/s, ETA %s   ", ev.ObjectType, ev.Kind, ev.Rows, ev.TotalRows, rate, eta)
	p.shown = true
}

func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprintln(p.w)
	}
}
