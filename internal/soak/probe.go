package soak

import (
	"context"
	"sort"
	"sync"
	"time"
)

// probe polls the status of both object types and maps each checkpoint to
// the writer's commit: once it has seen a commit served, every request
// that starts after must see that state or a newer one, and the time from
// a commit to the first status that serves it is the commit's lag.
type probe struct {
	r      *run
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	visible map[string]int64 // by table: the newest commit seen served
	seen    map[string][]sighting
	back    []violation // checkpoints that went back
}

// lag is the time from a commit of a kind to the status that served it.
type lag struct {
	kind string
	d    time.Duration
}

// sighting is a status answer: the commit its checkpoint holds, and when
// the answer arrived.
type sighting struct {
	seq int64
	at  time.Time
}

func startProbe(ctx context.Context, r *run) *probe {
	ctx, cancel := context.WithCancel(ctx)
	p := &probe{r: r, cancel: cancel, done: make(chan struct{}), visible: map[string]int64{}, seen: map[string][]sighting{}}
	p.look(ctx) // the state before the load
	go func() {
		defer close(p.done)
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
			p.look(ctx)
		}
	}()
	return p
}

func (p *probe) look(ctx context.Context) {
	for _, t := range []struct{ typ, table string }{{itemType, itemsTable}, {groupType, groupsTable}} {
		st, err := p.r.c.status(ctx, t.typ)
		if err != nil {
			continue // the load counts the server's errors; the probe only watches
		}
		seq, ok := p.r.m.seqOf(t.table, st.CheckpointSnapshotID)
		if !ok {
			continue // a commit whose writer has not returned yet
		}
		now := time.Now()
		p.mu.Lock()
		if seq < p.visible[t.table] && len(p.back) < maxSamples {
			p.back = append(p.back, violationf(vStale, "the status of %s went back from commit %d to %d", t.typ, p.visible[t.table], seq))
		}
		p.visible[t.table] = max(p.visible[t.table], seq)
		p.seen[t.table] = append(p.seen[t.table], sighting{seq: seq, at: now})
		p.mu.Unlock()
	}
}

// floor is the newest commit of table seen served so far.
func (p *probe) floor(table string) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.visible[table]
}

func (p *probe) stop() {
	p.cancel()
	<-p.done
}

// lags returns, for each commit c of the items and groups tables made in
// [from, to) (schema additions left out), the time from the commit's
// return to the first status that served it or a later commit; missing
// counts those never seen served.
func (p *probe) lags(from, to time.Time) (lags []lag, missing []int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.r.m
	m.mu.RLock()
	defer m.mu.RUnlock()
	for _, c := range m.commits[1:] {
		if c.at.Before(from) || !c.at.Before(to) || c.kind == kindAddColumn {
			continue
		}
		ss := p.seen[c.table] // seqs never decrease, or back says so
		i := sort.Search(len(ss), func(i int) bool { return ss[i].seq >= c.seq })
		if i == len(ss) {
			missing = append(missing, c.seq)
			continue
		}
		lags = append(lags, lag{kind: c.kind, d: max(ss[i].at.Sub(c.at), 0)})
	}
	return lags, missing
}
