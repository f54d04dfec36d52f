package memorylimit

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// A served index is the heap's live part, and builds and requests add
// garbage to it: with GOGC=100 alone the heap grows to twice what was
// live at the last collection before the next one, and the runtime keeps
// the pages (at ten million customers and orders, 3.0 GB when ready and
// 6.6 GB after 90 one-row edits). A fixed limit near the working set
// bounds that, but must be sized by hand for each data set; the ceiling
// (memoryLimit, 80% of the machine by default) does not. Following the
// live heap bounds the headroom at any size. Collections cost little
// here: the index is columns, packed strings and bitmaps, which hold no
// pointers, so marking 1.8 GB live takes about 0.1 s of CPU.

// Headroom is the share of the live heap the heap may grow by before a
// collection, while the limit follows the live heap (Follow).
const Headroom = 0.25

// MinHeadroom is the least headroom, in bytes: under four times it live,
// the limit allows more than Headroom, and under it, more than GOGC=100
// does, so a small process collects as it would without a limit. It also
// covers what the limit counts beside the heap (stacks, the runtime's
// metadata).
const MinHeadroom = 256 << 20

// Target is the soft memory limit for a live heap of live bytes under a
// ceiling.
func Target(live, ceiling int64) int64 {
	return min(ceiling, live+max(int64(float64(live)*Headroom), MinHeadroom))
}

// Follower keeps the runtime's soft memory limit at Target of the live
// heap after every collection, except while a full build holds it at the
// ceiling: a full build's garbage (every row it reads) against a heap
// held to a quarter more than what is live cost 10-20% more CPU (a 10M
// build, GOGC=25 against 100), and its peak is bounded by the ceiling as
// before.
type Follower struct {
	ceiling int64
	live    []metrics.Sample

	mu      sync.Mutex // a limit is set after Stop's only if set before it
	holds   int
	stopped bool
}

// Follow starts a Follower under ceiling.
func Follow(ceiling int64) *Follower {
	f := &Follower{ceiling: ceiling, live: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	debug.SetMemoryLimit(ceiling)
	f.arm()
	return f
}

// Stop sets the limit back to the ceiling, for good.
func (f *Follower) Stop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopped = true
	debug.SetMemoryLimit(f.ceiling)
}

// Hold sets the limit to the ceiling until release is called (holds
// nest); then the limit follows the live heap the last collection found.
func (f *Follower) Hold() (release func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.holds++
	if !f.stopped {
		debug.SetMemoryLimit(f.ceiling)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.holds--
			f.setLocked()
		})
	}
}

// gcMark is garbage from its allocation on: the collection that frees it
// runs its finalizer, which is how the follower learns a collection
// ended. It holds a pointer, so the runtime's tiny allocator (whose
// objects may never be finalized) does not take it.
type gcMark struct{ f *Follower }

func (f *Follower) arm() {
	runtime.SetFinalizer(&gcMark{f: f}, func(m *gcMark) {
		m.f.mu.Lock()
		on := !m.f.stopped
		m.f.setLocked()
		m.f.mu.Unlock()
		if on {
			m.f.arm()
		}
	})
}

// setLocked sets the limit for the live heap the last collection found;
// f.mu is held.
func (f *Follower) setLocked() {
	if f.stopped || f.holds > 0 {
		return
	}
	metrics.Read(f.live)
	if f.live[0].Value.Kind() == metrics.KindUint64 {
		debug.SetMemoryLimit(Target(int64(f.live[0].Value.Uint64()), f.ceiling))
	}
}
