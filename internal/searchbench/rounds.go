package searchbench

import (
	"context"
	"time"
)

// A side is one system's way to run a query: the call the clients make
// and the reader of its server's CPU seconds (nil: unknown).
type side struct {
	call call
	cpu  func() float64
	// node, when set, reads the CPU seconds of the OpenSearch node
	// behind the side (Stats.NodeCPUus).
	node func() float64
}

// rounds measures one query on each of sides (a nil call: not measured
// there) in alternating parts: o.Duration is cut into o.Rounds rounds,
// and in each round every side runs a part of Duration/Rounds, in the order
// A B, then B A in the next round, and so on. A shared machine's speed
// drifts over seconds (other tenants, frequency), and a ratio of two
// figures measured ten seconds apart measures that drift too; parts that
// alternate expose both systems to it alike. The first part of each side
// is preceded by warmup, later ones by a fifth of a part (what the other
// system's part evicted from the caches). Every side draws the same
// parameters in each round (stream and the round number, which Run
// bounds to 16 so that the two fit their bits).
func rounds(ctx context.Context, o Options, stream uint64, sides []side) ([]Stats, error) {
	n := max(o.Rounds, 1)
	slice := o.Duration / time.Duration(n)
	if slice <= 0 {
		slice, n = o.Duration, 1
	}
	parts := make([]part, len(sides))
	for r := range n {
		warm := o.Warmup
		if r > 0 {
			warm = min(o.Warmup, slice/5)
		}
		for k := range sides {
			i := k
			if r%2 == 1 {
				i = len(sides) - 1 - k
			}
			sd := sides[i]
			if sd.call == nil {
				continue
			}
			p, err := load(ctx, o.Clients, warm, slice, o.Seed, stream<<4|uint64(r), sd)
			if err != nil {
				return nil, err
			}
			parts[i].add(p) // to a zero part, the first round's is itself
		}
	}
	out := make([]Stats, len(sides))
	for i := range sides {
		if sides[i].call != nil {
			out[i] = parts[i].stats()
		}
	}
	return out, nil
}
