package memorylimit

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestTarget(t *testing.T) {
	tests := []struct {
		name                string
		live, ceiling, want int64
	}{
		{"a small heap gets the least headroom", 10 << 20, 1 << 40, 10<<20 + MinHeadroom},
		{"a large heap a share of it", 4 << 30, 1 << 40, 5 << 30},
		{"never above the ceiling", 4 << 30, 4500 << 20, 4500 << 20},
		{"the ceiling below the live heap", 4 << 30, 1 << 30, 1 << 30},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Target(tt.live, tt.ceiling); got != tt.want {
				t.Fatalf("Target(%d, %d) = %d, want %d", tt.live, tt.ceiling, got, tt.want)
			}
		})
	}
}

func TestFollow(t *testing.T) {
	const ceiling = 1 << 40
	old := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(old) })
	f := Follow(ceiling)
	// The limit follows once a collection ran the follower's finalizer.
	deadline := time.Now().Add(10 * time.Second)
	for debug.SetMemoryLimit(-1) == ceiling {
		if time.Now().After(deadline) {
			f.Stop()
			t.Fatal("the limit did not follow the live heap after collections")
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if got := debug.SetMemoryLimit(-1); got < MinHeadroom || got > ceiling/2 {
		t.Fatalf("limit %d while following a test's heap, want the live heap + %d", got, MinHeadroom)
	}
	following := debug.SetMemoryLimit(-1)
	release := f.Hold()
	if got := debug.SetMemoryLimit(-1); got != ceiling {
		t.Fatalf("limit %d while held, want the ceiling %d", got, ceiling)
	}
	runtime.GC()
	time.Sleep(10 * time.Millisecond)
	if got := debug.SetMemoryLimit(-1); got != ceiling {
		t.Fatalf("limit %d after a collection while held, want the ceiling %d", got, ceiling)
	}
	release()
	release() // a second call does nothing
	if got := debug.SetMemoryLimit(-1); got == ceiling || got > 2*following {
		t.Fatalf("limit %d after the hold, want it to follow the live heap again (%d before)", got, following)
	}
	f.Stop()
	if got := debug.SetMemoryLimit(-1); got != ceiling {
		t.Fatalf("limit %d after stop, want the ceiling %d", got, ceiling)
	}
	for range 3 {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if got := debug.SetMemoryLimit(-1); got != ceiling {
		t.Fatalf("limit %d after stop and collections, want the ceiling %d", got, ceiling)
	}
}
