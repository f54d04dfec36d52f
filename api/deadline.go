package api

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// deadlineCtx is a request's context with server.requestTimeout: it ends
// at its deadline, or when its parent ends, like context.WithDeadlineCause
// with errRequestTimeout. It starts that context, and its timer, only when
// something waits on Done or asks once the deadline has passed: a get by
// key never does, and a timer per request is a measurable share of one.
// Err and Value answer from the parent until then.
type deadlineCtx struct {
	context.Context // the parent
	deadline        time.Time
	timed           atomic.Pointer[timedCtx] // set once, under mu
	mu              sync.Mutex
	released        atomic.Bool
}

type timedCtx struct {
	ctx    context.Context
	cancel context.CancelFunc
}

// withRequestDeadline returns the context of a request that ends after d,
// and the function that releases it.
func withRequestDeadline(parent context.Context, d time.Duration) (*deadlineCtx, func()) {
	c := &deadlineCtx{Context: parent, deadline: time.Now().Add(d)}
	return c, c.release
}

// start makes the deadline's context; after release it is made ended.
func (c *deadlineCtx) start() *timedCtx {
	if t := c.timed.Load(); t != nil {
		return t
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if t := c.timed.Load(); t != nil {
		return t
	}
	ctx, cancel := context.WithDeadlineCause(c.Context, c.deadline, errRequestTimeout)
	if c.released.Load() {
		cancel()
	}
	t := &timedCtx{ctx: ctx, cancel: cancel}
	c.timed.Store(t)
	return t
}

func (c *deadlineCtx) Deadline() (time.Time, bool) { return c.deadline, true }

func (c *deadlineCtx) Done() <-chan struct{} { return c.start().ctx.Done() }

func (c *deadlineCtx) Err() error {
	if t := c.timed.Load(); t != nil {
		return t.ctx.Err()
	}
	if err := c.Context.Err(); err != nil {
		return err
	}
	if c.released.Load() || !time.Now().Before(c.deadline) {
		return c.start().ctx.Err()
	}
	return nil
}

// Value answers from the deadline's context once it is made, so that
// context.Cause finds its cause.
func (c *deadlineCtx) Value(key any) any {
	if t := c.timed.Load(); t != nil {
		return t.ctx.Value(key)
	}
	return c.Context.Value(key)
}

// release stops the timer, if one was started, and ends the context for
// whoever still holds it.
func (c *deadlineCtx) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.released.Store(true)
	if t := c.timed.Load(); t != nil {
		t.cancel()
	}
}
