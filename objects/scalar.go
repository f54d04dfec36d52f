package objects

import "time"

// Scalar is one non-list value held without an interface, for code that
// reads many values in a row (the API renders pages from the index this
// way, without boxing each value): which field holds it follows the
// property's kind.
//
//	boolean                    Int (0 or 1)
//	integer, long, date, time  Int (the value, days, microseconds)
//	float, double              Float
//	string                     Str
//	timestamp(tz)              Time
//	decimal, uuid              Other (Decimal, UUID)
type Scalar struct {
	Null  bool
	Int   int64
	Float float64
	Str   string
	Time  time.Time
	Other any
}

// ScalarOf is the scalar of a non-list value of kind k.
func ScalarOf(k Kind, v any) Scalar {
	switch x := v.(type) {
	case nil:
		return Scalar{Null: true}
	case bool:
		if x {
			return Scalar{Int: 1}
		}
		return Scalar{}
	case int64:
		return Scalar{Int: x}
	case Date:
		return Scalar{Int: int64(x)}
	case Time:
		return Scalar{Int: int64(x)}
	case float64:
		return Scalar{Float: x}
	case string:
		return Scalar{Str: x}
	case time.Time:
		return Scalar{Time: x}
	}
	return Scalar{Other: v}
}

// Value is the typed value of a scalar of kind k.
func (s Scalar) Value(k Kind) any {
	if s.Null {
		return nil
	}
	switch k {
	case KindBoolean:
		return s.Int == 1
	case KindInteger, KindLong:
		return s.Int
	case KindDate:
		return Date(s.Int)
	case KindTime:
		return Time(s.Int)
	case KindFloat, KindDouble:
		return s.Float
	case KindString:
		return s.Str
	case KindTimestamp, KindTimestampTZ:
		return s.Time
	}
	return s.Other
}
