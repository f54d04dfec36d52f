package api

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestJoinIndex checks the join index against a map on random keys: dense
// ranges, keys outside the range that spill it into a map, the extremes
// of int64, and strings.
func TestJoinIndex(t *testing.T) {
	tests := []struct {
		name   string
		lo, hi int64 // the range denseKeys is given
		keys   func(r *rand.Rand) joinKey
	}{
		{"dense", 1, 1000, func(r *rand.Rand) joinKey { return joinKey{n: 1 + r.Int64N(1000)} }},
		{"spills", 1, 1000, func(r *rand.Rand) joinKey { return joinKey{n: r.Int64N(3000) - 1000} }},
		{"too wide for a slice", math.MinInt64, math.MaxInt64, func(r *rand.Rand) joinKey {
			return joinKey{n: []int64{math.MinInt64, math.MaxInt64, 0, -1, 1}[r.IntN(5)]}
		}},
		{"strings", 0, 10, func(r *rand.Rand) joinKey { return joinKey{s: string(rune('a' + r.IntN(20))), str: true} }},
		{"mixed", 0, 10, func(r *rand.Rand) joinKey {
			if r.IntN(2) == 0 {
				return joinKey{n: r.Int64N(12)}
			}
			return joinKey{s: string(rune('a' + r.IntN(5))), str: true}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			x := &joinIndex{size: 500}
			x.denseKeys(tt.lo, tt.hi)
			want := map[joinKey][]int32{}
			for i := range 2000 {
				k := tt.keys(r)
				have, ok := x.get(k)
				w, wok := want[k]
				if ok != wok || !slices.Equal(have, w) {
					t.Fatalf("get(%+v) = %v %v, want %v %v", k, have, ok, w, wok)
				}
				v := append(slices.Clone(have), int32(i))
				x.set(k, v)
				want[k] = v
			}
			for k, w := range want {
				if have, ok := x.get(k); !ok || !slices.Equal(have, w) {
					t.Errorf("get(%+v) = %v %v, want %v", k, have, ok, w)
				}
			}
		})
	}
}
