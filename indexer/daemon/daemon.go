package daemon

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/prometheus/client_golang/prometheus"
)

// Options wire a Daemon.
type Options struct {
	Logger *slog.Logger
	// Registerer, when set, receives the daemon's metrics (see metrics.go).
	Registerer prometheus.Registerer
	// StopGrace is how long builds that are running when Run's context is
	// cancelled may go on before they are cancelled too (default 0: at
	// once). Either way is safe: a cancelled incremental build leaves the
	// checkpoint where it was, a cancelled full build resumes from its last
	// committed chunk.
	StopGrace time.Duration
	// Now and Rand replace the clock and the jitter source (uniform in
	// [0, 1)), for tests; both must be safe for concurrent use.
	Now  func() time.Time
	Rand func() float64
}

// Daemon keeps every object type of an indexer fresh. It runs one loop
// per object type that polls the type's table every pollInterval (with jitter)
// and builds when the table's current snapshot differs from the checkpoint;
// at most maxConcurrentBuilds builds run at once. A failed build is retried
// with exponential backoff; a merge-on-read refusal waits until the table's
// current snapshot changes. Operators can request full rebuilds (Rebuild)
// and apply a new config (Reload); Status reports where each type stands.
//
// The caller owns the Daemon: Run starts the loops and returns once its
// context is cancelled and every loop has stopped. The indexer must stay
// open until Run has returned.
type Daemon struct {
	ix    *indexer.Indexer
	log   *slog.Logger
	m     *metrics
	now   func() time.Time
	rand  func() float64
	grace time.Duration
	limit *limiter

	reloadMu sync.Mutex // serializes reloads

	mu       sync.Mutex
	runs     map[string]*typeRun
	changed  chan struct{} // closed and replaced when the status changes (see Changed)
	started  bool
	stopping bool
	loopCtx  context.Context // Run's context: scheduling stops when it is done
	buildCtx context.Context // cancelled when the stop grace is over
	wg       sync.WaitGroup  // the loops
}

// typeRun is the daemon's state of one object type. Fields other than
// name and wake are guarded by Daemon.mu.
type typeRun struct {
	name string
	wake chan struct{} // buffered: poll now

	stop context.CancelFunc // stops the loop and its build
	done chan struct{}      // closed when the loop returned; nil without a loop

	sched     schedule
	poll      pollResult
	polled    bool
	lastBuild *indexer.BuildResult
	lastErr   *indexer.ErrorInfo
	history   []BuildRecord // the last MaxRecentBuilds builds, oldest first (history.go)
}

// pollResult is what one poll saw.
type pollResult struct {
	table        *indexer.Polled // what the build the poll decides on plans from
	at           time.Time
	snapshotID   int64
	checkpoint   int64 // the checkpoint the lag was counted from
	lagSnapshots int
	oldest       time.Time // commit time of the oldest unindexed snapshot
}

// ErrStarted is returned by a second call of Run.
var ErrStarted = errors.New("daemon already started")

// New returns a daemon over ix. It starts nothing: call Run.
func New(ix *indexer.Indexer, opts Options) (*Daemon, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Rand == nil {
		opts.Rand = rand.Float64
	}
	d := &Daemon{ix: ix, log: opts.Logger, now: opts.Now, rand: opts.Rand, grace: opts.StopGrace,
		limit: newLimiter(ix.Config().Daemon.WithDefaults().MaxConcurrentBuilds), runs: map[string]*typeRun{}, changed: make(chan struct{})}
	for _, name := range ix.Types() {
		d.runs[name] = newRun(name)
	}
	if opts.Registerer != nil {
		m, err := newMetrics(opts.Registerer, d)
		if err != nil {
			return nil, err
		}
		d.m = m
	}
	return d, nil
}

func newRun(name string) *typeRun { return &typeRun{name: name, wake: make(chan struct{}, 1)} }

// Changed returns a channel that is closed at the next change of the
// status (Report, Status, StatusOf): a poll recorded (it failed, or it
// saw the table, even at the same snapshot: PolledAt moves), a build
// started, or ended (built, failed, refused as merge-on-read, or
// interrupted), or object types added, changed or removed by a reload.
// Take the channel before reading the status, then wait on it:
//
//	for {
//		changed := d.Changed()
//		if st, _ := d.StatusOf(name); done(st) {
//			return st
//		}
//		<-changed // or the caller's context
//	}
//
// so that a change between the read and the wait is not lost. It is not
// closed for what moves without the daemon: LagSeconds grows with the
// clock, and the engine turns its building flag (StateBuilding) on inside
// the build, just after the build-started change, and a full build's new
// generation serves just before the build ends. Once Run has returned
// nothing changes any more: wait with a deadline or a context.
func (d *Daemon) Changed() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.changed
}

// changedLocked wakes the waiters of Changed. The caller holds d.mu.
func (d *Daemon) changedLocked() {
	close(d.changed)
	d.changed = make(chan struct{})
}

// Run starts a loop per object type and blocks until ctx is cancelled.
// Then it stops scheduling, lets running builds go on for the stop grace,
// cancels them, and returns nil once every loop has returned.
func (d *Daemon) Run(ctx context.Context) error {
	d.mu.Lock()
	if d.started {
		d.mu.Unlock()
		return ErrStarted
	}
	d.started = true
	buildCtx, cancelBuilds := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelBuilds()
	d.loopCtx, d.buildCtx = ctx, buildCtx
	for _, name := range d.ix.Types() {
		if r, ok := d.runs[name]; ok {
			d.startLocked(r)
		}
	}
	n := len(d.runs)
	d.mu.Unlock()
	d.log.Info("daemon started", "objectTypes", n)

	<-ctx.Done()
	d.mu.Lock()
	d.stopping = true
	d.mu.Unlock()
	done := make(chan struct{})
	go func() {
		d.wg.Wait()
		close(done)
	}()
	if d.grace > 0 {
		t := time.NewTimer(d.grace)
		select {
		case <-done:
		case <-t.C:
			d.log.Info("stop grace over, abandoning running builds")
		}
		t.Stop()
	}
	cancelBuilds()
	<-done
	d.log.Info("daemon stopped")
	return nil
}

// startLocked starts the loop of r, unless Run has not started or is
// stopping. The caller holds d.mu.
func (d *Daemon) startLocked(r *typeRun) {
	if !d.started || d.stopping || r.done != nil {
		return
	}
	loopCtx, cancelLoop := context.WithCancel(d.loopCtx)
	buildCtx, cancelBuild := context.WithCancel(d.buildCtx)
	done := make(chan struct{})
	r.stop = func() { cancelLoop(); cancelBuild() }
	r.done = done
	r.sched.dirty = true
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		defer close(done)
		defer cancelBuild()
		defer cancelLoop()
		d.loop(loopCtx, buildCtx, r)
	}()
}

// stopLoops stops the loops of the named types (cancelling their builds)
// and waits until they have returned.
func (d *Daemon) stopLoops(names []string) {
	var waits []chan struct{}
	d.mu.Lock()
	for _, name := range names {
		if r := d.runs[name]; r != nil && r.done != nil {
			r.stop()
			waits = append(waits, r.done)
			r.stop, r.done = nil, nil
		}
	}
	d.mu.Unlock()
	for _, w := range waits {
		<-w
	}
}

func poke(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// loop is the scheduling loop of one object type.
func (d *Daemon) loop(ctx, buildCtx context.Context, r *typeRun) {
	// The first step builds (r.sched.dirty), and every build first applies
	// search-index updates an interrupted build left pending.
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-r.wake:
		}
		if ctx.Err() != nil {
			return
		}
		t.Reset(d.step(ctx, buildCtx, r))
	}
}

// step polls the table, builds when the schedule says so, and returns how
// long to wait before the next step.
func (d *Daemon) step(ctx, buildCtx context.Context, r *typeRun) time.Duration {
	spec, err := d.ix.Spec(r.name)
	if err != nil {
		return time.Hour // removed by a reload that is stopping this loop
	}
	dc := d.ix.Config().Daemon.WithDefaults()
	interval := jittered(dc.TypePollInterval(spec), dc.Jitter, d.rand())

	start := d.now()
	p, err := d.poll(ctx, r.name)
	now := d.now()
	interval = sincePoll(interval, start, now)
	if err != nil {
		if ctx.Err() != nil {
			return 0
		}
		d.m.pollError(r.name)
		d.mu.Lock()
		r.sched.failed(now, d.backoff(dc, r.sched.failures+1), false)
		r.lastErr = indexer.NewErrorInfo(err, now.UTC())
		wait := r.sched.wait(now, interval)
		d.changedLocked()
		d.mu.Unlock()
		// The status (lastError, state failing), the metrics and the
		// events of `indexer serve` report it, once per change rather
		// than at every retry: a warning here too repeated each of them.
		d.log.Debug("poll failed", "objectType", r.name, "error", err, "retryIn", wait)
		return wait
	}
	d.mu.Lock()
	r.poll, r.polled = p, true
	d.changedLocked()
	cp, _ := d.ix.Checkpoint(r.name) // nil for a type removed meanwhile
	dec := r.sched.decide(now, p.snapshotID, cp)
	if !dec.build {
		wait := r.sched.wait(now, interval)
		d.mu.Unlock()
		return wait
	}
	d.mu.Unlock()

	if err := d.limit.acquire(ctx); err != nil {
		return 0
	}
	d.mu.Lock()
	full := r.sched.start(dec)
	d.changedLocked()
	d.mu.Unlock()
	d.log.Debug("build", "objectType", r.name, "full", full, "why", dec.why)
	res, err := d.ix.Build(buildCtx, r.name, indexer.BuildOptions{Full: full, Polled: p.table})
	d.limit.release()
	d.m.build(res)

	now = d.now()
	d.mu.Lock()
	defer d.mu.Unlock()
	defer d.changedLocked() // runs before the unlock, whichever way the build ended
	switch {
	case err == nil:
		r.sched.succeeded()
		r.lastErr = nil
		if res.Kind != indexer.KindNone {
			r.lastBuild = res
			r.recordBuild(res, p.oldest, now)
		}
	case buildCtx.Err() != nil:
		r.sched.interrupted(full)
		return 0
	case res.Error.Code == indexer.CodeMergeOnRead:
		r.sched.refused(res.ToSnapshotID, full)
		r.lastErr = failedAt(res.Error, now)
		r.recordBuild(res, p.oldest, now)
	default:
		r.sched.failed(now, d.backoff(dc, r.sched.failures+1), full)
		r.lastErr = failedAt(res.Error, now)
		r.recordBuild(res, p.oldest, now)
	}
	// Poll again at once: to see commits made during the build, and to
	// refresh the lag; the schedule decides whether that builds.
	return 0
}

func (d *Daemon) backoff(dc config.Daemon, n int) time.Duration {
	return jittered(backoff(dc.RetryBackoff, dc.MaxRetryBackoff, n), dc.Jitter, d.rand())
}

// poll loads the table of an object type and measures how far the
// checkpoint lags behind its current snapshot.
func (d *Daemon) poll(ctx context.Context, name string) (pollResult, error) {
	polled, err := d.ix.Poll(ctx, name)
	if err != nil {
		return pollResult{}, err
	}
	tbl := polled.Table()
	cp, err := d.ix.Checkpoint(name)
	if err != nil {
		return pollResult{}, err
	}
	md := tbl.Metadata()
	p := pollResult{at: d.now(), table: polled}
	if s := md.CurrentSnapshot(); s != nil {
		p.snapshotID = s.SnapshotID
	}
	if cp != nil {
		p.checkpoint = cp.SnapshotID
	}
	p.lagSnapshots, p.oldest = lag(md, p.checkpoint)
	return p, nil
}
