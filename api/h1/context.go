package h1

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// requestCtx is a request's context: its connection's, until the handler
// returns, and then ended. It makes the cancelable context that ends it
// only when something asks for Done: a context.WithCancel per request
// registers with the connection's context under a lock, a measurable
// share of a small request, and most requests never wait on Done.
type requestCtx struct {
	parent context.Context // the connection's
	mu     sync.Mutex
	ctx    atomic.Pointer[context.Context] // set once, under mu
	cancel context.CancelFunc
	ended  bool // the handler returned; under mu
}

func (c *requestCtx) start() context.Context {
	if p := c.ctx.Load(); p != nil {
		return *p
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.ctx.Load(); p != nil {
		return *p
	}
	ctx, cancel := context.WithCancel(c.parent)
	if c.ended {
		cancel()
	}
	c.cancel = cancel
	c.ctx.Store(&ctx)
	return ctx
}

// end ends the context: the handler returned.
func (c *requestCtx) end() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ended = true
	if c.cancel != nil {
		c.cancel()
	}
}

func (c *requestCtx) Deadline() (time.Time, bool) { return c.parent.Deadline() }

func (c *requestCtx) Done() <-chan struct{} { return c.start().Done() }

func (c *requestCtx) Err() error {
	if p := c.ctx.Load(); p != nil {
		return (*p).Err()
	}
	if err := c.parent.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	ended := c.ended
	c.mu.Unlock()
	if ended {
		return c.start().Err()
	}
	return nil
}

func (c *requestCtx) Value(key any) any { return c.parent.Value(key) }
