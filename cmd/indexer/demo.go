package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ontoindex/ontoindex/cowguard"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/cli"
	"github.com/ontoindex/ontoindex/internal/demo"
	"github.com/ontoindex/ontoindex/objects"
)

func runDemo(ctx context.Context, env *Env, args []string) int {
	fs := newFlags(env, "demo", "[--dir DIR] [--listen ADDR] [--writer=false] [--every D] [--customers N] [--seed N] [--once]\n"+
		"    [--catalog hadoop|sql] [--catalog-uri URI] [--warehouse URL]\n\n"+
		"Creates DIR (default ./demo) with an Iceberg warehouse of three object types (a hadoop catalog in\n"+
		"DIR/warehouse, or with --catalog sql iceberg-go's sql catalog, on SQLite or PostgreSQL, with the\n"+
		"tables on disk or in S3; reused when it exists) and its config DIR/ontology.yaml, then runs\n"+
		"`indexer serve` on it with a demo writer that commits a small change to the tables every few\n"+
		"seconds: copy-on-write updates, inserts and deletes, and now and then a merge-on-read delete that\n"+
		"blocks Aircraft until the writer compacts the table. The index is kept in DIR/index. Ctrl-C stops it.\n\n"+
		"--once runs the one-shot demo instead: build, commit three changes, build again, print.")
	dir := fs.String("dir", "demo", "directory of the demo")
	seed := fs.Uint64("seed", 1, "seed of the generated data (first run only)")
	customers := fs.Int64("customers", 120_000, "customers to generate (first run only)")
	listen := fs.String("listen", "", "address to serve on (default: server.listen of the demo config, 127.0.0.1:8080)")
	writer := fs.Bool("writer", true, "commit small changes to the tables while serving")
	every := fs.Duration("every", 3*time.Second, "time between two commits of the demo writer")
	once := fs.Bool("once", false, "run the one-shot demo (build, change, build again) instead of serving")
	catType := fs.String("catalog", "hadoop", "catalog of the first run's config: hadoop (DIR/warehouse) or sql")
	catURI := fs.String("catalog-uri", "", "with --catalog sql: the catalog's database, postgres://user@host:port/db (password from $PGPASSWORD) or file:PATH (default: SQLite in DIR/catalog.db)")
	warehouse := fs.String("warehouse", "", "with --catalog sql: where the tables go, a URL such as s3://bucket/prefix (default DIR/warehouse); S3 connects with AWS_S3_ENDPOINT, AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if *customers < 1 {
		fmt.Fprintln(env.Stderr, "indexer demo: --customers must be at least 1")
		return exitUsage
	}
	if *every <= 0 {
		fmt.Fprintln(env.Stderr, "indexer demo: --every must be positive")
		return exitUsage
	}
	var cat *config.Catalog
	switch {
	case *catType == "sql":
		cc, err := demo.SQLCatalog(*dir, *catURI, *warehouse)
		if err != nil {
			fmt.Fprintf(env.Stderr, "indexer demo: %v\n", err)
			return exitUsage
		}
		cat = &cc
	case *catType != "hadoop":
		fmt.Fprintf(env.Stderr, "indexer demo: --catalog %q must be hadoop or sql\n", *catType)
		return exitUsage
	case *catURI != "" || *warehouse != "":
		fmt.Fprintln(env.Stderr, "indexer demo: --catalog-uri and --warehouse go with --catalog sql")
		return exitUsage
	}
	out := env.Stdout
	start := time.Now()
	fmt.Fprintf(out, "ontoindex demo in %s\n\n", *dir)
	d, tables, err := demo.Open(ctx, *dir, demo.Options{Seed: *seed, Customers: *customers, Catalog: cat,
		Generating: func(objectType, table string) {
			fmt.Fprintf(out, "  generating %s (%s) ...\n", objectType, table)
		}})
	if err != nil {
		return demoFailed(env, err)
	}
	defer d.Close()
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
	fmt.Fprintf(out, "  config: %s\n", filepath.Join(*dir, demo.ConfigFile))
	if *once {
		return runDemoOnce(ctx, env, d, filepath.Join(*dir, demo.ConfigFile))
	}
	return serve(ctx, env, serveOptions{ConfigPath: d.ConfigPath, Listen: *listen, StopGrace: defaultStopGrace,
		Events: out, Verbose: true, Log: demoLogger(env),
		Started: func(ctx context.Context, s *serving) {
			runDemoServing(ctx, out, d, s, *writer, *every)
		}})
}

func demoFailed(env *Env, err error) int {
	fmt.Fprintf(env.Stderr, "indexer demo: %v\n", err)
	if errors.Is(err, context.Canceled) {
		return exitAborted
	}
	return exitFailed
}

// demoLogger logs only errors unless $INDEXER_LOG asks for more: the demo
// provokes merge-on-read refusals on purpose, and reports them itself.
func demoLogger(env *Env) *slog.Logger {
	if os.Getenv("INDEXER_LOG") != "" {
		return cli.Logger(env)
	}
	return slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
}

// runDemoServing prints where the demo serves, waits until every object
// type has a generation to serve, prints requests to try, and then runs the
// demo writer until ctx is done.
func runDemoServing(ctx context.Context, out io.Writer, d *demo.Demo, s *serving, writer bool, every time.Duration) {
	api := s.BaseURL + "/api/v2/ontologies/" + s.Config.Ontology.APIName
	fmt.Fprintf(out, "\nServing %s (Ctrl-C stops; the warehouse and the index stay for the next run)\n"+
		"  objects   %s/objectTypes\n"+
		"  status    %s/api/indexer/v1/status\n"+
		"  checks    %s/api/indexer/v1/checks/write-modes\n"+
		"  metrics   %s/metrics\n", s.BaseURL, api, s.BaseURL, s.BaseURL, s.BaseURL)
	if n := s.Daemon.NotReady(); len(n) > 0 {
		fmt.Fprintf(out, "\nFirst builds of %s are running; progress below. Until a type is built, its\n"+
			"searches answer 409 ObjectTypeNotSynced.\n\n", strings.Join(n, ", "))
		t := time.NewTicker(200 * time.Millisecond)
		for len(s.Daemon.NotReady()) > 0 {
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
		t.Stop()
	}
	fmt.Fprintf(out, "\nTry:\n")
	for _, c := range demoCurls(s.BaseURL, s.Config.Ontology.APIName, customerWithOrders(s.Index)) {
		fmt.Fprintf(out, "  %s\n", c)
	}
	fmt.Fprintf(out, "  %s status --url %s\n", invocation(), s.BaseURL)
	fmt.Fprintf(out, "or open the web console: %s/\n", s.BaseURL)
	if !writer {
		fmt.Fprintf(out, "\nThe demo writer is off (--writer=false).\n")
		return
	}
	fmt.Fprintf(out, "\nDemo writer: a commit every %s, as another application would make them (--writer=false turns it off).\n"+
		"Copy-on-write edits are indexed within seconds; a merge-on-read delete blocks Aircraft until the\n"+
		"writer compacts the table, while its searches keep answering.\n\n", every)
	w := d.Writer()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x0d15ea5e))
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		c, err := w.Step(ctx, rng)
		stamp := time.Now().Format("15:04:05")
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			fmt.Fprintf(out, "%s commit failed: %v\n", stamp, err)
		default:
			fmt.Fprintf(out, "%s commit   %s: snapshot %d, %s\n", stamp, c, c.SnapshotID, filesText(c))
		}
	}
}

// demoCurls are the requests the demo suggests: a search, a get of
// customer, its order lines and the status, ready to paste.
func demoCurls(base, ontology, customer string) []string {
	api := base + "/api/v2/ontologies/" + ontology
	search := `{"where":{"type":"and","value":[{"type":"eq","field":"city","value":"Lisbon"},{"type":"gte","field":"lifetimeValue","value":500}]},` +
		`"orderBy":{"fields":[{"field":"lifetimeValue","direction":"desc"}]},"pageSize":3}`
	return []string{
		fmt.Sprintf("curl -s -H 'Content-Type: application/json' -d '%s' %s/objects/Customer/search", search, api),
		fmt.Sprintf("curl -s %s/objects/Customer/%s", api, customer),
		fmt.Sprintf("curl -s %s/objects/Customer/%s/links/orderLines", api, customer),
		fmt.Sprintf("curl -s %s/api/indexer/v1/status", base),
	}
}

// customerWithOrders picks the customer the link example follows, from
// the index: most customers have no orders, so a fixed key would show an
// empty list. It is the customer with the most order lines among the first
// ones in key order; "1" when the index cannot tell (a config edited to
// other types).
func customerWithOrders(ix *indexer.Indexer) string {
	const sample = 200
	v, err := ix.View(demo.OrderLine)
	if err != nil {
		return "1"
	}
	defer v.Release()
	prop := v.Type().PropertyIndex("customerId")
	if prop < 0 {
		return "1"
	}
	lines := map[string]int{}
	best, seen := "1", 0
	_ = v.Scan(nil, func(_ []byte, o *objects.Object) bool {
		if prop < len(o.Values) && o.Values[prop] != nil {
			c := fmt.Sprint(o.Values[prop])
			lines[c]++
			if lines[c] > lines[best] {
				best = c
			}
		}
		seen++
		return seen < sample
	})
	return best
}

// runDemoOnce is the one-shot demo: build every object type, commit a
// copy-on-write update, a copy-on-write delete and a change to the
// merge-on-read table, build again, and show what the index holds.
func runDemoOnce(ctx context.Context, env *Env, d *demo.Demo, cfgPath string) int {
	out := env.Stdout
	cfg, err := config.Load(d.ConfigPath)
	if err != nil {
		return demoFailed(env, err)
	}
	prog := newProgress(env.Stderr)
	ix, err := indexer.Open(ctx, cfg, indexer.Options{Logger: demoLogger(env), Progress: prog.report})
	if err != nil {
		return demoFailed(env, err)
	}
	defer ix.Close()

	fmt.Fprintln(out, "\n1. Build every object type (full builds the first time, then only what changed)")
	first := ix.BuildAll(ctx, indexer.BuildOptions{})
	prog.done()
	printResults(out, first)
	printBuildErrors(out, "\n", first)
	if code, ok := demoBuildsOK(first); !ok {
		return code
	}

	fmt.Fprintln(out, "\n2. Commit changes to the tables, as another application would")
	w := d.Writer()
	var changes []demo.Change
	for _, step := range []func(context.Context) (demo.Change, error){w.UpdateCustomer, w.DeleteOrderLine, aircraftStep(w)} {
		c, err := step(ctx)
		if err != nil {
			return demoFailed(env, err)
		}
		changes = append(changes, c)
		fmt.Fprintf(out, "  %s\n      snapshot %d: %s\n", c, c.SnapshotID, filesText(c))
	}

	fmt.Fprintln(out, "\n3. Build again: incremental, reading only the data files the commits added")
	second := ix.BuildAll(ctx, indexer.BuildOptions{})
	prog.done()
	printResults(out, second)
	printBuildErrors(out, "\n", second)
	if code, ok := demoBuildsOK(second); !ok {
		return code
	}

	fmt.Fprintln(out, "\n4. What the index holds now")
	for _, c := range changes {
		if err := describeChange(ctx, out, ix, c); err != nil {
			return demoFailed(env, err)
		}
	}

	fmt.Fprintf(out, "\nNext:\n"+
		"  %[3]s check  --config %[1]s\n"+
		"  %[3]s build  --config %[1]s\n"+
		"  %[3]s export --config %[1]s --type Customer | head -3\n"+
		"  %[3]s demo --once   (again: more changes, incremental builds%[2]s)\n"+
		"  %[3]s demo          (serve the API while a writer changes the tables)\n",
		cfgPath, aircraftHint(changes), invocation())
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
		n := v.Count()
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
