package searchbench

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestRounds checks the alternation (A B, then B A), that both systems
// draw the same parameters in each round, that a side without a call is
// skipped, and that the parts add up.
func TestRounds(t *testing.T) {
	var mu sync.Mutex
	var order []string             // the side of each part, as parts start
	draws := map[string][]uint64{} // the first draw of each part, per side
	partOf := map[string]int{}     // the parts seen per side
	requests := map[string]int{}   // per side
	record := func(name string) call {
		last := -1
		return func(ctx context.Context, r *rand.Rand) error {
			mu.Lock()
			defer mu.Unlock()
			requests[name]++
			p := partOf[name]
			if last != p { // the first request of a part (one client)
				last = p
				order = append(order, name)
			}
			_ = r.Uint64()
			draws[name] = append(draws[name], r.Uint64())
			time.Sleep(time.Millisecond)
			return nil
		}
	}
	a, b := record("a"), record("b")
	cpuA := func() float64 {
		mu.Lock()
		defer mu.Unlock()
		partOf["a"]++ // read before and after each measured part
		return 0
	}
	cpuB := func() float64 {
		mu.Lock()
		defer mu.Unlock()
		partOf["b"]++
		return 0
	}
	o := Options{Clients: 1, Duration: 40 * time.Millisecond, Warmup: 0, Seed: 7, Rounds: 4}
	st, err := rounds(context.Background(), o, 3, []side{{call: a, cpu: cpuA}, {}, {call: b, cpu: cpuB}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b", "b", "a", "a", "b", "b", "a"}; !slices.Equal(order, want) {
		t.Fatalf("parts ran in order %v, want %v", order, want)
	}
	if st[1].Requests != 0 {
		t.Fatalf("the side without a call has figures: %+v", st[1])
	}
	for i, name := range []string{"a", "", "b"} {
		if name == "" {
			continue
		}
		if st[i].Requests != requests[name] || st[i].QPS <= 0 || st[i].ServerCPUus != 0 {
			t.Fatalf("%s: %+v, want %d requests", name, st[i], requests[name])
		}
	}
	// Both sides start each round's part with the same parameters: the
	// same stream for the round, whatever the other side drew.
	same := 0
	for _, x := range draws["a"] {
		if slices.Contains(draws["b"], x) {
			same++
		}
	}
	if same < 4 {
		t.Fatalf("the sides share %d draws, want those of at least each round's first request", same)
	}
}

func TestPart_add(t *testing.T) {
	p := part{lat: []time.Duration{time.Millisecond}, elapsed: time.Second, serverCPU: 0.5, nodeCPU: 0.2, clientCPU: 0.1, idleTicks: 1, allTicks: 4}
	p.add(part{lat: []time.Duration{3 * time.Millisecond}, errors: 2, first: "x", elapsed: time.Second, serverCPU: 0.5, nodeCPU: 0.2, clientCPU: 0.1, idleTicks: 1, allTicks: 4})
	st := p.stats()
	if st.Requests != 2 || st.Errors != 2 || st.FirstError != "x" || st.QPS != 1 || st.ServerCPUus != 5e5 || st.NodeCPUus != 2e5 || st.IdlePct != 25 || st.P99Ms != 3 {
		t.Fatalf("%+v", st)
	}
	p.add(part{serverCPU: -1, nodeCPU: -1})
	if st := p.stats(); st.ServerCPUus != 0 || st.NodeCPUus != 0 {
		t.Fatalf("a part of unknown server or node CPU makes the sum unknown: %+v", st)
	}
}
