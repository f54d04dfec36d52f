package api

import (
	"context"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
)

func TestDerivedBudget_acquire(t *testing.T) {
	t.Run("the weight held never passes the size", func(t *testing.T) {
		b := newDerivedBudget(100)
		var mu sync.Mutex
		held, most, waits := int64(0), int64(0), 0
		var wg sync.WaitGroup
		for g := range 32 {
			r := rand.New(rand.NewPCG(uint64(g), 1))
			wg.Go(func() {
				for range 50 {
					w := int64(1 + r.IntN(150)) // some heavier than the whole budget
					release, err := b.acquire(context.Background(), w, func() {
						mu.Lock()
						waits++
						mu.Unlock()
					})
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					held += min(w, 100)
					most = max(most, held)
					mu.Unlock()
					for range 1 + r.IntN(4) {
						runtime.Gosched() // others try to take theirs meanwhile
					}
					mu.Lock()
					held -= min(w, 100)
					mu.Unlock()
					release()
					release() // a second call gives nothing back
				}
			})
		}
		wg.Wait()
		if most > 100 || b.peak.Load() > 100 || b.held.Load() != 0 || waits == 0 {
			t.Fatalf("most held %d (peak %d), held at the end %d, %d waits; want at most 100, 0 at the end, some waits", most, b.peak.Load(), b.held.Load(), waits)
		}
	})
	t.Run("a wait ends with its context", func(t *testing.T) {
		b := newDerivedBudget(10)
		release, err := b.acquire(context.Background(), 10, func() {})
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := b.acquire(ctx, 1, func() {}); err == nil {
			t.Fatal("acquire with the budget held and a cancelled context: no error")
		}
	})
	t.Run("more for a holder never waits", func(t *testing.T) {
		b := newDerivedBudget(10)
		release, err := b.acquire(context.Background(), 8, func() {})
		if err != nil {
			t.Fatal(err)
		}
		more := b.acquireMore(8) // not free: taken nowhere, no wait
		if got := b.held.Load(); got != 8 {
			t.Fatalf("held %d after more than is free, want 8", got)
		}
		more()
		if got := b.held.Load(); got != 8 {
			t.Fatalf("held %d after releasing what was not taken, want 8", got)
		}
		less := b.acquireMore(2) // free: taken
		if got := b.held.Load(); got != 10 {
			t.Fatalf("held %d after 2 more that were free, want 10", got)
		}
		less()
		release()
		if got := b.held.Load(); got != 0 || !b.sem.TryAcquire(10) {
			t.Fatalf("held %d at the end, want 0 and the whole budget free", got)
		}
	})
	t.Run("no bound", func(t *testing.T) {
		if b := newDerivedBudget(-1); b != nil {
			t.Fatalf("budget of -1: %+v, want none", b)
		}
		var b *derivedBudget
		release, err := b.acquire(context.Background(), 1<<40, func() { t.Fatal("waited without a bound") })
		if err != nil {
			t.Fatal(err)
		}
		release()
	})
}
