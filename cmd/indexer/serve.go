package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ontoindex/ontoindex/api"
	"github.com/ontoindex/ontoindex/api/serverconfig"
	"github.com/ontoindex/ontoindex/console"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/indexer/daemon"
	"github.com/ontoindex/ontoindex/internal/cli"
	"github.com/ontoindex/ontoindex/internal/memorylimit"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Shutdown: on the first SIGINT or SIGTERM, scheduling stops, running
// builds get the stop grace to finish and are then abandoned (safely: an
// incremental build leaves its checkpoint, a full build resumes from its
// last chunk), HTTP requests drain for server.shutdownTimeout, and the
// stores are closed. Whatever is still running after shutdownBudget is
// left to the exit. A second signal exits at once (main.go).
const (
	defaultStopGrace = 10 * time.Second
	shutdownBudget   = 30 * time.Second
)

func runServe(ctx context.Context, env *Env, args []string) int {
	fs := newFlags(env, "serve", "--config F [--listen ADDR] [--build] [--stop-grace D] [--daemon=false] [--cpuprofile FILE] [--memprofile FILE]\n\n"+
		"Serves the Ontology API and the ops endpoints, and runs the daemon that builds every object\n"+
		"type whenever its table has a new snapshot. SIGHUP reloads the config file; SIGINT or\n"+
		"SIGTERM shut down gracefully (a second signal exits at once).")
	cfgPath := fs.String("config", "", "config file")
	listen := fs.String("listen", "", "address to listen on (host:port; overrides server.listen)")
	build := fs.Bool("build", false, "build every object type once before listening (the daemon builds anyway; this makes the server start with fresh data)")
	grace := fs.Duration("stop-grace", defaultStopGrace, "on shutdown, how long running builds may go on before they are abandoned (safely)")
	daemon := fs.Bool("daemon", true, "run the daemon; with --daemon=false the index is served as it is (nothing builds, rebuild and reload answer 409)")
	prof := profilingFlags(fs)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	stopProfiles, err := prof.start()
	if err != nil {
		fmt.Fprintf(env.Stderr, "indexer serve: %v\n", err)
		return exitFailed
	}
	defer stopProfiles()
	if *grace < 0 {
		fmt.Fprintln(env.Stderr, "indexer serve: --stop-grace must not be negative")
		return exitUsage
	}
	return serve(ctx, env, serveOptions{ConfigPath: *cfgPath, Listen: *listen, Build: *build, StopGrace: *grace, NoDaemon: !*daemon})
}

// serveOptions configure serve.
type serveOptions struct {
	ConfigPath string
	Listen     string // overrides server.listen
	Build      bool
	StopGrace  time.Duration
	NoDaemon   bool // serve the index as it is
	// Events receives what the daemon does (default env.Stderr): readiness,
	// blocked and failing object types, recoveries; with Verbose every
	// build too.
	Events  io.Writer
	Verbose bool
	// Log replaces the logger of $INDEXER_LOG.
	Log *slog.Logger
	// Started, when set, runs in a goroutine once the server listens; serve
	// cancels its context when shutdown starts and waits for it.
	Started func(ctx context.Context, s *serving)
}

// serving is a running server, as serveOptions.Started sees it.
type serving struct {
	BaseURL string
	Config  *config.Config
	Daemon  *daemon.Daemon // nil with NoDaemon
	Index   *indexer.Indexer
}

// serve runs the daemon and the HTTP server until ctx is done, then shuts
// down gracefully.
func serve(ctx context.Context, env *Env, o serveOptions) int {
	// SIGHUP reloads the config file. Registered first, so that a SIGHUP
	// while serve starts (a supervisor's reload) waits for the server
	// instead of killing the process, Go's default for an unhandled one.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	cfg, code, ok := loadConfig(env, "serve", o.ConfigPath)
	if !ok {
		return code
	}
	cfgPath, err := filepath.Abs(o.ConfigPath)
	if err != nil {
		fmt.Fprintf(env.Stderr, "indexer serve: %v\n", err)
		return exitUsage
	}
	addr := cfg.Server.Listen
	if o.Listen != "" {
		addr = o.Listen
	}
	if len(cfg.Auth.Tokens) == 0 && !serverconfig.LoopbackAddr(addr) {
		fmt.Fprintf(env.Stderr, "indexer serve: refusing to listen on %s: no auth.tokens are configured, and anonymous access is only allowed on a loopback address (127.0.0.1, ::1, localhost); configure auth.tokens to serve on other addresses\n", addr)
		return exitUsage
	}
	log := o.Log
	if log == nil {
		log = cli.Logger(env)
	}
	opts := indexer.Options{Logger: log}
	if ceiling := setMemoryLimit(cfg, log); ceiling > 0 {
		// A served index stays near its live heap under steady edits and
		// requests, not twice it; full builds may use the ceiling.
		f := memorylimit.Follow(ceiling)
		defer f.Stop()
		opts.HoldMemory = f.Hold
	}
	events := o.Events
	if events == nil {
		events = env.Stderr
	}
	prog := &lineProgress{w: events, last: map[string]time.Time{}}
	opts.Progress = prog.report
	ix, err := indexer.Open(ctx, cfg, opts)
	if err != nil {
		fmt.Fprintf(env.Stderr, "indexer serve: %v\n", err)
		return exitFailed
	}
	closed := false
	closeIndex := func() {
		if !closed {
			closed = true
			if err := ix.Close(); err != nil {
				fmt.Fprintf(env.Stderr, "indexer serve: close: %v\n", err)
			}
		}
	}
	defer closeIndex()
	if o.Build {
		for _, r := range ix.BuildAll(ctx, indexer.BuildOptions{}) {
			if r.Error != nil {
				fmt.Fprintf(env.Stderr, "indexer serve: build %s: %s\n", r.ObjectType, r.Error.Message)
				if r.Error.Code == indexer.CodeCanceled {
					return exitAborted
				}
			}
		}
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	var d *daemon.Daemon
	apiOpts := api.Options{Logger: log, Registry: reg, ConfigPath: cfgPath, Console: console.Handler()}
	if !o.NoDaemon {
		d, err = daemon.New(ix, daemon.Options{Logger: log, Registerer: reg, StopGrace: o.StopGrace})
		if err != nil {
			fmt.Fprintf(env.Stderr, "indexer serve: %v\n", err)
			return exitFailed
		}
		apiOpts.Daemon = d
	}
	srv, err := api.New(ix, apiOpts)
	if err != nil {
		fmt.Fprintf(env.Stderr, "indexer serve: %v\n", err)
		return exitUsage
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		fmt.Fprintf(env.Stderr, "indexer serve: %v\n", err)
		if errors.Is(err, syscall.EADDRINUSE) {
			fmt.Fprintln(env.Stderr, "indexer serve: another process listens there; pass --listen with another address, such as 127.0.0.1:0 for any free port")
		}
		return exitFailed
	}
	base := "http://" + ln.Addr().String()
	if srv.TLS() {
		base = "https://" + ln.Addr().String()
	}
	fmt.Fprintf(env.Stderr, "indexer serve: listening on %s\n", base)

	// Every goroutine below stops when ctx is done; the first to fail
	// cancels the others.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var failed sync.Once
	exit := exitOK
	fail := func(what string, err error) {
		failed.Do(func() {
			fmt.Fprintf(env.Stderr, "indexer serve: %s: %v\n", what, err)
			exit = exitFailed
		})
		cancel()
	}
	if d != nil {
		wg.Go(func() {
			if err := d.Run(ctx); err != nil {
				fail("daemon", err)
			}
		})
		since := time.Now()
		// The poll interval of the config that runs, reloaded or not.
		poll := func(name string) time.Duration { return ix.Config().PollInterval(name) }
		wg.Go(func() { watchDaemon(ctx, events, d, poll, since, o.Verbose) })
	}
	wg.Go(func() {
		if err := srv.Serve(ctx, ln); err != nil {
			fail("http", err)
		}
	})
	wg.Go(func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				reload(ctx, env.Stderr, srv)
			}
		}
	})
	if o.Started != nil {
		wg.Go(func() { o.Started(ctx, &serving{BaseURL: base, Config: cfg, Daemon: d, Index: ix}) })
	}

	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	<-ctx.Done()
	fmt.Fprintln(env.Stderr, "indexer serve: shutting down: stopping builds, draining requests (a second signal exits at once)")
	t := time.NewTimer(shutdownBudget)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		// What still runs is left to the exit, which the store survives
		// as it survives a crash; closing it under a running build would not.
		closed = true
		fmt.Fprintf(env.Stderr, "indexer serve: shutdown did not finish within %s; exiting\n", shutdownBudget)
		return exitFailed
	}
	closeIndex()
	fmt.Fprintln(env.Stderr, "indexer serve: stopped")
	return exit
}

// reload reloads the config file after a SIGHUP.
func reload(ctx context.Context, w io.Writer, srv *api.Server) {
	res, err := srv.Reload(ctx)
	switch {
	case errors.Is(err, indexer.ErrInvalidConfig):
		fmt.Fprintf(w, "indexer serve: reload rejected, the old config keeps running: %v\n", err)
	case err != nil:
		fmt.Fprintf(w, "indexer serve: reload failed, the old config keeps running: %v\n", err)
	default:
		fmt.Fprintf(w, "indexer serve: config reloaded: added [%s], changed [%s], removed [%s]\n",
			strings.Join(res.Added, " "), strings.Join(res.Changed, " "), strings.Join(res.Removed, " "))
		if len(res.RestartNeeded) > 0 {
			fmt.Fprintf(w, "indexer serve: the %s section changed: it takes effect at the next restart\n", strings.Join(res.RestartNeeded, " and "))
		}
	}
}

// watchDaemon reports what the daemon does from since on: when every
// object type has a generation to serve, object types that become blocked
// or failing and recover, full builds (first builds, generation swaps);
// with verbose, every build. It reads the status again at each change the
// daemon notifies (Daemon.Changed): all it reports is among them. poll is
// the poll interval of a type.
func watchDaemon(ctx context.Context, w io.Writer, d *daemon.Daemon, poll func(name string) time.Duration, since time.Time, verbose bool) {
	prev := map[string]daemon.TypeStatus{}
	ready := false
	for {
		changed := d.Changed() // before the read, so that no change is lost
		rep := d.Report()
		for _, st := range rep.ObjectTypes {
			if st.State == daemon.StateBuilding {
				// Reported once it is over: the engine marks a build
				// running just after the daemon notifies its start, and
				// a status read then would hide a recovery from blocked
				// or failing.
				continue
			}
			p := prev[st.ObjectType]
			prev[st.ObjectType] = st
			reportChange(w, p, st, poll(st.ObjectType), since, verbose)
		}
		if rep.Ready && !ready {
			fmt.Fprintf(w, "indexer serve: ready: every object type has a generation to serve\n")
		}
		ready = rep.Ready
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
	}
}

// reportChange prints what changed between two statuses of a type: a
// build, a failure or refusal (what is wrong, what the daemon does about
// it, what searches answer meanwhile), a recovery. poll is the type's poll
// interval.
func reportChange(w io.Writer, prev, st daemon.TypeStatus, poll time.Duration, since time.Time, verbose bool) {
	now := time.Now()
	stamp := now.Format("15:04:05")
	lb := st.LastBuild
	// A build that moved the checkpoint is the only one to its snapshot in
	// its generation; its finish and duration change once the daemon's
	// own result replaces the one stored with the checkpoint.
	built := lb != nil && !lb.FinishedAt.Before(since) &&
		(prev.LastBuild == nil || lb.To != prev.LastBuild.To || lb.Generation != prev.LastBuild.Generation)
	if built && (verbose || lb.Kind == indexer.KindFull) {
		fmt.Fprintf(w, "%s indexed  %s: %s build to snapshot %d (generation %d): %s, %s, %s read, %d ms; %d objects\n",
			stamp, st.ObjectType, lb.Kind, lb.To, lb.Generation, plural(lb.Upserts, "upsert"), plural(lb.Deletes, "delete"),
			plural(lb.FilesRead, "file"), lb.DurationMs, st.Objects)
	}
	bad := st.State == daemon.StateBlocked || st.State == daemon.StateFailing
	wasBad := prev.State == daemon.StateBlocked || prev.State == daemon.StateFailing
	switch {
	case bad && (prev.State != st.State || !sameError(prev.LastError, st.LastError)):
		msg := ""
		if e := st.LastError; e != nil {
			msg = e.Message
			if e.TableMissing {
				msg = st.Problem() + " (" + msg + ")"
			}
		}
		if next := st.Next(poll, now); next != "" {
			msg += "; " + next
		}
		if st.Generation == 0 {
			msg += fmt.Sprintf("; until a first build, searches of %s answer 409 ObjectTypeNotSynced", st.ObjectType)
		} else {
			msg += fmt.Sprintf("; searches keep answering from snapshot %d", st.CheckpointSnapshotID)
		}
		fmt.Fprintf(w, "%s %-8s %s: %s\n", stamp, st.State, st.ObjectType, msg)
	case wasBad && st.State == daemon.StateIdle:
		fmt.Fprintf(w, "%s recovered %s: up to date at snapshot %d\n", stamp, st.ObjectType, st.CheckpointSnapshotID)
	}
}

func sameError(a, b *indexer.ErrorInfo) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Code == b.Code && a.Message == b.Message
}

// lineProgress prints the progress of long builds as lines (not \r
// updates: builds of several object types run at once, and the output may
// be a log): a build is reported once it runs for 2 s, then every 5 s.
type lineProgress struct {
	w    io.Writer
	mu   sync.Mutex
	last map[string]time.Time
}

func (p *lineProgress) report(ev indexer.Progress) {
	if ev.Elapsed < 2*time.Second {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if now.Sub(p.last[ev.ObjectType]) < 5*time.Second {
		return
	}
	p.last[ev.ObjectType] = now
	pct := ""
	if ev.TotalRows > 0 {
		pct = fmt.Sprintf(" (%d%%)", min(100, ev.Rows*100/ev.TotalRows))
	}
	fmt.Fprintf(p.w, "%s building %s: %s build, %d of %d rows%s, %.0f rows/s\n", now.Format("15:04:05"), ev.ObjectType,
		ev.Kind, ev.Rows, ev.TotalRows, pct, float64(ev.Rows)/ev.Elapsed.Seconds())
}
