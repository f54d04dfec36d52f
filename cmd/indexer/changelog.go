package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/indexer/config/catalogs"
)

const changelogSynopsis = "(--config F --type T | --catalog-type hadoop --warehouse DIR --table ns.t) [--from ID] [--to ID] " +
	"[--id col,...] [--compute-updates] [--net] [--latest] [--format jsonl|table]"

func runChangelog(ctx context.Context, env *Env, args []string) int {
	fs := newFlags(env, "changelog", changelogSynopsis)
	tf := addTableFlags(fs, "replay")
	from := fs.Int64("from", 0, "exclusive start snapshot id (default: before the table's first snapshot)")
	to := fs.Int64("to", 0, "inclusive end snapshot id (default: the current snapshot)")
	ids := fs.String("id", "", "identifier columns, comma-separated; turns update images on")
	computeUpdates := fs.Bool("compute-updates", false, "pair a DELETE and an INSERT of one identifier in one snapshot into UPDATE_BEFORE and UPDATE_AFTER "+
		"(identifiers: --id, else the object type's primary key, else the table's identifier fields)")
	net := fs.Bool("net", false, "only net changes over the whole range (no update images)")
	latest := fs.Bool("latest", false, "one change per identifier: the last one in the range")
	format := fs.String("format", "jsonl", "output format: jsonl (one JSON object per row) or table")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	usage := func(format string, args ...any) int {
		fmt.Fprintf(env.Stderr, "indexer changelog: "+format+"\n", args...)
		return exitUsage
	}
	if *format != "jsonl" && *format != "table" {
		return usage("--format %q must be jsonl or table", *format)
	}
	if msg := tf.check(); msg != "" {
		return usage("%s", msg)
	}

	opts := changelog.Options{From: *from, To: *to, Net: *net, Latest: *latest}
	var err error
	if opts.Identifiers, err = splitColumns("--id", *ids); err != nil {
		return usage("%v", err)
	}
	if *computeUpdates {
		opts.Updates = changelog.UpdatesOn
	}

	nt, code, ok := tf.load(ctx, env, "changelog")
	if !ok {
		return code
	}
	opts.Table = nt.name
	if nt.cfg != nil && len(opts.Identifiers) == 0 && (*computeUpdates || *latest) {
		if opts.Identifiers, err = nt.keyColumns(); err != nil {
			fmt.Fprintf(env.Stderr, "indexer changelog: %v\n", err)
			return exitFailed
		}
	}

	cl, err := changelog.Replay(ctx, nt.tbl, opts)
	if err != nil {
		fmt.Fprintf(env.Stderr, "indexer changelog: %v\n", nt.explain(err))
		var re *changelog.RangeError
		if errors.As(err, &re) || errors.Is(err, changelog.ErrInvalidOptions) {
			return exitUsage
		}
		return exitFailed
	}
	out := bufio.NewWriter(env.Stdout)
	if *format == "table" {
		err = writeTable(ctx, out, cl)
	} else {
		err = writeJSONL(ctx, out, cl)
	}
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "indexer changelog: %v\n", nt.explain(err))
		if ctx.Err() != nil {
			return exitAborted
		}
		return exitFailed
	}
	if *format == "table" {
		printSummary(env.Stderr, cl)
	}
	return exitOK
}

// catalogTable loads ns.table from a catalog given on the command line,
// opened as a config file's catalog would be (a relative warehouse is
// relative to the working directory).
func catalogTable(ctx context.Context, typ, warehouse, ref string) (*table.Table, error) {
	cc := config.Catalog{Type: typ, Properties: map[string]string{}}
	if warehouse != "" {
		cc.Properties["warehouse"] = warehouse
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	cat, err := catalogs.Open(ctx, "cli", cc, wd)
	if err != nil {
		return nil, err
	}
	return catalogs.LoadTable(ctx, cat, config.TableRef{Catalog: "cli", Ident: strings.Split(ref, ".")})
}

// printSummary tells a human what was replayed.
func printSummary(w io.Writer, cl *changelog.Changelog) {
	st := cl.Stats()
	from, to := cl.Range()
	start := "the first snapshot"
	if from != 0 {
		start = fmt.Sprintf("snapshot %d (exclusive)", from)
	}
	fmt.Fprintf(w, "%d changes (%d inserts, %d deletes, %d updates) in %d snapshots from %s to snapshot %d",
		st.Inserts+st.Deletes+st.UpdatesBefore+st.UpdatesAfter, st.Inserts, st.Deletes, st.UpdatesAfter, len(cl.Snapshots()), start, to)
	if sk := cl.Skipped(); len(sk) > 0 {
		fmt.Fprintf(w, "; replace snapshots skipped: %s", strings.Trim(fmt.Sprint(sk), "[]"))
	}
	fmt.Fprintln(w)
}
