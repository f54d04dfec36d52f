package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/ontoindex/ontoindex/changelog"
)

const viewSynopsis = "(--config F --type T | --catalog-type hadoop --warehouse DIR --table ns.t) " +
	"--mode current|previous|added|modified|removed|changelog [--from ID] [--to ID] [--id col,...] [--columns col,...] " +
	"[--format jsonl|table|parquet] [--out FILE]"

func runView(ctx context.Context, env *Env, args []string) int {
	fs := newFlags(env, "view", viewSynopsis)
	tf := addTableFlags(fs, "view")
	mode := fs.String("mode", "", "the view: current (rows at --to), previous (rows at --from), added or removed (rows of the data files "+
		"the range added or removed, compactions excepted), modified (rows at --to whose identifier has other values at --from), "+
		"changelog (identifier-latest changes with identifiers, else net changes)")
	from := fs.Int64("from", 0, "exclusive start snapshot id (default: with --type, the object type's checkpoint, read from the data dir "+
		"(from the start when it was never built); else before the table's first snapshot)")
	to := fs.Int64("to", 0, "inclusive end snapshot id (default: the current snapshot)")
	ids := fs.String("id", "", "identifier columns, comma-separated, for modified and changelog "+
		"(default: with --type, the object type's primary key; else for modified the table's identifier fields)")
	columns := fs.String("columns", "", "table columns to print, comma-separated (default: all, in table order)")
	format := fs.String("format", "jsonl", "output format: jsonl (one JSON object per row), table, or parquet (needs --out)")
	outPath := fs.String("out", "", "write to `FILE` instead of stdout")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	usage := func(format string, args ...any) int {
		fmt.Fprintf(env.Stderr, "indexer view: "+format+"\n", args...)
		return exitUsage
	}
	switch {
	case *mode == "":
		return usage("--mode is required: one of %s", modeList())
	case !isViewMode(*mode):
		return usage("--mode %q must be one of %s", *mode, modeList())
	case *format != "jsonl" && *format != "table" && *format != "parquet":
		return usage("--format %q must be jsonl, table or parquet", *format)
	case *format == "parquet" && *outPath == "":
		return usage("--format parquet needs --out FILE")
	}
	if msg := tf.check(); msg != "" {
		return usage("%s", msg)
	}
	opts := changelog.ViewOptions{Mode: changelog.ViewMode(*mode), From: *from, To: *to}
	var err error
	if opts.Identifiers, err = splitColumns("--id", *ids); err != nil {
		return usage("%v", err)
	}
	if opts.Columns, err = splitColumns("--columns", *columns); err != nil {
		return usage("%v", err)
	}

	nt, code, ok := tf.load(ctx, env, "view")
	if !ok {
		return code
	}
	opts.Table = nt.name
	fail := func(err error) int {
		fmt.Fprintf(env.Stderr, "indexer view: %v\n", nt.explain(err))
		return exitFailed
	}
	if nt.cfg != nil {
		if !flagSet(fs, "from") {
			// What the next build of the type would read: its checkpoint
			// up to --to. Never built: everything.
			if opts.From, _, err = checkpointSnapshot(nt.cfg, *tf.typ); err != nil {
				return fail(err)
			}
		}
		usesIDs := opts.Mode == changelog.ViewModified || opts.Mode == changelog.ViewChangelog
		if usesIDs && len(opts.Identifiers) == 0 {
			if opts.Identifiers, err = nt.keyColumns(); err != nil {
				return fail(err)
			}
		}
	}

	v, err := changelog.View(ctx, nt.tbl, opts)
	if err != nil {
		fmt.Fprintf(env.Stderr, "indexer view: %v\n", nt.explain(err))
		var re *changelog.RangeError
		if errors.As(err, &re) || errors.Is(err, changelog.ErrInvalidOptions) {
			return exitUsage
		}
		return exitFailed
	}
	rows := &countingSource{TableView: v}
	write := func(w io.Writer) error {
		switch *format {
		case "parquet":
			return writeParquet(ctx, w, rows)
		case "table":
			return writeTable(ctx, w, rows)
		}
		return writeJSONL(ctx, w, rows)
	}
	buffered := func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		err := write(bw)
		if ferr := bw.Flush(); err == nil {
			err = ferr
		}
		return err
	}
	if *outPath != "" {
		err = writeFile(*outPath, buffered)
	} else {
		err = buffered(env.Stdout)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "indexer view: %v\n", nt.explain(err))
		if ctx.Err() != nil {
			return exitAborted
		}
		return exitFailed
	}
	if *format == "table" || *outPath != "" {
		f, t := v.Range()
		start := "before the first snapshot"
		if f != 0 {
			start = fmt.Sprintf("snapshot %d (exclusive)", f)
		}
		fmt.Fprintf(env.Stderr, "%d rows: the %s view of table %s from %s to snapshot %d\n", rows.n, v.Mode(), nt.name, start, t)
	}
	return exitOK
}

// countingSource counts the rows a format wrote, for the summary.
type countingSource struct {
	*changelog.TableView
	n int64
}

func (c *countingSource) Records(ctx context.Context) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		for rec, err := range c.TableView.Records(ctx) {
			if err == nil {
				c.n += rec.NumRows()
			}
			if !yield(rec, err) {
				return
			}
		}
	}
}

func isViewMode(s string) bool {
	for _, m := range changelog.ViewModes() {
		if string(m) == s {
			return true
		}
	}
	return false
}

func modeList() string {
	var s []string
	for _, m := range changelog.ViewModes() {
		s = append(s, string(m))
	}
	return strings.Join(s, ", ")
}

// flagSet reports whether a flag was given, which a zero value cannot tell.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
