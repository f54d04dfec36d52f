package query

import (
	"math"
	"math/big"
	"testing"
)

func TestCompareGroupValues(t *testing.T) {
	for _, tc := range []struct {
		a, b     any
		idA, idB string
		want     int
	}{
		{nil, nil, "a", "b", 0},
		{nil, "x", "", "", 1},             // the null group last
		{"x", nil, "", "", -1},            //
		{2, 10, "", "", -1},               // range indexes by position
		{"b", "a", "1", "2", 1},           // values in their order, not by id
		{int64(5), "a", "z", "y", 1},      // kinds differ: by identity
		{int64(-1), int64(3), "", "", -1}, //
	} {
		if got := CompareGroupValues(tc.a, tc.b, tc.idA, tc.idB); got != tc.want {
			t.Errorf("CompareGroupValues(%v, %v, %q, %q) = %d, want %d", tc.a, tc.b, tc.idA, tc.idB, got, tc.want)
		}
	}
}

func TestCompareMetricValues(t *testing.T) {
	huge := new(big.Int).Lsh(big.NewInt(1), 70)
	for _, tc := range []struct {
		x, y any
		want int
	}{
		{nil, nil, 0},
		{nil, int64(1), 1}, // absent last
		{int64(1), nil, -1},
		{int64(3), 2.5, 1},                      // exact across Go types
		{int64(1 << 53), float64(1<<53) + 1, 0}, // the double rounds to 2^53
		{int64(1<<53 + 1), float64(1 << 53), 1}, // exact, where float64 would tie
		{huge, int64(math.MaxInt64), 1},         //
		{math.Copysign(0, -1), 0.0, -1},         // doubles in total order
		{math.NaN(), 1.0, 1},                    //
	} {
		if got := CompareMetricValues(tc.x, tc.y); got != tc.want {
			t.Errorf("CompareMetricValues(%v, %v) = %d, want %d", tc.x, tc.y, got, tc.want)
		}
	}
}
