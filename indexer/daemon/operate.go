package daemon

import (
	"context"
	"fmt"
	"slices"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
)

// Rebuild requests a full build of an object type into a new generation;
// the current generation keeps serving until the new one is swapped in.
// It returns at once; the build runs in the type's loop (after a build
// that is running now; for a type blocked by merge-on-read, once the table
// changes). Status shows its progress.
func (d *Daemon) Rebuild(name string) error {
	d.mu.Lock()
	r, ok := d.runs[name]
	if ok {
		r.sched.requestRebuild()
	}
	d.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w %q", indexer.ErrUnknownType, name)
	}
	poke(r.wake)
	return nil
}

// Refresh makes the loop of an object type poll its table now instead of
// at the next interval.
func (d *Daemon) Refresh(name string) error {
	d.mu.Lock()
	r, ok := d.runs[name]
	d.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w %q", indexer.ErrUnknownType, name)
	}
	poke(r.wake)
	return nil
}

// Reload applies a new config without a restart (see indexer.Reload): the
// config is checked first and, when bad, rejected with an error wrapping
// ErrInvalidConfig while everything goes on as before. Otherwise the loops
// of changed and removed object types are stopped (a running build of
// theirs is cancelled safely), the indexer switches to the new config, and
// loops start for changed and added types. The daemon section of the new
// config applies too.
func (d *Daemon) Reload(ctx context.Context, cfg *config.Config) (*indexer.ConfigChange, error) {
	d.reloadMu.Lock()
	defer d.reloadMu.Unlock()
	ch, err := d.ix.CheckReload(ctx, cfg)
	if err != nil {
		d.m.reload(err)
		return nil, err
	}
	affected := slices.Concat(ch.Changed, ch.Removed)
	d.stopLoops(affected)
	ch, err = d.ix.Reload(ctx, cfg)
	if err != nil {
		d.m.reload(err)
		d.mu.Lock()
		for _, name := range affected {
			if r := d.runs[name]; r != nil {
				d.startLocked(r)
			}
		}
		d.mu.Unlock()
		return nil, err
	}
	d.stopLoops(slices.Concat(ch.Changed, ch.Removed)) // no-op unless the change differs from the check
	d.mu.Lock()
	for _, name := range ch.Removed {
		delete(d.runs, name)
	}
	for _, name := range ch.Changed {
		r := d.runs[name]
		r.sched, r.lastErr = schedule{rebuild: r.sched.rebuild}, nil
		d.startLocked(r)
	}
	for _, name := range ch.Added {
		r := newRun(name)
		d.runs[name] = r
		d.startLocked(r)
	}
	d.limit.setMax(cfg.Daemon.WithDefaults().MaxConcurrentBuilds)
	d.changedLocked()
	var unchanged []*typeRun
	for _, name := range ch.Unchanged {
		unchanged = append(unchanged, d.runs[name])
	}
	d.mu.Unlock()
	for _, name := range ch.Removed {
		d.m.forget(name)
	}
	// Unchanged loops pick up new daemon settings at their next step.
	for _, r := range unchanged {
		poke(r.wake)
	}
	d.m.reload(nil)
	return ch, nil
}
