package api

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestDeadlineCtx(t *testing.T) {
	type key struct{}
	t.Run("ends at the deadline without Done", func(t *testing.T) {
		ctx, release := withRequestDeadline(context.WithValue(t.Context(), key{}, "v"), time.Millisecond)
		defer release()
		if err := ctx.Err(); err != nil {
			t.Fatalf("Err before the deadline = %v", err)
		}
		time.Sleep(5 * time.Millisecond)
		if err := ctx.Err(); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Err after the deadline = %v, want DeadlineExceeded", err)
		}
		if c := context.Cause(ctx); !errors.Is(c, errRequestTimeout) {
			t.Fatalf("Cause = %v, want errRequestTimeout", c)
		}
		select {
		case <-ctx.Done():
		default:
			t.Fatal("Done not closed after the deadline")
		}
		if v := ctx.Value(key{}); v != "v" {
			t.Fatalf("Value = %v", v)
		}
	})
	t.Run("Done closes at the deadline", func(t *testing.T) {
		ctx, release := withRequestDeadline(t.Context(), 2*time.Millisecond)
		defer release()
		<-ctx.Done()
		if !errors.Is(context.Cause(ctx), errRequestTimeout) || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			t.Fatalf("Err %v, Cause %v", ctx.Err(), context.Cause(ctx))
		}
	})
	t.Run("the parent's end", func(t *testing.T) {
		parent, cancel := context.WithCancel(t.Context())
		ctx, release := withRequestDeadline(parent, time.Hour)
		defer release()
		cancel()
		if !errors.Is(ctx.Err(), context.Canceled) {
			t.Fatalf("Err = %v, want Canceled", ctx.Err())
		}
		<-ctx.Done()
		if dl, ok := ctx.Deadline(); !ok || time.Until(dl) < 59*time.Minute {
			t.Fatalf("Deadline = %v, %v", dl, ok)
		}
	})
	t.Run("the parent's end while Done is waited on", func(t *testing.T) {
		// A client that goes away: net/http cancels the parent while a
		// query waits on Done; it is not the request timeout.
		parent, cancel := context.WithCancel(t.Context())
		ctx, release := withRequestDeadline(parent, time.Hour)
		defer release()
		done := ctx.Done()
		cancel()
		<-done
		if !clientGone(ctx, ctx.Err()) || errors.Is(context.Cause(ctx), errRequestTimeout) {
			t.Fatalf("Err = %v, cause %v: want the client's cancellation", ctx.Err(), context.Cause(ctx))
		}
	})
	t.Run("released", func(t *testing.T) {
		for _, started := range []bool{false, true} {
			ctx, release := withRequestDeadline(t.Context(), time.Hour)
			if started {
				_ = ctx.Done()
			}
			release()
			if !errors.Is(ctx.Err(), context.Canceled) {
				t.Fatalf("started %v: Err after release = %v, want Canceled", started, ctx.Err())
			}
			select {
			case <-ctx.Done():
			default:
				t.Fatalf("started %v: Done open after release", started)
			}
		}
	})
	t.Run("children", func(t *testing.T) {
		ctx, release := withRequestDeadline(t.Context(), 2*time.Millisecond)
		defer release()
		child, cancel := context.WithCancel(ctx)
		defer cancel()
		<-child.Done()
		if !errors.Is(context.Cause(child), errRequestTimeout) {
			t.Fatalf("child Cause = %v", context.Cause(child))
		}
	})
}
