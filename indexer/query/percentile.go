package query

import (
	"math/big"
	"strconv"
)

// PercentileRank is the 1-based nearest rank of percentile p among n,
// with p read as the decimal it was written as (the shortest decimal of
// the double) and p*n computed exactly: in float64, 0.3*10 rounds up to
// 3.0000000000000004 and the double nearest 0.1 is above 0.1, so a float
// ceiling would take rank 4 of 10 for 0.3 and rank 2 for 0.1.
func PercentileRank(p float64, n int64) int64 {
	x := new(big.Rat).Mul(decimalRat(p), new(big.Rat).SetInt64(n))
	r := new(big.Int).Quo(x.Num(), x.Denom()) // truncated; p*n >= 0
	if !x.IsInt() {
		r.Add(r, big.NewInt(1))
	}
	return min(max(r.Int64(), 1), n)
}

// decimalRat is the shortest decimal that parses to f, exactly.
func decimalRat(f float64) *big.Rat {
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
	if !ok {
		return new(big.Rat).SetFloat64(f)
	}
	return r
}
