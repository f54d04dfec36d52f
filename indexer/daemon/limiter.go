package daemon

import (
	"context"
	"sync"
)

// limiter bounds the builds that run at once; its bound can change.
type limiter struct {
	mu   sync.Mutex
	max  int
	n    int
	wake chan struct{} // closed and replaced when a slot frees up
}

func newLimiter(n int) *limiter { return &limiter{max: max(n, 1), wake: make(chan struct{})} }

func (l *limiter) acquire(ctx context.Context) error {
	for {
		l.mu.Lock()
		if l.n < l.max {
			l.n++
			l.mu.Unlock()
			return nil
		}
		wake := l.wake
		l.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (l *limiter) release() {
	l.mu.Lock()
	l.n--
	close(l.wake)
	l.wake = make(chan struct{})
	l.mu.Unlock()
}

func (l *limiter) setMax(n int) {
	l.mu.Lock()
	l.max = max(n, 1)
	close(l.wake)
	l.wake = make(chan struct{})
	l.mu.Unlock()
}
