package soak

import (
	"context"
	"sync"
	"time"
)

// writerLoop commits one change every interval in its own goroutine until
// stopped. pause waits for the commit in progress and holds the writer
// until resume, so that the campaign can use the writer itself (faults)
// or look at a table that does not move (checks).
type writerLoop struct {
	w      *writer
	lk     sync.Mutex // held for each step, and while paused
	cancel context.CancelFunc
	done   chan struct{}

	mu     sync.Mutex
	err    error
	paused bool
}

func startWriter(ctx context.Context, w *writer, every time.Duration) *writerLoop {
	ctx, cancel := context.WithCancel(ctx)
	l := &writerLoop{w: w, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			l.lk.Lock()
			err := ctx.Err()
			if err == nil {
				err = w.step(ctx)
			}
			l.lk.Unlock()
			if err != nil {
				if ctx.Err() == nil {
					l.mu.Lock()
					l.err = err
					l.mu.Unlock()
				}
				return
			}
		}
	}()
	return l
}

// pause waits for the commit in progress and stops the writer (a paused
// writer stays paused); it fails when the writer has failed.
func (l *writerLoop) pause() error {
	l.mu.Lock()
	paused := l.paused
	l.mu.Unlock()
	if !paused { // one goroutine, the campaign's, pauses and resumes
		l.lk.Lock()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.paused = true
	return l.err
}

// resume lets the writer go on.
func (l *writerLoop) resume() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.paused {
		l.paused = false
		l.lk.Unlock()
	}
}

// failed is the writer's error, if it failed.
func (l *writerLoop) failed() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// stop ends the loop, waits for it and returns its error.
func (l *writerLoop) stop() error {
	l.cancel()
	l.resume()
	<-l.done
	return l.failed()
}
