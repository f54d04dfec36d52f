package index

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/ontoindex/ontoindex/objects"
)

// valueKey is a value in the index's comparable form: pre orders values, and
// when two pres are equal, exact (compared as bytes) decides. Keys order
// exactly like query semantics: strings by bytes, the rest like
// objects.AppendKey.
//
// Kinds whose order fits 64 bits (booleans, integers, floats, dates,
// times, timestamps at microsecond precision) leave exact empty; strings
// keep the string itself (pre is its first 8 bytes); decimals and uuids
// keep their key encoding (pre is its first 8 bytes). A timestamp with
// nanoseconds beyond the microsecond keeps its key encoding in exact,
// which sorts after the empty exact of the same microsecond.
type valueKey struct {
	pre   uint64
	exact string
}

func compareValueKeys(a, b valueKey) int {
	switch {
	case a.pre < b.pre:
		return -1
	case a.pre > b.pre:
		return 1
	}
	return strings.Compare(a.exact, b.exact)
}

const signBit = 1 << 63

// hasExact reports whether values of kind k keep an exact part.
func hasExact(k objects.Kind) bool {
	switch k {
	case objects.KindString, objects.KindDecimal, objects.KindUUID, objects.KindTimestamp, objects.KindTimestampTZ,
		objects.KindGeoPoint, objects.KindGeoShape:
		return true
	}
	return false
}

// prefix8 is the first 8 bytes of s, big-endian, zero padded.
func prefix8(s string) uint64 {
	var b [8]byte
	copy(b[:], s)
	return binary.BigEndian.Uint64(b[:])
}

func floatKey(f float64) uint64 {
	u := math.Float64bits(f)
	if u>>63 == 1 {
		return ^u
	}
	return u | signBit
}

func floatOfKey(u uint64) float64 {
	if u>>63 == 1 {
		return math.Float64frombits(u &^ signBit)
	}
	return math.Float64frombits(^u)
}

// valueKeyOf is the valueKey of a value of kind k. Values of another Go
// type than the kind holds are an error.
func valueKeyOf(k objects.Kind, v any) (valueKey, error) {
	switch x := v.(type) {
	case bool:
		if k == objects.KindBoolean {
			if x {
				return valueKey{pre: 1}, nil
			}
			return valueKey{}, nil
		}
	case int64:
		if k == objects.KindInteger || k == objects.KindLong {
			return valueKey{pre: uint64(x) ^ signBit}, nil
		}
	case float64:
		if k == objects.KindFloat || k == objects.KindDouble {
			return valueKey{pre: floatKey(x)}, nil
		}
	case objects.Date:
		if k == objects.KindDate {
			return valueKey{pre: uint64(int64(x)) ^ signBit}, nil
		}
	case objects.Time:
		if k == objects.KindTime {
			return valueKey{pre: uint64(int64(x)) ^ signBit}, nil
		}
	case time.Time:
		if k == objects.KindTimestamp || k == objects.KindTimestampTZ {
			us := x.Unix()*1_000_000 + int64(x.Nanosecond()/1000)
			vk := valueKey{pre: uint64(us) ^ signBit}
			if x.Nanosecond()%1000 != 0 {
				b, _ := objects.AppendKey(nil, x)
				vk.exact = string(b)
			}
			return vk, nil
		}
	case string:
		if k == objects.KindString {
			return valueKey{pre: prefix8(x), exact: x}, nil
		}
	case objects.UUID:
		if k == objects.KindUUID {
			return valueKey{pre: binary.BigEndian.Uint64(x[:8]), exact: string(x[:])}, nil
		}
	case objects.GeoPoint:
		if k == objects.KindGeoPoint { // no order: the exact part is the value (geo.go)
			return valueKey{exact: string(objects.AppendGeoPoint(nil, x))}, nil
		}
	case objects.GeoShape:
		if k == objects.KindGeoShape {
			return valueKey{exact: string(x.WKB())}, nil
		}
	case objects.Decimal:
		if k == objects.KindDecimal {
			b, err := objects.AppendKey(nil, x)
			if err != nil {
				return valueKey{}, err
			}
			b = b[1:] // drop the tag: all values of the property share it
			return valueKey{pre: binary.BigEndian.Uint64(b), exact: string(b)}, nil
		}
	}
	return valueKey{}, fmt.Errorf("a %T value is not a %s", v, k)
}

// valueOf inverts valueKeyOf for a property of type t (its primitive type).
func valueOf(t objects.DataType, vk valueKey) any {
	switch t.Kind {
	case objects.KindBoolean:
		return vk.pre == 1
	case objects.KindInteger, objects.KindLong:
		return int64(vk.pre ^ signBit)
	case objects.KindFloat, objects.KindDouble:
		return floatOfKey(vk.pre)
	case objects.KindDate:
		return objects.Date(int64(vk.pre ^ signBit))
	case objects.KindTime:
		return objects.Time(int64(vk.pre ^ signBit))
	case objects.KindTimestamp, objects.KindTimestampTZ:
		if vk.exact != "" {
			if vs, err := objects.DecodeKey([]byte(vk.exact)); err == nil && len(vs) == 1 {
				if ts, ok := vs[0].(time.Time); ok {
					return ts
				}
			}
		}
		return time.UnixMicro(int64(vk.pre ^ signBit)).UTC()
	case objects.KindString:
		return vk.exact
	case objects.KindUUID:
		var u objects.UUID
		copy(u[:], vk.exact)
		return u
	case objects.KindGeoPoint:
		p, _ := objects.DecodeGeoPoint([]byte(vk.exact))
		return p
	case objects.KindGeoShape:
		s, _ := objects.DecodeGeoShape([]byte(vk.exact))
		return s
	case objects.KindDecimal:
		raw := []byte(vk.exact)
		if len(raw) == 0 {
			return objects.Decimal{Unscaled: new(big.Int), Scale: int32(t.Scale)}
		}
		raw[0] ^= 0x80
		n := new(big.Int).SetBytes(raw)
		if raw[0]&0x80 != 0 {
			n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(len(raw)*8)))
		}
		return objects.Decimal{Unscaled: n, Scale: int32(t.Scale)}
	}
	return nil
}

// numberOf is the float64 of a numeric, date or timestamp value (dates and
// timestamps as Unix nanoseconds), as fixed-width groups and float sums
// use it.
func numberOf(t objects.DataType, vk valueKey) float64 {
	switch t.Kind {
	case objects.KindInteger, objects.KindLong:
		return float64(int64(vk.pre ^ signBit))
	case objects.KindFloat, objects.KindDouble:
		return floatOfKey(vk.pre)
	case objects.KindDecimal:
		return valueOf(t, vk).(objects.Decimal).Float64()
	case objects.KindDate:
		return float64(objects.Date(int64(vk.pre ^ signBit)).Time().UnixNano())
	case objects.KindTimestamp, objects.KindTimestampTZ:
		return float64(valueOf(t, vk).(time.Time).UnixNano())
	}
	return 0
}

// keyPre is the pre of an encoded primary key: the 8 bytes after the tag
// of its first component, which every key of a type shares.
func keyPre(key string) uint64 {
	if len(key) <= 1 {
		return 0
	}
	return prefix8(key[1:])
}
