package objects

import (
	"cmp"
	"math"
	"math/big"
	"time"
)

// Compare orders two values of one type: numbers numerically (decimals
// exactly, doubles in IEEE total order: -0 before +0, NaN after +Inf, as
// AppendKey orders them), dates and timestamps chronologically, strings by
// bytes, false before true. Values of other or mixed types compare by their
// text.
func Compare(a, b any) int {
	switch x := a.(type) {
	case int64:
		if y, ok := b.(int64); ok {
			return cmp.Compare(x, y)
		}
	case float64:
		if y, ok := b.(float64); ok {
			return cmp.Compare(floatOrder(x), floatOrder(y))
		}
	case Decimal:
		if y, ok := b.(Decimal); ok {
			return x.Rat().Cmp(y.Rat())
		}
	case Date:
		if y, ok := b.(Date); ok {
			return cmp.Compare(x, y)
		}
	case Time:
		if y, ok := b.(Time); ok {
			return cmp.Compare(x, y)
		}
	case time.Time:
		if y, ok := b.(time.Time); ok {
			return x.Compare(y)
		}
	case string:
		if y, ok := b.(string); ok {
			return cmp.Compare(x, y)
		}
	case bool:
		if y, ok := b.(bool); ok {
			switch {
			case x == y:
				return 0
			case !x:
				return -1
			}
			return 1
		}
	}
	return cmp.Compare(TextOf(a), TextOf(b))
}

// Rat is the exact value of the decimal.
func (d Decimal) Rat() *big.Rat {
	u := d.Unscaled
	if u == nil {
		u = new(big.Int)
	}
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(d.Scale, 0))), nil)
	r := new(big.Rat).SetFrac(u, den)
	if d.Scale < 0 {
		r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-d.Scale)), nil)))
	}
	return r
}

// Number is the float64 of a number, or of a date or timestamp as Unix
// nanoseconds; ok is false for other values.
func Number(v any) (f float64, ok bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case Decimal:
		return x.Float64(), true
	case Date:
		return float64(x.Time().UnixNano()), true
	case time.Time:
		return float64(x.UnixNano()), true
	}
	return 0, false
}

// floatOrder maps a float to an integer of the same IEEE total order.
func floatOrder(f float64) uint64 {
	u := math.Float64bits(f)
	if u>>63 == 1 {
		return ^u
	}
	return u | 1<<63
}
