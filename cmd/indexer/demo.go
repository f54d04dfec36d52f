package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/ontoindex/ontoindex/cowguard"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/internal/demo"
)

func init() {
	register(Command{Name: "demo", Summary: "create a demo warehouse in ./demo, build it, change the tables, build again", Run: runDemo})
}

func runDemo(ctx context.Context, env *Env, args []string) int {
	fs := newFlags(env, "demo", "[--dir DIR]\n\n"+
		"Creates DIR (default ./demo) with a hadoop-catalog Iceberg warehouse of three object types,\n"+
		"its config DIR/ontology.yaml and the index in DIR/index; builds every object type; commits a\n"+
		"copy-on-write update, a copy-on-write delete and a change to the merge-on-read table; and builds\n"+
		"again. Running it again reuses the warehouse and the index.")
	dir := fs.String("dir", "demo", "directory of the demo")
	seed := fs.Uint64("seed", 1, "seed of the generated data (first run only)")
	customers := fs.Int64("customers", 120_000, "customers to generate (first run only)")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if *customers < 1 {
		fmt.Fprintln(env.Stderr, "indexer demo: --customers must be at least 1")
		return exitUsage
	}
	out := env.Stdout
	fail := func(err error) int {
		fmt.Fprintf(env.Stderr, "indexer demo: %v\n", err)
		if errors.Is(err, context.Canceled) {
			return exitAborted
		}
		return exitFailed
	}

	start := time.Now()
	d, tables, err := demo.Open(ctx, *dir, demo.Options{Seed: *seed, Customers: *customers})
	if err != nil {
		return fail(err)
	}
	cfgPath := filepath.Join(*dir, demo.ConfigFile)
	fmt.Fprintf(out, "ontoindex demo in %s\n\n", d.Dir)
	generated := false
	for _, t := range tables {
		how := "reused"
		if t.Created {
			how, generated = "generated", true
		}
		fmt.Fprintf(out, "  %-10s %-24s %7d rows in %s (%s)\n", t.ObjectType, t.Table, t.Rows, plural(t.DataFiles, "data file"), how)
	}
	if generated {
		fmt.Fprintf(out, "  warehouse generated in %s\n", time.Since(start).Round(time.Millisecond))
	}
	fmt.Fprintf(out, "  config: %s\n", cfgPath)

	cfg, err := indexer.LoadConfig(d.ConfigPath)
	if err != nil {
		return fail(err)
	}
	prog := newProgress(env.Stderr)
	// The demo provokes a merge-on-read refusal on purpose and prints it:
	// log only errors unless $INDEXER_LOG asks for more.
	log := logger(env)
	if os.Getenv("INDEXER_LOG") == "" {
		log = slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	}
	ix, err := indexer.Open(ctx, cfg, indexer.Options{Logger: log, Progress: prog.report})
	if err != nil {
		return fail(err)
	}
	defer ix.Close()

	fmt.Fprintln(out, "\n1. Build every object type (full builds the first time, then only what changed)")
	first := ix.BuildAll(ctx, indexer.BuildOptions{})
	prog.done()
	printResults(out, first)
	if code, ok := demoBuildsOK(first); !ok {
		return code
	}

	fmt.Fprintln(out, "\n2. Commit changes to the tables, as another application would")
	w := d.Writer()
	var changes []demo.Change
	for _, step := range []func(context.Context) (demo.Change, error){w.UpdateCustomer, w.DeleteOrderLine, aircraftStep(w)} {
		c, err := step(ctx)
		if err != nil {
			return fail(err)
		}
		changes = append(changes, c)
		fmt.Fprintf(out, "  %s\n      snapshot %d: %s\n", c, c.SnapshotID, filesText(c))
	}

	fmt.Fprintln(out, "\n3. Build again: incremental, reading only the data files the commits added")
	second := ix.BuildAll(ctx, indexer.BuildOptions{})
	prog.done()
	printResults(out, second)
	if code, ok := demoBuildsOK(second); !ok {
		return code
	}

	fmt.Fprintln(out, "\n4. What the index holds now")
	for _, c := range changes {
		if err := describeChange(ctx, out, ix, c); err != nil {
			return fail(err)
		}
	}

	fmt.Fprintf(out, "\nNext:\n"+
		"  go run ./cmd/indexer check  --config %[1]s\n"+
		"  go run ./cmd/indexer build  --config %[1]s\n"+
		"  go run ./cmd/indexer export --config %[1]s --type Customer | head -3\n"+
		"  go run ./cmd/indexer demo   (again: more changes, incremental builds%[2]s)\n",
		cfgPath, aircraftHint(changes))
	return exitOK
}

// aircraftStep changes the merge-on-read table: a position delete when it
// is clean, a compaction when it holds delete files (so successive runs
// show the refusal and then the recovery).
func aircraftStep(w *demo.Writer) func(context.Context) (demo.Change, error) {
	return func(ctx context.Context) (demo.Change, error) {
		dirty, err := w.AircraftHasDeletes(ctx)
		if err != nil {
			return demo.Change{}, err
		}
		if dirty {
			return w.CompactAircraft(ctx)
		}
		return w.RetireAircraft(ctx)
	}
}

func aircraftHint(changes []demo.Change) string {
	for _, c := range changes {
		if c.Kind == demo.KindMORDelete {
			return "; Aircraft is compacted and recovers"
		}
	}
	return ""
}

// demoBuildsOK accepts builds that succeeded and the merge-on-read
// refusal the demo provokes on purpose.
func demoBuildsOK(results []*indexer.BuildResult) (int, bool) {
	for _, r := range results {
		switch {
		case r.Error == nil:
		case r.Error.Code == indexer.CodeCanceled:
			return exitAborted, false
		case r.Error.Code == indexer.CodeMergeOnRead && r.ObjectType == demo.Aircraft:
		default:
			return exitFailed, false
		}
	}
	return exitOK, true
}

func filesText(c demo.Change) string {
	s := fmt.Sprintf("%s added, %d removed", plural(c.FilesAdded, "data file"), c.FilesRemoved)
	if c.DeleteFiles > 0 {
		s += fmt.Sprintf(", %s added", plural(c.DeleteFiles, "delete file"))
	}
	return s
}

// describeChange shows how the index reflects one change.
func describeChange(ctx context.Context, out io.Writer, ix *indexer.Indexer, c demo.Change) error {
	v, err := ix.View(c.ObjectType)
	if err != nil {
		return err
	}
	defer v.Release()
	cp := v.Checkpoint()
	if c.Kind == demo.KindMORDelete || c.Kind == demo.KindCompaction {
		n, err := v.Count()
		if err != nil {
			return err
		}
		if cp.SnapshotID != c.SnapshotID {
			fmt.Fprintf(out, "  %s still serves its last good state: %d objects at snapshot %d (generation %d).\n", c.ObjectType, n, cp.SnapshotID, cp.Generation)
		} else {
			fmt.Fprintf(out, "  %s is up to date again: %d objects at snapshot %d.\n", c.ObjectType, n, cp.SnapshotID)
		}
		r, err := ix.Check(ctx, c.ObjectType)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "  indexer check: %s %s (position deletes %d, equality deletes %d, deletion vectors %d)\n",
			c.ObjectType, r.Verdict, r.LiveDeleteFiles.Position, r.LiveDeleteFiles.Equality, r.LiveDeleteFiles.DeletionVectors)
		if r.Verdict != cowguard.VerdictOK {
			fmt.Fprintf(out, "      %s\n", r.Message)
		}
		return nil
	}
	key, err := v.Type().ParseKey(c.Key)
	if err != nil {
		return err
	}
	o, err := v.Get(key)
	if err != nil {
		return err
	}
	if o == nil {
		fmt.Fprintf(out, "  %s %s: not in the index any more (snapshot %d).\n", c.ObjectType, c.Key, cp.SnapshotID)
		return nil
	}
	js, err := json.Marshal(v.Type().JSON(o))
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "  %s %s: %s\n", c.ObjectType, c.Key, js)
	return nil
}
