package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go/table"
	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/indexer/config"
)

const changelogSynopsis = "(--config F --type T | --catalog-type hadoop --warehouse DIR --table ns.t) [--from ID] [--to ID] " +
	"[--id col,...] [--compute-updates] [--net] [--latest] [--format jsonl|table]"

// tableFlushRows is how many rows the table format aligns at a time.
const tableFlushRows = 1000

func runChangelog(ctx context.Context, env *Env, args []string) int {
	fs := newFlags(env, "changelog", changelogSynopsis)
	cfgPath := fs.String("config", "", "config file (with --type)")
	typ := fs.String("type", "", "object type whose table to replay (with --config)")
	catType := fs.String("catalog-type", "", "catalog type (hadoop, sql, rest, glue, hive), instead of --config")
	warehouse := fs.String("warehouse", "", "warehouse of the catalog (with --catalog-type)")
	tableRef := fs.String("table", "", "table as namespace.table (with --catalog-type)")
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
	byConfig := *cfgPath != "" || *typ != ""
	byCatalog := *catType != "" || *warehouse != "" || *tableRef != ""
	switch {
	case byConfig && byCatalog:
		return usage("use either --config and --type, or --catalog-type, --warehouse and --table")
	case byConfig && (*cfgPath == "" || *typ == ""):
		return usage("--config and --type go together")
	case byCatalog && (*catType == "" || *tableRef == ""):
		return usage("--catalog-type and --table are required without --config")
	case !byConfig && !byCatalog:
		return usage("name a table: --config F --type T, or --catalog-type hadoop --warehouse DIR --table ns.t")
	}

	opts := changelog.Options{From: *from, To: *to, Net: *net, Latest: *latest}
	if *ids != "" {
		for _, c := range strings.Split(*ids, ",") {
			if c = strings.TrimSpace(c); c == "" {
				return usage("--id %q has an empty column name", *ids)
			}
			opts.Identifiers = append(opts.Identifiers, c)
		}
	}
	if *computeUpdates {
		opts.Updates = changelog.UpdatesOn
	}

	var (
		tbl *table.Table
		err error
	)
	if byConfig {
		cfg, code, ok := loadConfig(env, "changelog", *cfgPath)
		if !ok {
			return code
		}
		if !checkType(env, "changelog", cfg, *typ) {
			return exitUsage
		}
		spec, _ := cfg.TypeSpec(*typ)
		opts.Table = spec.Table
		if tbl, err = cfg.LoadTable(ctx, spec.Table); err != nil {
			fmt.Fprintf(env.Stderr, "indexer changelog: object type %s: %v\n", *typ, err)
			return exitFailed
		}
		if len(opts.Identifiers) == 0 && (*computeUpdates || *latest) {
			sc := tbl.Schema()
			t, err := spec.Resolve(changelog.Columns(sc), changelog.IdentifierColumns(sc))
			if err != nil {
				fmt.Fprintf(env.Stderr, "indexer changelog: object type %s: %v\n", *typ, err)
				return exitFailed
			}
			for _, i := range t.KeyIndexes() {
				opts.Identifiers = append(opts.Identifiers, t.Properties[i].Column)
			}
		}
	} else {
		opts.Table = *tableRef
		if tbl, err = catalogTable(ctx, *catType, *warehouse, *tableRef); err != nil {
			fmt.Fprintf(env.Stderr, "indexer changelog: %v\n", err)
			return exitFailed
		}
	}

	cl, err := changelog.Replay(ctx, tbl, opts)
	if err != nil {
		fmt.Fprintf(env.Stderr, "indexer changelog: %v\n", err)
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
		fmt.Fprintf(env.Stderr, "indexer changelog: %v\n", err)
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
	cat, err := cc.Open(ctx, "cli", wd)
	if err != nil {
		return nil, err
	}
	return config.LoadTable(ctx, cat, config.TableRef{Catalog: "cli", Ident: strings.Split(ref, ".")})
}

// writeJSONL writes one JSON object per row, keys in column order.
func writeJSONL(ctx context.Context, w io.Writer, cl *changelog.Changelog) error {
	names := make([][]byte, len(cl.Schema().Fields()))
	for i, f := range cl.Schema().Fields() {
		names[i], _ = json.Marshal(f.Name)
	}
	var line []byte
	for rec, err := range cl.Records(ctx) {
		if err != nil {
			return err
		}
		for i := range int(rec.NumRows()) {
			line = append(line[:0], '{')
			for j, col := range rec.Columns() {
				if j > 0 {
					line = append(line, ',')
				}
				line = append(append(line, names[j]...), ':')
				v, err := json.Marshal(col.GetOneForMarshal(i))
				if err != nil {
					return fmt.Errorf("column %s: %w", rec.ColumnName(j), err)
				}
				line = append(line, v...)
			}
			line = append(line, '}', '\n')
			if _, err := w.Write(line); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeTable writes the rows as aligned columns, aligned per
// tableFlushRows rows so that memory stays bounded.
func writeTable(ctx context.Context, w io.Writer, cl *changelog.Changelog) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	var header []string
	for _, f := range cl.Schema().Fields() {
		header = append(header, strings.ToUpper(strings.TrimPrefix(f.Name, "_")))
	}
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	n := 0
	cells := make([]string, len(header))
	for rec, err := range cl.Records(ctx) {
		if err != nil {
			_ = tw.Flush()
			return err
		}
		for i := range int(rec.NumRows()) {
			for j, col := range rec.Columns() {
				cells[j] = cellText(col, i)
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
			if n++; n%tableFlushRows == 0 {
				if err := tw.Flush(); err != nil {
					return err
				}
			}
		}
	}
	return tw.Flush()
}

func cellText(col arrow.Array, i int) string {
	if col.IsNull(i) {
		return "null"
	}
	s := col.ValueStr(i)
	return strings.NewReplacer("\t", `\t`, "\n", `\n`).Replace(s)
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
