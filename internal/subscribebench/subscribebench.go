package subscribebench

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/ontoindex/ontoindex/internal/searchbench"
)

// Options configure Run.
type Options struct {
	Rows, Files int
	Seed        uint64
	// Subscriptions are spread over Connections websocket connections;
	// their kinds cycle through Kinds.
	Subscriptions, Connections int
	Kinds                      []Kind
	// Commits is how many edits the quiet parts commit, one every
	// CommitEvery; the server polls the table every PollInterval.
	Commits                   int
	CommitEvery, PollInterval time.Duration
	// Queries are the search queries (searchbench ids) measured with and
	// without subscribers, from Clients clients, Duration per part after
	// Warmup, in Rounds alternating rounds; none: no search parts.
	Queries          []string
	Clients          int
	Duration, Warmup time.Duration
	Rounds           int
	// Dir is the work directory (empty: a temporary one, removed after).
	Dir      string
	ServeBin string
	ServeEnv []string
	// Progress receives what the run is doing (nil: nothing).
	Progress io.Writer
}

// Check says what is wrong with the options, if anything.
func (o Options) Check() error {
	if o.Rows < 1000 || o.Files < 1 || o.Files > o.Rows || o.Subscriptions < 1 || o.Connections < 1 || o.Connections > o.Subscriptions ||
		len(o.Kinds) == 0 || o.Commits < 1 || o.CommitEvery <= 0 || o.PollInterval <= 0 || o.Clients < 1 || o.Duration <= 0 ||
		o.Warmup < 0 || o.Rounds < 1 || o.ServeBin == "" {
		return fmt.Errorf("subscribebench: bad options: rows %d (>= 1000), files %d (1..rows), subscriptions %d (>= 1), connections %d (1..subscriptions), "+
			"kinds %v, commits %d (>= 1), commit every %s, poll interval %s, clients %d, duration %s, warmup %s, rounds %d (>= 1), serve binary %q",
			o.Rows, o.Files, o.Subscriptions, o.Connections, o.Kinds, o.Commits, o.CommitEvery, o.PollInterval, o.Clients, o.Duration, o.Warmup, o.Rounds, o.ServeBin)
	}
	for _, q := range o.Queries {
		if err := searchbench.CheckQuery(o.Rows, q); err != nil {
			return err
		}
	}
	return nil
}

// Run runs the benchmark: the server, the connections, the quiet parts
// (commits without search load: without, with, and again without
// subscribers) and
// the search parts of each query.
func Run(ctx context.Context, o Options) (*Report, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	say := func(format string, args ...any) {
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, time.Now().Format("15:04:05 ")+format+"\n", args...)
		}
	}
	work, removeWork, err := searchbench.WorkDir(o.Dir, "indexer-bench-subscribe-")
	if err != nil {
		return nil, err
	}
	defer removeWork()
	rep := newReport(o)
	rep.LoadAverage[0] = searchbench.LoadAverage()
	rep.Version = searchbench.Version(ctx, o.ServeBin, o.ServeEnv)

	say("writing %d customers and orders, starting %s serve (poll interval %s)", o.Rows, o.ServeBin, o.PollInterval)
	srv, err := searchbench.StartServer(ctx, searchbench.ServerOptions{
		Bin: o.ServeBin, Env: o.ServeEnv, Dir: work, Seed: o.Seed, Rows: o.Rows, Files: o.Files,
		ServerConfig: serverConfig(o), DaemonConfig: fmt.Sprintf("  pollInterval: %s\n", o.PollInterval),
		Progress: o.Progress,
	}, o.Clients)
	if err != nil {
		return nil, err
	}
	defer srv.Stop()
	w, err := openWriter(ctx, work, o.Seed, o.Rows)
	if err != nil {
		return nil, err
	}
	p := plan(o.Subscriptions, o.Connections, o.Rows, o.Kinds)
	rep.DistinctSets = distinctSets(p)
	say("opening %d websocket connections for %d subscriptions", o.Connections, o.Subscriptions)
	f, err := dial(ctx, srv.Base(), searchbench.Ontology, p)
	if err != nil {
		return nil, err
	}
	defer f.close()
	r := &runner{o: o, srv: srv, w: w, f: f, kinds: kindsOf(p)}

	// Without subscribers before and after the part with them: each commit
	// costs the server a little more than the one before (the table's
	// metadata grows by a snapshot), and the mean of the two cancels that.
	say("quiet: %d commits, one every %s, without subscribers", o.Commits, o.CommitEvery)
	before, err := r.part(ctx, false, o.Commits, nil)
	if err != nil {
		return nil, err
	}
	say("quiet: %d commits with %d subscriptions", o.Commits, o.Subscriptions)
	with, err := r.part(ctx, true, o.Commits, nil)
	if err != nil {
		return nil, err
	}
	say("quiet: %d commits without subscribers again", o.Commits)
	after, err := r.part(ctx, false, o.Commits, nil)
	if err != nil {
		return nil, err
	}
	rep.Quiet = quietFigures(before, with, after)

	for qi, q := range o.Queries {
		say("search %s: %d clients, %d rounds of %s with and without subscribers, commits going on", q, o.Clients, o.Rounds, o.Duration)
		sf := SearchFigures{Query: q}
		var samples [2]searchbench.Sample // without, with
		for round := range o.Rounds {
			for k := range 2 {
				subscribed := (k+round)%2 == 1 // without first, then with; the other way round in the next round
				stream := uint64(qi)<<8 | uint64(round)
				measure := func(ctx context.Context) (searchbench.Sample, error) {
					return srv.Measure(ctx, q, o.Clients, o.Warmup, o.Duration, o.Seed, stream)
				}
				pr, err := r.part(ctx, subscribed, 0, measure)
				if err != nil {
					return nil, err
				}
				i := 0
				if subscribed {
					i = 1
					sf.Outcome.add(pr.outcome)
				}
				sf.Stray += pr.stray
				samples[i].Add(pr.search)
			}
		}
		sf.Without, sf.With = samples[0].Stats(), samples[1].Stats()
		rep.Search = append(rep.Search, sf.finish())
	}
	rep.ServerMetrics, err = scrapeMetrics(ctx, srv.Base())
	if err != nil {
		rep.Notes = append(rep.Notes, "server metrics: "+err.Error())
	}
	rep.LoadAverage[1] = searchbench.LoadAverage()
	rep.finish()
	return rep, nil
}

// serverConfig is the server section's subscription limits, set so that
// the plan fits (with room for a connection's list while it is replaced);
// the rest (queue length, heartbeat) stays the product's default.
func serverConfig(o Options) string {
	perConnection := (o.Subscriptions + o.Connections - 1) / o.Connections
	return fmt.Sprintf("  subscriptions:\n    maxPerConnection: %d\n    maxTotal: %d\n    maxConnections: %d\n",
		perConnection, o.Subscriptions+perConnection, o.Connections+16)
}

// runner runs the parts of a benchmark.
type runner struct {
	o     Options
	srv   *searchbench.Server
	w     *writer
	f     *fleet
	kinds []Kind
}

// partResult is what one part measured.
type partResult struct {
	commits   []Commit
	outcome   Outcome
	stray     int     // objectSetChanged for subscriptions that had ended (or never began)
	seconds   float64 // from the first commit until the last was built (and delivered)
	serverCPU float64 // seconds, over the same window
	clientCPU float64 // the bench process's
	idlePct   float64 // of the machine, over the same window
	search    searchbench.Sample
	builds    []searchbench.Build // the daemon's recent builds at the end
}

// part runs one part: with the subscriptions of the plan or none, a
// writer that commits n edits (quiet) or commits until search returns,
// then waits until the server has built the last commit and, subscribed,
// until the deliveries have arrived.
func (r *runner) part(ctx context.Context, subscribed bool, n int, search func(context.Context) (searchbench.Sample, error)) (partResult, error) {
	var pr partResult
	if subscribed {
		if err := r.f.subscribe(ctx, true); err != nil {
			return pr, err
		}
	}
	// What arrived since the last part (late deliveries of its commits)
	// is not this part's.
	before, err := r.f.drain()
	if err != nil {
		return pr, err
	}
	pr.stray = before.stray

	cpu0, client0 := r.srv.CPUSeconds(), searchbench.ProcessCPUSeconds(os.Getpid())
	idle0, total0 := searchbench.MachineCPUTicks()
	start := time.Now()
	if search == nil {
		pr.commits, err = r.w.run(ctx, r.o.CommitEvery, n, nil)
	} else {
		stop := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			var err error
			pr.commits, err = r.w.run(ctx, r.o.CommitEvery, 0, stop)
			done <- err
		}()
		pr.search, err = search(ctx)
		close(stop)
		if werr := <-done; err == nil {
			err = werr
		}
	}
	if err != nil {
		return pr, err
	}
	if len(pr.commits) == 0 {
		return pr, fmt.Errorf("subscribebench: a part without commits")
	}
	if err := r.waitBuilt(ctx, pr.commits[len(pr.commits)-1].Snapshot); err != nil {
		return pr, err
	}
	if subscribed {
		want := int64(expecting(r.kinds) * len(pr.commits))
		r.waitDelivered(ctx, want)
	}
	pr.seconds = time.Since(start).Seconds()
	pr.serverCPU = r.srv.CPUSeconds() - cpu0
	pr.clientCPU = searchbench.ProcessCPUSeconds(os.Getpid()) - client0
	if idle1, total1 := searchbench.MachineCPUTicks(); total1 > total0 {
		pr.idlePct = 100 * (idle1 - idle0) / (total1 - total0)
	}

	if pr.builds, err = r.srv.RecentBuilds(ctx); err != nil {
		return pr, err
	}
	got, err := r.f.drain()
	if err != nil {
		return pr, err
	}
	pr.stray += got.stray
	inPart := make(map[int64]bool, len(pr.commits))
	for _, c := range pr.commits {
		inPart[c.Key] = true
	}
	wasEarlier := func(key int64) bool { return r.w.committed[key] && !inPart[key] }
	if subscribed {
		pr.outcome = match(pr.commits, r.kinds, got.deliveries, got.gaps, wasEarlier)
		if err := r.f.subscribe(ctx, false); err != nil {
			return pr, err
		}
	} else {
		// No subscriptions: every delivery is one too many.
		pr.stray += len(got.deliveries)
	}
	return pr, nil
}

// expecting counts the subscriptions that must receive the edits.
func expecting(kinds []Kind) int {
	n := 0
	for _, k := range kinds {
		if k.expects() {
			n++
		}
	}
	return n
}

// waitBuilt waits until the server serves the table snapshot.
func (r *runner) waitBuilt(ctx context.Context, snapshot int64) error {
	limit := 30*time.Second + 10*r.o.PollInterval
	deadline := time.Now().Add(limit)
	for {
		got, err := r.srv.CheckpointSnapshot(ctx)
		if err != nil {
			return err
		}
		if got == snapshot {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("subscribebench: the server did not serve snapshot %d within %s (it serves %d)", snapshot, limit, got)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// waitDelivered waits until want deliveries have arrived since the last
// drain, or for a grace period after the build: what has not arrived
// then counts as missing.
func (r *runner) waitDelivered(ctx context.Context, want int64) {
	deadline := time.Now().Add(max(5*time.Second, 3*r.o.PollInterval))
	for r.f.delivered.Load() < want && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
}

// newReport is the report's header.
func newReport(o Options) *Report {
	return &Report{
		MeasuredAt: time.Now().UTC().Format("2006-01-02 15:04 UTC"), Binary: o.ServeBin,
		Rows: o.Rows, Files: o.Files, CPUs: runtime.NumCPU(), Seed: o.Seed,
		Subscriptions: o.Subscriptions, Connections: o.Connections, Kinds: o.Kinds,
		PollIntervalMs: ms(o.PollInterval), CommitEveryMs: ms(o.CommitEvery),
		Clients: o.Clients, DurationSeconds: o.Duration.Seconds(), Rounds: o.Rounds,
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
