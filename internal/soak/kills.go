package soak

import (
	"context"
	"fmt"
	"time"

	"github.com/ontoindex/ontoindex/indexer/daemon"
)

// Moments of a kill.
const (
	killAnytime  = "at a random moment"
	killBuild    = "during a build"
	killRebuild  = "during a requested full rebuild"
	killStarting = "while starting"
	killReload   = "during a full build after a config reload"
	killStopping = "during a graceful stop"
)

var killModes = []string{killAnytime, killBuild, killRebuild, killStarting, killReload, killStopping}

// killPhase kills the server o.Kills times with SIGKILL while the writer
// commits, in turn at a random moment, as soon as the status says a build
// runs, at a random moment of a full rebuild into a new generation that it
// asked for (POST .../rebuild), while a new server starts (loading the
// index, before it listens or serves), and during the full build that a
// config reload bumping Item's semanticVersion forces (the writer paused,
// so that the restarted server resumes that build from its last chunk),
// and during a graceful stop (SIGTERM, then SIGKILL while the server
// drains and closes its stores, which saves the index files). After each kill it checks the
// data dir as the dead server left it (checkStore); after each restart it
// waits until the server has caught up with the tables (the writer
// paused) and compares what it serves with them (checkServed).
func (r *run) killPhase(ctx context.Context) error {
	k := &r.rep.Kills
	for round := 0; k.Killed < r.o.Kills; round++ {
		if err := r.wl.failed(); err != nil {
			return fmt.Errorf("writer: %w", err)
		}
		mode := killModes[round%len(killModes)]
		bad, killed := r.problems(), k.Killed
		before, err := r.c.status(ctx, itemType)
		if err != nil {
			return err
		}
		building, err := r.killAt(ctx, mode)
		if err != nil {
			return err
		}
		when := fmt.Sprintf("kill %d (%s)", k.Killed, mode)
		if building {
			k.DuringBuild++
			if mode == killRebuild || mode == killReload {
				k.DuringRebuild++
			}
		}
		if err := r.checkStore(ctx, when); err != nil {
			return err
		}
		if mode == killStarting && k.Killed < r.o.Kills {
			// Start a server and kill it before it is ready.
			s, err := r.spawn()
			if err != nil {
				return err
			}
			time.Sleep(time.Duration(r.rng.Int64N(int64(400 * time.Millisecond))))
			started := s.alive()
			s.kill()
			k.Killed++
			if !started {
				return fmt.Errorf("%s: the server exited by itself while starting:\n%s", when, s.tail())
			}
			k.DuringStart++
			if err := r.checkStore(ctx, when+", then while starting"); err != nil {
				return err
			}
		}
		start := time.Now()
		if err := r.startServer(ctx); err != nil {
			return fmt.Errorf("%s: restart: %w", when, err)
		}
		k.RestartMs = append(k.RestartMs, time.Since(start).Milliseconds())
		if err := r.wl.pause(); err != nil {
			return fmt.Errorf("writer: %w", err)
		}
		if mode == killReload {
			err = r.reloaded(ctx, before)
		}
		if err == nil {
			err = r.caughtUp(ctx)
		}
		if err == nil {
			err = r.checkServed(ctx, when)
		}
		r.wl.resume()
		if err != nil {
			return fmt.Errorf("%s: %w", when, err)
		}
		if r.problems() == bad {
			k.Survived += k.Killed - killed
		}
		during := ""
		if building {
			during = ", a build running"
		}
		r.logf("%s%s: data dir and served results checked", when, during)
	}
	return nil
}

// killAt kills the server at a moment of the mode; building says whether
// the status said a build was running just before.
func (r *run) killAt(ctx context.Context, mode string) (building bool, err error) {
	k := &r.rep.Kills
	switch mode {
	case killBuild:
		// The writer commits every o.Every; the server builds within its
		// poll interval. Watch the status closely and kill as soon as it
		// says a build runs.
		deadline := time.Now().Add(5 * r.o.Every)
		for !building && time.Now().Before(deadline) && ctx.Err() == nil {
			if building = r.building(ctx); !building {
				time.Sleep(2 * time.Millisecond)
			}
		}
		if building {
			time.Sleep(time.Duration(r.rng.Int64N(int64(10 * time.Millisecond))))
		}
	case killReload:
		if err := r.wl.pause(); err != nil {
			return false, fmt.Errorf("writer: %w", err)
		}
		r.semver++
		if err := r.writeConfig(); err != nil {
			return false, err
		}
		if err := r.c.reload(ctx); err != nil {
			return false, fmt.Errorf("kill %d: %w", k.Killed+1, err)
		}
		k.Reloads++
		building = r.killDuringFull(ctx)
	case killRebuild:
		if err := r.c.rebuild(ctx, itemType); err != nil {
			return false, fmt.Errorf("kill %d: %w", k.Killed+1, err)
		}
		k.Rebuilds++
		building = r.killDuringFull(ctx)
	case killStopping:
		time.Sleep(time.Duration(r.rng.Int64N(int64(r.o.Every))))
		building = r.building(ctx)
		if err := r.srv.terminate(); err != nil {
			return false, err
		}
		if r.stopWindow == 0 {
			r.stopWindow = 300 * time.Millisecond
		}
		wait := time.Duration(r.rng.Int64N(int64(r.stopWindow)))
		time.Sleep(wait)
		if !r.srv.alive() { // it stopped before the kill: within wait
			r.srv.kill()
			k.Stopped++
			r.stopWindow = max(min(r.stopWindow/2, wait), 100*time.Microsecond)
			return building, nil
		}
		k.DuringStop++
	default:
		time.Sleep(time.Duration(r.rng.Int64N(int64(2 * r.o.Every))))
		building = r.building(ctx)
	}
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	r.srv.kill()
	k.Killed++
	return building, nil
}

// killDuringFull waits until the daemon starts the full build it was
// asked for and then a random moment of its length (the first full build
// took FullBuildMs); it reports whether the build still runs.
func (r *run) killDuringFull(ctx context.Context) bool {
	deadline := time.Now().Add(5 * time.Second)
	for !r.building(ctx) && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(2 * time.Millisecond)
	}
	full := time.Duration(r.rep.FullBuildMs) * time.Millisecond
	time.Sleep(time.Duration(r.rng.Int64N(int64(full) + 1)))
	return r.building(ctx)
}

// reloaded waits, after a kill during the full build a reload forced,
// until the restarted server has built Item in full into a new generation
// (resuming the interrupted build when the kill left one) and counts the
// resumed builds: they read fewer rows than the table has.
func (r *run) reloaded(ctx context.Context, before daemon.TypeStatus) error {
	deadline := time.Now().Add(3 * time.Minute)
	for {
		st, err := r.c.status(ctx, itemType)
		if err != nil {
			return err
		}
		if st.Generation > before.Generation && st.State == "idle" {
			if lb := st.LastBuild; lb != nil && lb.Kind == "full" && lb.RowsRead < st.Objects {
				r.rep.Kills.Resumed++
			}
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no full build after semanticVersion %d: %s at generation %d", r.semver, st.State, st.Generation)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// building reports whether the status says a build of either type runs.
func (r *run) building(ctx context.Context) bool {
	for _, typ := range []string{itemType, groupType} {
		if st, err := r.c.status(ctx, typ); err == nil && st.State == "building" {
			return true
		}
	}
	return false
}

// problems counts what the checks found wrong so far.
func (r *run) problems() int {
	n := 0
	for _, t := range []tally{r.rep.Store, r.rep.Served} {
		n += t.Lost + t.Ghost + t.Differs + t.Wrong
	}
	return n
}
