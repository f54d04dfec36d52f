package api

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ontoindex/ontoindex/api/serverconfig"
	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/indexer"
)

// The hub of the subscriptions: it takes every commit the engine serves
// (Engine.Watch), works out once per distinct subscribed set which objects
// entered, changed in or left it (stream_changes.go), and queues one
// message per subscription on its connection (stream_conn.go). It runs on
// a goroutine of its own, owned by Serve, so that a build never waits for
// subscribers.

// maxPendingCommits bounds the commits the hub holds while it is behind
// the builds. Past it the pending commits of each type collapse into one
// refresh: the subscribers reload instead of the hub holding snapshots
// without bound.
const maxPendingCommits = 1024

// pendingCommit is a commit waiting for the hub, or (reason set) a refresh
// of every subscription of its type.
type pendingCommit struct {
	indexer.Commit
	reason string
}

// streamHub holds the subscription connections and feeds them commits.
type streamHub struct {
	s   *Server
	cfg serverconfig.Subscriptions
	m   *streamMetrics

	mu      sync.Mutex
	running bool
	conns   map[*streamConn]struct{}
	total   int // subscriptions over all connections
	pending []pendingCommit
	wake    chan struct{} // cap 1: commits are pending
	connWG  sync.WaitGroup
	seq     atomic.Uint64 // numbers subscriptions in their order of creation
}

func newStreamHub(s *Server, cfg serverconfig.Subscriptions, m *streamMetrics) *streamHub {
	return &streamHub{s: s, cfg: cfg, m: m, conns: map[*streamConn]struct{}{}, wake: make(chan struct{}, 1)}
}

// start registers the hub with the engine and runs it on a goroutine of
// its own until ctx ends; then it closes every connection. wait waits for
// all of it.
func (h *streamHub) start(ctx context.Context) (wait func()) {
	stop := h.s.engine.Watch(h.enqueue)
	h.mu.Lock()
	h.running = true
	h.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer h.stop(stop)
		h.run(ctx)
	}()
	return func() { <-done }
}

// stop unregisters the hub and closes the connections.
func (h *streamHub) stop(unwatch func()) {
	unwatch()
	h.mu.Lock()
	h.running = false
	conns := make([]*streamConn, 0, len(h.conns))
	for c := range h.conns {
		conns = append(conns, c)
	}
	h.pending = nil
	h.mu.Unlock()
	// In parallel: a close handshake waits for its client.
	var closing sync.WaitGroup
	for _, c := range conns {
		closing.Go(c.shutdown)
	}
	closing.Wait()
	h.connWG.Wait()
}

// run feeds pending commits to the connections until ctx ends.
func (h *streamHub) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.wake:
		}
		h.mu.Lock()
		batch := h.pending
		h.pending = nil
		h.mu.Unlock()
		for _, pc := range batch {
			if ctx.Err() != nil {
				return
			}
			h.process(ctx, pc)
		}
	}
}

// enqueue is the engine's watcher: it must not block the build.
func (h *streamHub) enqueue(c indexer.Commit) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.running || len(h.conns) == 0 {
		return // nobody listens: nothing to hold
	}
	if len(h.pending) >= maxPendingCommits {
		h.pending = collapse(h.pending)
	}
	h.pending = append(h.pending, pendingCommit{Commit: c})
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// collapse replaces pending commits by one refresh per object type.
func collapse(pending []pendingCommit) []pendingCommit {
	seen := map[string]bool{}
	var out []pendingCommit
	for _, pc := range pending {
		if seen[pc.ObjectType] {
			continue
		}
		seen[pc.ObjectType] = true
		out = append(out, pendingCommit{Commit: indexer.Commit{ObjectType: pc.ObjectType, Kind: indexer.CommitReplaced, At: pc.At}, reason: refreshFeedGap})
	}
	return out
}

// add registers a connection; false when the server is shutting down or
// at server.subscriptions.maxConnections.
func (h *streamHub) add(c *streamConn) (ok, full bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.running {
		return false, false
	}
	if len(h.conns) >= h.cfg.MaxConnections {
		return false, true
	}
	h.conns[c] = struct{}{}
	h.connWG.Add(1)
	h.m.connections.Inc()
	return true, false
}

// remove unregisters a connection and its subscriptions.
func (h *streamHub) remove(c *streamConn, subscriptions int) {
	h.mu.Lock()
	delete(h.conns, c)
	h.total -= subscriptions
	h.m.subscriptions.Set(float64(h.total))
	h.mu.Unlock()
	h.m.connections.Dec()
	h.connWG.Done()
}

// reserve takes n of the server's subscriptions (n may be negative to give
// them back); false when that would pass server.subscriptions.maxTotal.
func (h *streamHub) reserve(n int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if n > 0 && h.total+n > h.cfg.MaxTotal {
		return false
	}
	h.total += n
	h.m.subscriptions.Set(float64(h.total))
	return true
}

// connections lists the open connections.
func (h *streamHub) connections() []*streamConn {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]*streamConn, 0, len(h.conns))
	for c := range h.conns {
		out = append(out, c)
	}
	return out
}

// process hands one commit to every subscription of its type.
func (h *streamHub) process(ctx context.Context, pc pendingCommit) {
	var subs []*subscription
	for _, c := range h.connections() {
		subs = c.subscriptionsOf(pc.ObjectType, subs)
	}
	if len(subs) == 0 {
		return
	}
	// In their order of creation: a connection gets the messages of one
	// build in the order of its subscriptions.
	slices.SortFunc(subs, func(a, b *subscription) int { return cmp.Compare(a.seq, b.seq) })
	switch {
	case pc.Kind == indexer.CommitRemoved:
		cause := wire.Err(wire.NameObjectTypeNotFound, map[string]any{"objectType": pc.ObjectType, "reason": "the object type was removed from the config"})
		for _, sub := range subs {
			sub.conn.close(sub, cause)
		}
	case pc.Kind == indexer.CommitReplaced:
		reason := pc.reason
		if reason == "" {
			reason = refreshReplaced
		}
		for _, sub := range subs {
			sub.conn.refresh(sub, reason)
		}
	default:
		h.deliver(ctx, pc.Commit, subs)
	}
}

// deliver evaluates an incremental commit once per distinct subscribed set
// and queues the message of each subscription.
func (h *streamHub) deliver(ctx context.Context, c indexer.Commit, subs []*subscription) {
	groups := map[string][]*subscription{}
	var order []string
	for _, sub := range subs {
		if _, ok := groups[sub.identity]; !ok {
			order = append(order, sub.identity)
		}
		groups[sub.identity] = append(groups[sub.identity], sub)
	}
	changes := newChangeSet(c)
	for _, identity := range order {
		g := groups[identity]
		updates, err := h.s.changesOf(ctx, c, changes, g[0])
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			h.s.log.Warn("subscription: evaluate a build", "objectType", c.ObjectType, "error", err)
			cause := toAPIError(ctx, err)
			for _, sub := range g {
				sub.conn.close(sub, cause)
			}
			continue
		}
		if len(updates) == 0 {
			continue
		}
		if len(updates) > h.cfg.MaxMessageBytes {
			for _, sub := range g {
				sub.conn.refresh(sub, refreshTooLarge)
			}
			continue
		}
		for _, sub := range g {
			// Each message is its own slice: the writer holds it until written.
			msg := wire.AppendObjectSetChanged(make([]byte, 0, len(updates)+96), sub.id, updates)
			sub.conn.queueChange(sub, msg, c.At)
		}
	}
}

// pushLatency observes the time from a commit being served to its message
// being written.
func (h *streamHub) pushLatency(at time.Time) {
	if !at.IsZero() {
		h.m.push.Observe(time.Since(at).Seconds())
	}
}
