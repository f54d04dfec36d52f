package api_test

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/api"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
)

// Flags of TestDifferential_search.
var (
	dfSeedFlag    = flag.Int64("differential.seed", 0, "seed of TestDifferential_search (0: a new one, logged)")
	dfRoundsFlag  = flag.Int("differential.rounds", 2, "rounds of copy-on-write edits in TestDifferential_search")
	dfQueriesFlag = flag.Int("differential.queries", 300, "queries per round in TestDifferential_search")
	dfRowsFlag    = flag.Int("differential.rows", 1500, "rows of TestDifferential_search's table")
	dfSafeFlag    = flag.Bool("differential.safe", false, "TestDifferential_search only generates values the current engine represents exactly: |long| < 2^53, decimals of at most 15 digits, no NaN, no -0")
	dfAvoidFlag   = flag.String("differential.avoid", "", "comma-separated data and queries TestDifferential_search leaves out, to look past known engine bugs: empty (\"\" strings), dups (duplicate list elements, and fixedWidth or ranges groups over lists), absentdesc (ordering groups by a metric that may be absent, descending), minmaxorder (ordering groups by min or max)")
	dfMaxFailFlag = flag.Int("differential.maxfail", 25, "failures TestDifferential_search reports in full (at most 3 per category); the rest are counted")
)

const (
	ontologyPathDf   = "/api/v2/ontologies/diff"
	dfMaxPages       = 40 // pages followed per request
	dfMinimizeBudget = 60 // failures looked into for their smallest clause
)

// dfReporter collects failures: the first ones in full, every one counted
// by category for the summary.
type dfReporter struct {
	seed  int64
	safe  bool
	max   int
	at    string // the round and query being checked
	n     int
	cats  map[string]int
	order []string
	ops   map[string][2]int // probes per query type: sent, matching some but not all
}

// cover counts a probe, for the coverage the test logs.
func (r *dfReporter) cover(w *dfWhere, matches, all int) {
	if r.ops == nil {
		r.ops = map[string][2]int{}
	}
	op := w.op
	if w.fuzzy {
		op += "(fuzzy)"
	}
	c := r.ops[op]
	c[0]++
	if matches > 0 && matches < all {
		c[1]++
	}
	r.ops[op] = c
}

func (r *dfReporter) fail(tb testing.TB, cat string, req any, format string, args ...any) {
	tb.Helper()
	r.n++
	if r.cats[cat]++; r.cats[cat] == 1 {
		r.order = append(r.order, cat)
	}
	if r.n > r.max || r.cats[cat] > 3 {
		tb.Fail()
		return
	}
	tb.Errorf("[%s] seed %d (safe=%v), %s\nrequest: %s\n%s", cat, r.seed, r.safe, r.at, dfJSON(req), fmt.Sprintf(format, args...))
}

// dfDriver runs the rounds against one server.
type dfDriver struct {
	seed      int64
	safe      bool
	avoid     map[string]bool
	scale     int
	c         *dfClient
	ix        *indexer.Indexer
	cfg       *config.Config
	tbl       *dfTable
	s         *dfState
	dead      [][]byte // keys of objects earlier states had
	rep       *dfReporter
	defaultP  int
	minimized int // failures minimized so far
}

// TestDifferential_search checks every answer of the search API against a
// brute-force evaluation over all objects read back from the store: a
// random table, random searches, object set loads, listings, counts and
// aggregations, then random copy-on-write edits, an incremental build, and
// the same again, with page tokens taken before an edit used after it.
//
//	go test ./api -run TestDifferential -differential.seed=N      replay a run
//	go test ./api -run TestDifferential -differential.rounds=20   soak
//	go test ./api -run TestDifferential -differential.safe        values the current engine represents exactly
func TestDifferential_search(t *testing.T) {
	seed := *dfSeedFlag
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d, safe=%v (replay with -differential.seed=%d)", seed, *dfSafeFlag, seed)
	d := mustDfDriver(t, seed, *dfSafeFlag)
	rounds, queries := *dfRoundsFlag, *dfQueriesFlag
	if testing.Short() {
		// CI's race run: a third of the queries still takes every route
		// through the server's goroutines; the plain run does them all.
		queries = max(1, queries/3)
	}
	var cursors []*dfCursor
	for round := 0; round <= rounds; round++ {
		if round > 0 {
			d.edit(t, round)
		}
		t.Run(fmt.Sprintf("round%d", round), func(t *testing.T) {
			for i, c := range cursors {
				d.rep.at = fmt.Sprintf("round %d, page token %d taken before the edit", round, i)
				d.continueCursor(t, c)
			}
			cursors = nil
			d.rep.at = fmt.Sprintf("round %d, count", round)
			d.count(t)
			for i := range queries {
				d.rep.at = fmt.Sprintf("round %d, query %d", round, i)
				q := d.gen(uint64(round)<<32 | uint64(i))
				switch x := q.r.IntN(100); {
				case x < 35:
					d.search(t, q)
				case x < 55:
					d.probe(t, q)
				case x < 67:
					d.loadObjects(t, q)
				case x < 71:
					d.list(t, q)
				case x < 98:
					d.aggregate(t, q)
				default:
					d.count(t)
				}
			}
			if round < rounds {
				for i := range 10 {
					d.rep.at = fmt.Sprintf("round %d, page token %d (before the edit)", round, i)
					if c := d.startCursor(t, d.gen(uint64(round)<<32|1<<31|uint64(i))); c != nil {
						cursors = append(cursors, c)
					}
				}
			}
		})
	}
	var cov []string
	for _, op := range slices.Sorted(maps.Keys(d.rep.ops)) {
		c := d.rep.ops[op]
		cov = append(cov, fmt.Sprintf("%s %d (%d selective)", op, c[0], c[1]))
	}
	t.Logf("probes by query type: %s", strings.Join(cov, ", "))
	if d.rep.n > 0 {
		var b strings.Builder
		for _, c := range d.rep.order {
			fmt.Fprintf(&b, "\n  %5d  %s", d.rep.cats[c], c)
		}
		replay := fmt.Sprintf("go test ./api -run TestDifferential_search -differential.seed=%d -differential.rounds=%d -differential.queries=%d -differential.rows=%d", seed, rounds, queries, *dfRowsFlag)
		if d.safe {
			replay += " -differential.safe"
		}
		if *dfAvoidFlag != "" {
			replay += " -differential.avoid=" + *dfAvoidFlag
		}
		t.Errorf("seed %d (safe=%v): %d discrepancies between the engine and the oracle, by category:%s\nreplay: %s", seed, d.safe, d.rep.n, b.String(), replay)
	}
}

// mustDfDriver writes the random table, builds it and serves it.
func mustDfDriver(tb testing.TB, seed int64, safe bool) *dfDriver {
	tb.Helper()
	ctx := context.Background()
	r := rand.New(rand.NewPCG(uint64(seed), 1<<62))
	d := &dfDriver{seed: seed, safe: safe, scale: 10, rep: &dfReporter{seed: seed, safe: safe, max: *dfMaxFailFlag, cats: map[string]int{}}}
	if safe {
		d.scale = 3
	}
	d.avoid = map[string]bool{}
	for _, a := range strings.Split(*dfAvoidFlag, ",") {
		if a = strings.TrimSpace(a); a != "" {
			d.avoid[a] = true
		}
	}
	g := &dfGen{r: r, safe: safe, scale: d.scale, avoid: d.avoid}
	composite := r.IntN(3) == 0
	d.tbl = &dfTable{cols: dfColumns(composite, d.scale, safe), pk: []string{"id"}, composite: composite, rows: map[string][]any{}, ids: map[int64]int{}}
	if composite {
		d.tbl.pk = []string{"id", "code"}
	}
	w := icebergtest.MustWarehouse(tb)
	it, err := w.CreateTable(ctx, "diff.things", d.tbl.schema(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	d.tbl.t = it
	files := 3 + r.IntN(4)
	if err := d.tbl.fill(ctx, g, *dfRowsFlag, files); err != nil {
		tb.Fatal(err)
	}
	title := []string{"title", "name", ""}[r.IntN(3)]
	tb.Logf("table: %d rows in %d files, primary key %v, title %q", len(d.tbl.rows), files, d.tbl.pk, title)
	d.cfg = indexertest.Config(tb, w, d.tbl.spec(title))
	d.cfg.Ontology.APIName = "diff"
	d.cfg.Ontology.RID = ""
	if err := d.cfg.Validate(); err != nil {
		tb.Fatal(err)
	}
	d.defaultP = d.cfg.Server.DefaultPageSize
	d.ix = indexertest.Open(tb, d.cfg)
	if _, err := d.ix.Build(ctx, dfTypeName, indexer.BuildOptions{}); err != nil {
		tb.Fatalf("build: %v", err)
	}
	s, err := api.New(d.ix, api.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	tb.Cleanup(srv.Close)
	d.c = &dfClient{base: srv.URL, hc: srv.Client()}
	d.reload(tb)
	return d
}

// gen is the query generator of one query: its own random stream, so a
// query does not change when others do.
func (d *dfDriver) gen(stream uint64) *dfQGen {
	r := rand.New(rand.NewPCG(uint64(d.seed), stream))
	return &dfQGen{r: r, g: &dfGen{r: r, safe: d.safe, scale: d.scale, avoid: d.avoid}, s: d.s, tbl: d.tbl, dead: d.dead}
}

// reload reads the ground truth and checks it against the written rows.
func (d *dfDriver) reload(tb testing.TB) {
	tb.Helper()
	old := d.s
	d.s = mustDfState(tb, d.ix)
	d.rep.at = "reading the store"
	if diffs := d.s.checkModel(d.tbl); len(diffs) > 0 {
		d.rep.fail(tb, "store", nil, "%d differences between the store and the table, e.g.\n%s", len(diffs), strings.Join(diffs[:min(5, len(diffs))], "\n"))
	}
	if old != nil {
		for _, ob := range old.objs {
			if d.s.byKey[string(ob.key)] == nil {
				d.dead = append(d.dead, ob.key)
			}
		}
	}
}

// edit commits a few random copy-on-write changes and builds.
func (d *dfDriver) edit(t *testing.T, round int) {
	t.Helper()
	ctx := context.Background()
	r := rand.New(rand.NewPCG(uint64(d.seed), 1<<62+uint64(round)))
	g := &dfGen{r: r, safe: d.safe, scale: d.scale, avoid: d.avoid}
	for range 2 + r.IntN(4) {
		desc, err := d.tbl.edit(ctx, g)
		if err != nil {
			t.Fatalf("seed %d, edit before round %d: %v", d.seed, round, err)
		}
		t.Logf("round %d: %s", round, desc)
		if r.IntN(4) == 0 { // sometimes build between commits
			if _, err := d.ix.Build(ctx, dfTypeName, indexer.BuildOptions{}); err != nil {
				t.Fatalf("seed %d: build: %v", d.seed, err)
			}
		}
	}
	res, err := d.ix.Build(ctx, dfTypeName, indexer.BuildOptions{})
	if err != nil {
		t.Fatalf("seed %d: build: %v", d.seed, err)
	}
	t.Logf("round %d: %s build, %d upserts, %d deletes, %d objects", round, res.Kind, res.Upserts, res.Deletes, len(d.tbl.rows))
	if res.Kind != indexer.KindIncremental && res.Kind != indexer.KindNone {
		d.rep.fail(t, "build", nil, "the build after copy-on-write edits was %s, want incremental", res.Kind)
	}
	d.reload(t)
}
