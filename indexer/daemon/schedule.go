package daemon

import (
	"math"
	"time"

	"github.com/ontoindex/ontoindex/indexer"
)

// schedule is the decision state of one object type's loop: what the
// daemon does at the next poll. It is plain data; the daemon guards it.
type schedule struct {
	// failures counts consecutive failed builds and polls.
	failures int
	// retryAt: no build before this time after a failure.
	retryAt time.Time
	// blocked is set when a build was refused as merge-on-read; the type
	// then waits for the table's current snapshot to move off blockedAt.
	blocked   bool
	blockedAt int64
	// rebuild: the next build is full (an operator asked for it, and no
	// full build has succeeded since).
	rebuild bool
	// urgent: build at the next poll even while backing off (set by an
	// operator request, cleared when a build starts).
	urgent bool
	// dirty: build at the next poll even when the snapshot did not move
	// (the loop just started, or the type's config changed).
	dirty bool
}

// decision is what a poll leads to.
type decision struct {
	build bool
	full  bool
	// why names the reason, for logs.
	why string
}

// decide is called with the table's current snapshot (0 when the table
// has none) and the checkpoint (nil when never built).
func (s *schedule) decide(now time.Time, current int64, cp *indexer.Checkpoint) decision {
	switch {
	case s.blocked && current == s.blockedAt:
		return decision{why: "waiting for the table to change (merge-on-read)"}
	case s.failures > 0 && now.Before(s.retryAt) && !s.urgent:
		return decision{why: "backing off after a failure"}
	case s.rebuild:
		return decision{build: true, full: true, why: "rebuild requested"}
	case s.blocked:
		return decision{build: true, why: "table changed after a merge-on-read refusal"}
	case s.failures > 0:
		return decision{build: true, why: "retry"}
	case s.dirty:
		return decision{build: true, why: "start or config change"}
	case cp == nil:
		return decision{build: true, why: "never built"}
	case current != cp.SnapshotID:
		return decision{build: true, why: "new snapshot"}
	}
	return decision{why: "up to date"}
}

// wait is how long the loop sleeps after a poll: the poll interval, or
// less when a retry is due sooner.
func (s *schedule) wait(now time.Time, interval time.Duration) time.Duration {
	if s.failures > 0 && !s.blocked {
		if d := s.retryAt.Sub(now); d < interval {
			return max(d, 0)
		}
	}
	return interval
}

// requestRebuild records an operator's request for a full build.
func (s *schedule) requestRebuild() { s.rebuild, s.urgent = true, true }

// start records that a build starts and reports whether it is full.
func (s *schedule) start(d decision) (full bool) {
	full = d.full || s.rebuild
	s.rebuild, s.urgent = false, false
	return full
}

// succeeded records a successful build.
func (s *schedule) succeeded() {
	s.failures, s.retryAt = 0, time.Time{}
	s.blocked, s.blockedAt = false, 0
	s.dirty = false
}

// refused records a merge-on-read refusal of snapshot id: no retry until
// the table moves on. A refused full build stays requested.
func (s *schedule) refused(id int64, full bool) {
	s.blocked, s.blockedAt = true, id
	s.failures, s.retryAt = 0, time.Time{}
	s.rebuild = s.rebuild || full
}

// failed records a failed build or poll: the next retry waits for backoff.
// A failed full build stays requested.
func (s *schedule) failed(now time.Time, backoff time.Duration, full bool) {
	s.failures++
	s.retryAt = now.Add(backoff)
	s.blocked, s.blockedAt = false, 0
	s.rebuild = s.rebuild || full
}

// interrupted records a build cancelled by a stop or a reload: it is
// neither a success nor a failure, and is done again.
func (s *schedule) interrupted(full bool) {
	s.rebuild = s.rebuild || full
	s.dirty = true
}

// backoff is the wait before retry n (n >= 1): base doubled per failure,
// capped at max.
func backoff(base, limit time.Duration, n int) time.Duration {
	if n < 1 || base <= 0 {
		return 0
	}
	if n > 62 || float64(base)*math.Exp2(float64(n-1)) >= float64(limit) {
		return limit
	}
	return base << (n - 1)
}

// jittered shortens d by up to frac of it; r is uniform in [0, 1). Only
// shortened, so that a poll interval bounds how long a commit waits for
// the poll that sees it, while the loops of many types still spread out.
func jittered(d time.Duration, frac, r float64) time.Duration {
	if frac <= 0 || d <= 0 {
		return d
	}
	return time.Duration(float64(d) * (1 - frac*r))
}

// sincePoll is what is left of a wait of d counted from a poll that
// started at start: the table's metadata read and a build count against
// the interval, rather than being added to it.
func sincePoll(d time.Duration, start, now time.Time) time.Duration {
	return max(d-now.Sub(start), 0)
}
