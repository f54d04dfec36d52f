package index

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"weak"
)

// joinCache keeps a target snapshot's joins with its links' sources: at
// most maxJoins, one per source type and pair of properties (a join with
// a newer source's replaces the older one's). A join depends on the two
// orders it merged alone, which an update leaves as they are unless it
// changes their values: the next snapshot carries the joins whose target
// order it still has (carryJoins), and a join is asked for by its source
// order, so that commits that do not move keys keep their joins.
type joinCache struct {
	mu      sync.Mutex
	entries []*joinEntry
	clock   uint64
}

const maxJoins = 4

// joinKey names a join by its source's order of its key, held weakly: a
// join must not keep a replaced order's memory alive.
type joinKey struct {
	source         weak.Pointer[order]
	sourceType     string
	sourceProperty int
	targetProperty int
}

type joinEntry struct {
	key  joinKey
	used uint64 // the cache's clock when last asked (under joinCache.mu)
	read int64  // keys read by links without the join so far (likewise)

	once  sync.Once
	join  *linkJoin
	err   error
	made  atomic.Bool // join is made: an update may carry it
	order *order      // the target's order the join was made from
}

// get returns the join of key once the links between its snapshots have
// read keys worth its making (cost, in costJoinKey units); nil before, or
// when the one making it was cancelled. keys is what this link reads;
// target is the order of the target snapshot the join is made from.
func (c *joinCache) get(ctx context.Context, key joinKey, keys int64, cost float64, target *order, build func(context.Context) (*linkJoin, error)) (*linkJoin, error) {
	e, ready := c.entry(key, keys, cost, target)
	if !ready {
		return nil, nil
	}
	e.once.Do(func() {
		if e.join, e.err = build(ctx); e.err == nil {
			e.made.Store(true)
		}
	})
	if e.err != nil {
		c.drop(e)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, nil // another query's cancellation: read by value this time
	}
	return e.join, nil
}

// entry finds or adds key's entry and counts the keys read, replacing
// the join of the same link from an older source snapshot and the least
// recently used entry beyond maxJoins.
func (c *joinCache) entry(key joinKey, keys int64, cost float64, target *order) (*joinEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clock++
	for _, e := range c.entries {
		if e.key == key {
			e.used = c.clock
			e.read += keys
			return e, e.made.Load() || float64(e.read)*costJoinKey >= cost
		}
	}
	c.entries = slices.DeleteFunc(c.entries, func(e *joinEntry) bool {
		return e.key.sourceType == key.sourceType && e.key.sourceProperty == key.sourceProperty && e.key.targetProperty == key.targetProperty
	})
	if len(c.entries) >= maxJoins {
		oldest := 0
		for i, e := range c.entries {
			if e.used < c.entries[oldest].used {
				oldest = i
			}
		}
		c.entries = slices.Delete(c.entries, oldest, oldest+1)
	}
	e := &joinEntry{key: key, used: c.clock, read: keys, order: target}
	c.entries = append(c.entries, e)
	return e, float64(keys)*costJoinKey >= cost
}

// carryJoins gives n the joins of s whose target order n still has.
func (s *Snapshot) carryJoins(n *Snapshot) {
	s.joins.mu.Lock()
	defer s.joins.mu.Unlock()
	for _, e := range s.joins.entries {
		if !e.made.Load() || n.properties[e.key.targetProperty].order != e.order {
			continue
		}
		carried := &joinEntry{key: e.key, used: e.used, read: e.read, join: e.join, order: e.order}
		carried.once.Do(func() {})
		carried.made.Store(true)
		n.joins.entries = append(n.joins.entries, carried)
	}
	n.joins.clock = s.joins.clock
}

func (c *joinCache) drop(e *joinEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = slices.DeleteFunc(c.entries, func(x *joinEntry) bool { return x == e })
}
