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

// load runs clients closed loops of call: a warm-up that is not recorded,
// then the measured part of length dur. A request started before the end
// of a part is waited for and counted, so that a query slower than dur
// still yields figures; q/s is completed requests over the wall time until
// the last one finished. Client i draws its parameters from a stream that
// depends only on (seed, stream, i), so that two systems see the same
// parameters in the same order.
// cpu, when set, reads the server's CPU seconds so far.
func load(ctx context.Context, clients int, warmup, dur time.Duration, seed, stream uint64, cpu func() float64, c call) (Stats, error) {
	if warmup > 0 {
		if _, err := loop(ctx, clients, warmup, seed, stream<<1, c); err != nil {
			return Stats{}, err
		}
	}
	var before float64
	if cpu != nil {
		before = cpu()
	}
	self := os.Getpid()
	client0 := procCPUSeconds(self)
	idle0, total0 := machineCPUTicks()
	st, err := loop(ctx, clients, dur, seed, stream<<1|1, c)
	if st.Requests > 0 {
		per := func(used float64) float64 { return max(used, 0) / float64(st.Requests) * 1e6 }
		if cpu != nil {
			st.ServerCPUus = per(cpu() - before)
		}
		st.ClientCPUus = per(procCPUSeconds(self) - client0)
		if idle1, total1 := machineCPUTicks(); total1 > total0 {
			st.IdlePct = 100 * (idle1 - idle0) / (total1 - total0)
		}
	}
	return st, err
}

// errorBackoff keeps a client that fails at once from spinning.
const errorBackoff = 10 * time.Millisecond

func loop(ctx context.Context, clients int, dur time.Duration, seed, stream uint64, c call) (Stats, error) {
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
	elapsed := time.Since(start)
	if err := ctx.Err(); err != nil {
		return Stats{}, err
	}
	var all []time.Duration
	var st Stats
	for _, res := range results {
		all = append(all, res.lat...)
		st.Errors += res.errors
		if res.first != nil && st.FirstError == "" {
			st.FirstError = res.first.Error()
		}
	}
	st.Requests = len(all)
	st.QPS = float64(len(all)) / elapsed.Seconds()
	st.P50Ms, st.P99Ms = percentileMs(all, 50), percentileMs(all, 99)
	return st, nil
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
