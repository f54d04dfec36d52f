package index

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestOrder_runsOf compares the one-pass runs of many values with two
// binary searches per value, over an order of many blocks with values on
// many entries (balance), few (code) and block boundaries between equal
// values.
func TestOrder_runsOf(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	typ := testType(t)
	s := mustBuild(t, typ, randState(r, 20_000))
	for _, name := range []string{"code", "balance", "id", "day"} {
		pi := s.property(name)
		if pi.order == nil || len(pi.order.blocks) < 10 {
			t.Fatalf("%s: want an order of many blocks", name)
		}
		tt := s.ties(pi)
		for range 40 {
			// Values of the order, and values between and beyond them.
			var vks []valueKey
			for range r.IntN(300) {
				p := r.IntN(pi.order.len())
				vk := pi.column.get(pi.order.doc(p))
				if r.IntN(4) == 0 {
					vk.pre += uint64(r.IntN(3)) - 1
				}
				vks = append(vks, vk)
			}
			slices.SortFunc(vks, compareValueKeys)
			vks = slices.CompactFunc(vks, func(a, b valueKey) bool { return compareValueKeys(a, b) == 0 })
			var want []run
			for _, vk := range vks {
				if rn := (run{pi.order.lowerBound(tt, vk, false), pi.order.lowerBound(tt, vk, true)}); rn.hi > rn.lo {
					want = append(want, rn)
				}
			}
			if got := pi.order.runsOf(tt, vks); !slices.Equal(got, want) {
				t.Fatalf("%s: runs of %d values:\n got %v\nwant %v", name, len(vks), got, want)
			}
		}
	}
}
