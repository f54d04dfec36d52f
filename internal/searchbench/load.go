package searchbench

import (
	"context"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"time"
)

// Stats are the figures of one query on one system.
type Stats struct {
	Requests int     `json:"requests"` // completed without error, in the measured part
	Errors   int     `json:"errors"`
	QPS      float64 `json:"qps"`
	P50Ms    float64 `json:"p50Ms"`
	P99Ms    float64 `json:"p99Ms"`
	// ServerCPUus is the server's CPU time per completed request in the
	// measured part, in microseconds (0: unknown).
	ServerCPUus float64 `json:"serverCpuUsPerRequest,omitempty"`
	// NodeCPUus is, for a side behind which an OpenSearch node answers,
	// the node's share of ServerCPUus (0: not read): the node's CPU a
	// request on the backend's requests against the straight DSL's.
	NodeCPUus float64 `json:"nodeCpuUsPerRequest,omitempty"`
	// ClientCPUus is the bench process's (the clients') CPU time per
	// request, and IdlePct the share of the machine's CPU time nobody
	// used, over the same part: with ServerCPUus they tell whether the
	// server, the clients or other work set the q/s.
	ClientCPUus float64 `json:"clientCpuUsPerRequest,omitempty"`
	IdlePct     float64 `json:"idlePct,omitempty"`
	FirstError  string  `json:"firstError,omitempty"`
}

// call sends one request with parameters drawn from r.
type call func(ctx context.Context, r *rand.Rand) error

// part is what one measured part of one system yields, kept raw so that
// the parts of a query's rounds (rounds.go) add up to one Stats.
type part struct {
	lat     []time.Duration // of the requests completed without error
	errors  int
	first   string        // the first error
	elapsed time.Duration // wall time of the part
	// CPU seconds over the part: the server's (negative: unknown) and the
	// bench process's; the machine's idle and total CPU ticks.
	serverCPU, clientCPU float64
	idleTicks, allTicks  float64
	// nodeCPU is the node's CPU seconds over the part (negative: not read).
	nodeCPU float64
}

// add merges q into p.
func (p *part) add(q part) {
	p.lat = append(p.lat, q.lat...)
	p.errors += q.errors
	if p.first == "" {
		p.first = q.first
	}
	p.elapsed += q.elapsed
	if p.serverCPU >= 0 && q.serverCPU >= 0 {
		p.serverCPU += q.serverCPU
	} else {
		p.serverCPU = -1
	}
	if p.nodeCPU >= 0 && q.nodeCPU >= 0 {
		p.nodeCPU += q.nodeCPU
	} else {
		p.nodeCPU = -1
	}
	p.clientCPU += q.clientCPU
	p.idleTicks += q.idleTicks
	p.allTicks += q.allTicks
}

// stats are the figures of the merged parts: q/s is the requests
// completed over the parts' wall time. It sorts p.lat.
func (p *part) stats() Stats {
	st := Stats{Requests: len(p.lat), Errors: p.errors, FirstError: p.first}
	if p.elapsed > 0 {
		st.QPS = float64(len(p.lat)) / p.elapsed.Seconds()
	}
	st.P50Ms, st.P99Ms = percentileMs(p.lat, 50), percentileMs(p.lat, 99)
	if st.Requests > 0 {
		per := func(used float64) float64 { return max(used, 0) / float64(st.Requests) * 1e6 }
		if p.serverCPU >= 0 {
			st.ServerCPUus = per(p.serverCPU)
		}
		if p.nodeCPU > 0 {
			st.NodeCPUus = per(p.nodeCPU)
		}
		st.ClientCPUus = per(p.clientCPU)
		if p.allTicks > 0 {
			st.IdlePct = 100 * p.idleTicks / p.allTicks
		}
	}
	return st
}

// load runs clients closed loops of call: a warm-up that is not recorded,
// then the measured part of length dur. A request started before the end
// of a part is waited for and counted, so that a query slower than dur
// still yields figures. Client i draws its parameters from a stream that
// depends only on (seed, stream, i), so that two systems see the same
// parameters in the same order.
// sd.cpu, when set, reads the server's CPU seconds so far, and sd.node
// the node's.
func load(ctx context.Context, clients int, warmup, dur time.Duration, seed, stream uint64, sd side) (part, error) {
	c, cpu := sd.call, sd.cpu
	if warmup > 0 {
		if _, err := loop(ctx, clients, warmup, seed, stream<<1, c); err != nil {
			return part{}, err
		}
	}
	before, node0 := -1.0, -1.0
	if cpu != nil {
		before = cpu()
	}
	if sd.node != nil {
		node0 = sd.node()
	}
	self := os.Getpid()
	client0 := procCPUSeconds(self)
	idle0, total0 := machineCPUTicks()
	p, err := loop(ctx, clients, dur, seed, stream<<1|1, c)
	if err != nil {
		return part{}, err
	}
	p.serverCPU, p.nodeCPU = -1, -1
	if cpu != nil {
		p.serverCPU = cpu() - before
	}
	if sd.node != nil {
		p.nodeCPU = sd.node() - node0
	}
	p.clientCPU = procCPUSeconds(self) - client0
	if idle1, total1 := machineCPUTicks(); total1 > total0 {
		p.idleTicks, p.allTicks = idle1-idle0, total1-total0
	}
	return p, nil
}

// errorBackoff keeps a client that fails at once from spinning.
const errorBackoff = 10 * time.Millisecond

func loop(ctx context.Context, clients int, dur time.Duration, seed, stream uint64, c call) (part, error) {
	type clientResult struct {
		lat    []time.Duration
		errors int
		first  error
	}
	results := make([]clientResult, clients)
	start := time.Now()
	deadline := start.Add(dur)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(seed, stream<<16|uint64(i)))
			res := &results[i]
			for time.Now().Before(deadline) && ctx.Err() == nil {
				t0 := time.Now()
				if err := c(ctx, r); err != nil {
					if ctx.Err() != nil {
						return
					}
					res.errors++
					if res.first == nil {
						res.first = err
					}
					time.Sleep(errorBackoff)
					continue
				}
				res.lat = append(res.lat, time.Since(t0))
			}
		})
	}
	wg.Wait()
	p := part{elapsed: time.Since(start)}
	if err := ctx.Err(); err != nil {
		return part{}, err
	}
	for _, res := range results {
		p.lat = append(p.lat, res.lat...)
		p.errors += res.errors
		if res.first != nil && p.first == "" {
			p.first = res.first.Error()
		}
	}
	return p, nil
}

// percentileMs is the nearest-rank percentile p of lat, in milliseconds
// (0 for no samples). It sorts lat.
func percentileMs(lat []time.Duration, p int) float64 {
	if len(lat) == 0 {
		return 0
	}
	slices.Sort(lat)
	rank := (len(lat)*p + 99) / 100 // ceil(n*p/100), 1-based
	return float64(lat[max(rank, 1)-1]) / float64(time.Millisecond)
}
