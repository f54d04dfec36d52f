package backend

import "context"

// Pause gives back what the request holds while it computes, and returns
// the function that takes it again, waiting at most as long as its ctx
// lives.
type Pause func() (resume func(context.Context) error)

type pauseKey struct{}

// WithPause returns ctx carrying p, for the calls to a backend made with
// it (Wait).
func WithPause(ctx context.Context, p Pause) context.Context {
	return context.WithValue(ctx, pauseKey{}, p)
}

// Wait runs call, a request to a backend and the reading of its answer,
// with the request's hold given back meanwhile when ctx carries a Pause.
// An error of call comes first; else the error of taking the hold again
// (the request's deadline, or its client gone, while it waited for it).
func Wait(ctx context.Context, call func() error) error {
	p, _ := ctx.Value(pauseKey{}).(Pause)
	if p == nil {
		return call()
	}
	resume := p()
	err := call()
	if rerr := resume(ctx); err == nil {
		err = rerr
	}
	return err
}
