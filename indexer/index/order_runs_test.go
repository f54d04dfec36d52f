package index

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestOrder_runsOf compares the one-pass runs of many values with two
// binary searches per value, over an order of many blocks with values on
// many entries (balance), few (code) and block boundaries between equal
// values; sparse keys, and keys dense enough to fall on most blocks, as a
// large link's do.
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
			n := r.IntN(300)
			if r.IntN(3) == 0 {
				n = r.IntN(pi.order.len())
			}
			for range n {
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

// TestOrder_runsOfPres is runsOf on an order of pres alone, with runs of
// equal values longer than a block and the extreme pres, against two
// binary searches per value.
func TestOrder_runsOfPres(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, spread := range []int{3, 50, 5000} {
		var ps []pair
		for d := range uint32(20_000) {
			var pre uint64
			switch r.IntN(20) {
			case 0:
				pre = math.MaxUint64
			case 1:
				pre = 0
			default:
				pre = uint64(r.IntN(spread)) << 40
			}
			ps = append(ps, pair{pre: pre, doc: d})
		}
		o := buildOrder(ps, noTies{})
		vks := []valueKey{{pre: 0}, {pre: math.MaxUint64}}
		for range r.IntN(2000) {
			vks = append(vks, valueKey{pre: uint64(r.IntN(spread+1))<<40 + uint64(r.IntN(2))})
		}
		slices.SortFunc(vks, compareValueKeys)
		vks = slices.CompactFunc(vks, func(a, b valueKey) bool { return compareValueKeys(a, b) == 0 })
		var want []run
		for _, vk := range vks {
			if rn := (run{o.lowerBound(noTies{}, vk, false), o.lowerBound(noTies{}, vk, true)}); rn.hi > rn.lo {
				want = append(want, rn)
			}
		}
		if got := o.runsOf(noTies{}, vks); !slices.Equal(got, want) {
			t.Fatalf("spread %d: runs of %d values:\n got %v\nwant %v", spread, len(vks), got, want)
		}
	}
}
