package api

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/indexer/query"
	"golang.org/x/sync/semaphore"
)

// The memory of derived evaluations in flight. An evaluation holds its
// set's objects, and those of each chain of links it follows, in memory
// at once (derived_eval.go): without a bound, 50 clients asking for the
// top customers by the sum of their orders, over 10M customers and 10M
// orders, took the server to 22 GB and into swap. So an evaluation is
// weighed, before it reads, by the objects it may read: the objects of
// its set's type (a filter keeps fewer: the weight does not count them
// first), and for each chain of links its selections follow, the objects
// each hop may reach: its target type's (and its join table's), or, for
// a link whose source holds the target's key, at most one per object of
// the level before. The evaluations in flight take their weights from
// server.maxDerivedObjects, a weighted semaphore (first come, first
// served, so a heavy request is not passed over forever), and give them
// back when their response starts: a response is rendered into memory
// before it starts (admit.go), and the objects are garbage then. A
// request waits at most until its deadline, or until its client leaves,
// without its admission slot (admit.go's rejoin), and only for its first
// set: a second set of the same request takes its weight if it is free
// and runs without it otherwise (acquireMore).
//
// A request heavier than the whole budget takes all of it and runs
// alone, rather than being refused: its weight is a bound that a
// filtered set or a sparse link never reaches, and refusing it would make
// derived properties unusable on any type larger than the budget, however
// idle the server; alone, it costs what one evaluation always cost.

// derivedBudget is the semaphore of server.maxDerivedObjects.
type derivedBudget struct {
	sem  *semaphore.Weighted
	size int64
	// held is the weight in flight; peak the most it has been (tests
	// read it).
	held, peak atomic.Int64
}

// newDerivedBudget is a budget of size objects; nil (no bound) when size
// is not positive.
func newDerivedBudget(size int64) *derivedBudget {
	if size <= 0 {
		return nil
	}
	return &derivedBudget{sem: semaphore.NewWeighted(size), size: size}
}

// acquire takes weight objects of the budget (all of it, when weight is
// more), waiting for them at most as long as ctx lives, and returns the
// function that gives them back (once; later calls do nothing).
func (b *derivedBudget) acquire(ctx context.Context, weight int64, waited func()) (release func(), err error) {
	if b == nil {
		return func() {}, nil
	}
	w := min(max(weight, 1), b.size)
	if !b.sem.TryAcquire(w) {
		waited()
		if err := b.sem.Acquire(ctx, w); err != nil {
			return nil, fmt.Errorf("wait for %d objects of server.maxDerivedObjects: %w", w, err)
		}
	}
	return b.took(w), nil
}

// acquireMore is acquire for a request that already holds weight (a
// second set with derived properties): it takes weight only when it is
// free, and never waits, since waiting while holding would wait on
// itself when the two weights pass the budget, or on another request that
// holds some and waits for the rest. The release it returns gives back
// what it took (nothing, when it took nothing).
func (b *derivedBudget) acquireMore(weight int64) (release func()) {
	if b == nil {
		return func() {}
	}
	w := min(max(weight, 1), b.size)
	if !b.sem.TryAcquire(w) {
		return func() {}
	}
	return b.took(w)
}

// took records w taken from the semaphore and returns its release.
func (b *derivedBudget) took(w int64) func() {
	now := b.held.Add(w)
	for p := b.peak.Load(); now > p && !b.peak.CompareAndSwap(p, now); p = b.peak.Load() {
	}
	var done atomic.Bool
	return func() {
		if done.CompareAndSwap(false, true) {
			b.held.Add(-w)
			b.sem.Release(w)
		}
	}
}

// claimDerived takes the weight of an evaluation of der over the objects
// of typ that f matches, and gives it back when the request's response
// starts (statusWriter), or when the request ends without one (observe);
// outside a request's middleware (tests of the evaluation), when the
// caller calls the returned function.
func (d *setDecoder) claimDerived(ctx context.Context, typ string, f *query.Filter, der *wire.Derived) (func(), error) {
	s := d.s
	if s.derived == nil {
		return func() {}, nil
	}
	weight, err := d.derivedWeight(typ, f, der)
	if err != nil {
		return nil, err
	}
	info := requestInfoFrom(ctx)
	if info != nil && len(info.derived) > 0 {
		info.holdDerived(s.derived.acquireMore(weight))
		return func() {}, nil
	}
	left := false
	release, err := s.derived.acquire(ctx, weight, func() {
		s.hm.derivedQueued.Inc()
		if info != nil && info.slot != nil {
			info.leave() // while it waits: see rejoin
			left = true
		}
	})
	if err != nil {
		return nil, err
	}
	if left {
		if err := s.rejoin(ctx, info); err != nil {
			release()
			return nil, fmt.Errorf("wait for a slot of server.maxConcurrentRequests: %w", err)
		}
	}
	if info != nil {
		info.holdDerived(release)
		return func() {}, nil
	}
	return release, nil
}

// derivedWeight is the most objects an evaluation of der reads: the
// objects of typ, and those of each chain of links, counted once per
// chain as the evaluation follows it once (evalSelection).
func (d *setDecoder) derivedWeight(typ string, f *query.Filter, der *wire.Derived) (int64, error) {
	v := d.views[typ]
	if v == nil {
		return 0, fmt.Errorf("derived properties of %s: no view", typ)
	}
	weight := v.Count()
	if f != nil && f.Op == query.OpNone {
		weight = 0
	}
	source := weight
	chains := map[string]bool{}
	var walk func(def *wire.DerivedDef) error
	walk = func(def *wire.DerivedDef) error {
		for _, k := range def.Kids {
			if err := walk(k); err != nil {
				return err
			}
		}
		chain, reach := "", source
		for _, h := range def.Hops {
			l, _, tv, err := d.resolveLink(h.From, h.Link)
			if err != nil {
				return err
			}
			chain += fmt.Sprintf("%s.%s[%v];", h.From, h.Link, h.Filter)
			step := tv.Count()
			switch {
			case l.Table != "":
				step += d.views[l.Table].Count()
			case !l.Many: // the source holds the target's key: one each at most
				step = min(step, reach)
			}
			reach = step
			if !chains[chain] {
				chains[chain] = true
				weight += step
			}
		}
		return nil
	}
	for _, def := range der.Props {
		if err := walk(def); err != nil {
			return 0, err
		}
	}
	return weight, nil
}

// holdDerived keeps the release of an evaluation's weight until the
// response starts; a request may evaluate several sets.
func (info *requestInfo) holdDerived(release func()) {
	info.derived = append(info.derived, release)
}

// dropDerived gives back the weights the request holds.
func (info *requestInfo) dropDerived() {
	for _, release := range info.derived {
		release()
	}
	info.derived = nil
}
