package api

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/indexer/query"
)

// One subscription websocket: the handler's goroutine reads the client's
// subscribe messages; a writer goroutine, owned by the handler, writes the
// queued messages in order and pings. The queue is a slice under the
// connection's lock, so that a subscribe response and the changes of the
// subscriptions it installs are queued in the order they happen; change
// messages beyond server.subscriptions.queueLength are dropped and their
// subscriptions marked behind, and the writer queues a refreshObjectSet
// for each once it takes the queue: a slow consumer reloads, it never
// silently misses a change.

// subscription is one live subscription of a connection.
type subscription struct {
	conn     *streamConn
	id       string
	seq      uint64 // the order of its creation on the server
	identity string // wire.SubscribeRequest.Identity
	typ      string // the object type; "" for an empty set, which never matches a commit
	filter   *query.Filter
	sel      selection
	loadRids bool
	behind   string // guarded by conn.mu: the reason of a refresh the writer owes
}

// queued is a message waiting for the writer.
type queued struct {
	msg  []byte
	kind string    // the message type, for the metrics
	at   time.Time // when the commit it reports was served; zero for others
}

// streamConn is one subscription websocket.
type streamConn struct {
	hub *streamHub
	ws  *websocket.Conn // set under mu once upgraded: the hub may shut the connection before
	r   *http.Request   // the upgrade request: its context holds the principal

	cancel context.CancelFunc // ends the connection

	mu      sync.Mutex
	queue   []queued
	changes int                      // change and refresh messages in queue
	subs    map[string]*subscription // by identity
	byID    map[string]*subscription
	wake    chan struct{} // cap 1: the queue has messages
}

// signal wakes the writer. The caller holds c.mu.
func (c *streamConn) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// live reports whether sub is still one of the connection's. The caller
// holds c.mu.
func (c *streamConn) live(sub *subscription) bool { return c.byID[sub.id] == sub }

// subscriptionsOf appends the connection's subscriptions of an object type.
func (c *streamConn) subscriptionsOf(objectType string, out []*subscription) []*subscription {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, sub := range c.byID {
		if sub.typ == objectType {
			out = append(out, sub)
		}
	}
	return out
}

// queueChange queues a change message of sub, or marks sub behind when the
// queue is full.
func (c *streamConn) queueChange(sub *subscription, msg []byte, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.live(sub) || sub.behind != "" {
		return // a refresh is owed: it supersedes the change
	}
	if c.changes >= c.hub.cfg.QueueLength {
		sub.behind = refreshBehind
		c.hub.m.drops.Inc()
		return
	}
	c.queue = append(c.queue, queued{msg: msg, kind: "objectSetChanged", at: at})
	c.changes++
	c.signal()
}

// refresh queues a refreshObjectSet of sub.
func (c *streamConn) refresh(sub *subscription, reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.live(sub) {
		return
	}
	if c.changes >= c.hub.cfg.QueueLength {
		if sub.behind == "" {
			sub.behind = reason
		}
		return
	}
	c.hub.m.refreshes.WithLabelValues(reason).Inc()
	c.queue = append(c.queue, queued{msg: wire.AppendRefreshObjectSet(nil, sub.id, sub.typ), kind: "refreshObjectSet"})
	c.changes++
	c.signal()
}

// close ends sub with subscriptionClosed: its set can no longer be served.
func (c *streamConn) close(sub *subscription, cause *wire.Error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.live(sub) {
		return
	}
	delete(c.byID, sub.id)
	delete(c.subs, sub.identity)
	c.hub.reserve(-1)
	c.queue = append(c.queue, queued{msg: wire.AppendSubscriptionClosed(nil, sub.id, cause), kind: "subscriptionClosed"})
	c.signal()
}

// take empties the queue, adding the refreshes the connection owes to
// subscriptions that fell behind: after every change they missed.
func (c *streamConn) take() []queued {
	c.mu.Lock()
	defer c.mu.Unlock()
	batch := c.queue
	c.queue, c.changes = nil, 0
	for _, sub := range c.byID {
		if sub.behind != "" {
			c.hub.m.refreshes.WithLabelValues(sub.behind).Inc()
			batch = append(batch, queued{msg: wire.AppendRefreshObjectSet(nil, sub.id, sub.typ), kind: "refreshObjectSet"})
			sub.behind = ""
		}
	}
	return batch
}

// shutdown closes the connection as the server stops: with a close
// handshake when it is upgraded (the client reconnects to another server,
// or to this one once it is back), else at once.
func (c *streamConn) shutdown() {
	c.mu.Lock()
	ws := c.ws
	c.mu.Unlock()
	if ws != nil {
		_ = ws.Close(websocket.StatusGoingAway, "the server is shutting down")
	}
	c.cancel()
}

// write runs the writer: it writes queued messages in order, and pings
// every heartbeat. It returns when ctx ends or a write or ping fails, and
// then ends the connection.
func (c *streamConn) write(ctx context.Context) {
	defer c.cancel()
	cfg := c.hub.cfg
	ping := time.NewTicker(cfg.Heartbeat)
	defer ping.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ping.C:
			pctx, cancel := context.WithTimeout(ctx, cfg.Heartbeat)
			err := c.ws.Ping(pctx)
			cancel()
			if err != nil {
				_ = c.ws.Close(websocket.StatusPolicyViolation, "no pong within the heartbeat")
				return
			}
			continue
		case <-c.wake:
		}
		for batch := c.take(); len(batch) > 0; batch = c.take() {
			for _, q := range batch {
				wctx, cancel := context.WithTimeout(ctx, cfg.WriteTimeout)
				err := c.ws.Write(wctx, websocket.MessageText, q.msg)
				cancel()
				if err != nil {
					if errors.Is(err, context.DeadlineExceeded) {
						_ = c.ws.Close(websocket.StatusPolicyViolation, "the client does not read its messages")
					}
					return
				}
				c.hub.m.messages.WithLabelValues(q.kind).Inc()
				c.hub.pushLatency(q.at)
			}
		}
	}
}

// count is the number of the connection's subscriptions.
func (c *streamConn) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.byID)
}
