package objects

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/zeebo/xxh3"
)

// Property values are held as these Go types:
//
//	null                 nil
//	boolean              bool
//	integer, long        int64
//	float, double        float64 (a float widens exactly)
//	decimal              Decimal
//	string               string
//	uuid                 UUID
//	date                 Date
//	time                 Time
//	timestamp(tz)        time.Time in UTC
//	list                 []any of the above
//	geopoint             GeoPoint
//	geoshape             GeoShape
//
// Integers and floats share one representation whatever their width, so a
// type promotion (int to long, float to double) neither changes the stored
// bytes nor the row hash.

// Decimal is an exact decimal number: Unscaled * 10^-Scale.
type Decimal struct {
	Unscaled *big.Int
	Scale    int32
}

// String renders the decimal with exactly Scale fractional digits.
func (d Decimal) String() string {
	if d.Unscaled == nil {
		return "0"
	}
	s := new(big.Int).Abs(d.Unscaled).String()
	neg := d.Unscaled.Sign() < 0
	if d.Scale > 0 {
		if len(s) <= int(d.Scale) {
			s = strings.Repeat("0", int(d.Scale)-len(s)+1) + s
		}
		s = s[:len(s)-int(d.Scale)] + "." + s[len(s)-int(d.Scale):]
	} else if d.Scale < 0 {
		s += strings.Repeat("0", int(-d.Scale))
	}
	if neg {
		s = "-" + s
	}
	return s
}

// Float64 approximates the decimal, for search and aggregation.
func (d Decimal) Float64() float64 {
	if d.Unscaled == nil {
		return 0
	}
	f, _ := new(big.Float).SetInt(d.Unscaled).Float64()
	return f / math.Pow10(int(d.Scale))
}

// UUID is a 16-byte UUID.
type UUID [16]byte

func (u UUID) String() string {
	const hexd = "0123456789abcdef"
	var b [36]byte
	j := 0
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b[j] = '-'
			j++
		}
		b[j], b[j+1] = hexd[c>>4], hexd[c&0xf]
		j += 2
	}
	return string(b[:])
}

// ParseUUID parses the canonical 36-character form.
func ParseUUID(s string) (UUID, error) {
	var u UUID
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, fmt.Errorf("invalid uuid %q", s)
	}
	j := 0
	for i := 0; i < 36; {
		if s[i] == '-' {
			i++
			continue
		}
		hi, ok1 := unhex(s[i])
		lo, ok2 := unhex(s[i+1])
		if !ok1 || !ok2 {
			return u, fmt.Errorf("invalid uuid %q", s)
		}
		u[j] = hi<<4 | lo
		j++
		i += 2
	}
	return u, nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// Date is a calendar date, as days since 1970-01-01.
type Date int32

func (d Date) String() string { return d.Time().Format(time.DateOnly) }

// Time returns midnight UTC of the date.
func (d Date) Time() time.Time { return time.Unix(int64(d)*86400, 0).UTC() }

// Time is a time of day, in microseconds since midnight.
type Time int64

func (t Time) String() string {
	us := int64(t)
	h, m, s, f := us/3_600_000_000, us/60_000_000%60, us/1_000_000%60, us%1_000_000
	return fmt.Sprintf("%02d:%02d:%02d.%06d", h, m, s, f)
}

// Value tags of the store encoding. Append only.
const (
	tagNull byte = iota
	tagFalse
	tagTrue
	tagInt
	tagFloat
	tagDecimal
	tagString
	tagUUID
	tagDate
	tagTime
	tagTimestamp
	tagList
	tagGeoPoint // longitude, latitude: two little-endian float64s
	tagGeoShape // uvarint length, WKB
)

// ErrCorrupt reports stored bytes that do not decode.
var ErrCorrupt = errors.New("corrupt object encoding")

// AppendValue appends the store encoding of v.
func AppendValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, tagNull), nil
	case bool:
		if x {
			return append(b, tagTrue), nil
		}
		return append(b, tagFalse), nil
	case int64:
		return binary.AppendVarint(append(b, tagInt), x), nil
	case float64:
		return binary.LittleEndian.AppendUint64(append(b, tagFloat), math.Float64bits(x)), nil
	case Decimal:
		b = binary.AppendVarint(append(b, tagDecimal), int64(x.Scale))
		raw := twosComplement(x.Unscaled)
		b = binary.AppendUvarint(b, uint64(len(raw)))
		return append(b, raw...), nil
	case string:
		b = binary.AppendUvarint(append(b, tagString), uint64(len(x)))
		return append(b, x...), nil
	case UUID:
		return append(append(b, tagUUID), x[:]...), nil
	case Date:
		return binary.AppendVarint(append(b, tagDate), int64(x)), nil
	case Time:
		return binary.AppendVarint(append(b, tagTime), int64(x)), nil
	case time.Time:
		b = binary.AppendVarint(append(b, tagTimestamp), x.Unix())
		return binary.AppendUvarint(b, uint64(x.Nanosecond())), nil
	case GeoPoint:
		return AppendGeoPoint(append(b, tagGeoPoint), x), nil
	case GeoShape:
		wkb := x.WKB()
		b = binary.AppendUvarint(append(b, tagGeoShape), uint64(len(wkb)))
		return append(b, wkb...), nil
	case Vector:
		return appendVector(b, x), nil
	case []any:
		b = binary.AppendUvarint(append(b, tagList), uint64(len(x)))
		var err error
		for _, e := range x {
			if b, err = AppendValue(b, e); err != nil {
				return nil, err
			}
		}
		return b, nil
	}
	return nil, fmt.Errorf("unsupported value type %T", v)
}

// twosComplement is the minimal big-endian two's complement form of n.
func twosComplement(n *big.Int) []byte {
	if n == nil || n.Sign() == 0 {
		return nil
	}
	if n.Sign() > 0 {
		b := n.Bytes()
		if b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// -n-1 in bytes, inverted.
	m := new(big.Int).Neg(n)
	m.Sub(m, big.NewInt(1))
	b := m.Bytes()
	for i := range b {
		b[i] = ^b[i]
	}
	if len(b) == 0 || b[0]&0x80 == 0 {
		b = append([]byte{0xff}, b...)
	}
	return b
}

func fromTwosComplement(b []byte) *big.Int {
	n := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(len(b)*8)))
	}
	return n
}

// ReadValue decodes one value and returns the rest of b.
func ReadValue(b []byte) (any, []byte, error) {
	if len(b) == 0 {
		return nil, nil, ErrCorrupt
	}
	tag, b := b[0], b[1:]
	switch tag {
	case tagNull:
		return nil, b, nil
	case tagFalse:
		return false, b, nil
	case tagTrue:
		return true, b, nil
	case tagInt, tagDate, tagTime:
		v, n := binary.Varint(b)
		if n <= 0 {
			return nil, nil, ErrCorrupt
		}
		switch tag {
		case tagDate:
			return Date(v), b[n:], nil
		case tagTime:
			return Time(v), b[n:], nil
		}
		return v, b[n:], nil
	case tagFloat:
		if len(b) < 8 {
			return nil, nil, ErrCorrupt
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), b[8:], nil
	case tagDecimal:
		scale, n := binary.Varint(b)
		if n <= 0 {
			return nil, nil, ErrCorrupt
		}
		b = b[n:]
		l, n := binary.Uvarint(b)
		if n <= 0 || uint64(len(b)-n) < l {
			return nil, nil, ErrCorrupt
		}
		b = b[n:]
		return Decimal{Unscaled: fromTwosComplement(b[:l]), Scale: int32(scale)}, b[l:], nil
	case tagString:
		l, n := binary.Uvarint(b)
		if n <= 0 || uint64(len(b)-n) < l {
			return nil, nil, ErrCorrupt
		}
		b = b[n:]
		return string(b[:l]), b[l:], nil
	case tagUUID:
		if len(b) < 16 {
			return nil, nil, ErrCorrupt
		}
		var u UUID
		copy(u[:], b)
		return u, b[16:], nil
	case tagTimestamp:
		sec, n := binary.Varint(b)
		if n <= 0 {
			return nil, nil, ErrCorrupt
		}
		b = b[n:]
		ns, n := binary.Uvarint(b)
		if n <= 0 || ns >= 1e9 {
			return nil, nil, ErrCorrupt
		}
		return time.Unix(sec, int64(ns)).UTC(), b[n:], nil
	case tagGeoPoint:
		p, ok := DecodeGeoPoint(b)
		if !ok {
			return nil, nil, ErrCorrupt
		}
		return p, b[16:], nil
	case tagGeoShape:
		l, n := binary.Uvarint(b)
		if n <= 0 || uint64(len(b)-n) < l {
			return nil, nil, ErrCorrupt
		}
		b = b[n:]
		shape, err := decodeGeoShape(b[:l])
		if err != nil {
			return nil, nil, ErrCorrupt
		}
		return shape, b[l:], nil
	case tagVector:
		return readVector(b)
	case tagList:
		l, n := binary.Uvarint(b)
		if n <= 0 || l > uint64(len(b)) {
			return nil, nil, ErrCorrupt
		}
		b = b[n:]
		out := make([]any, 0, l)
		for range l {
			var v any
			var err error
			if v, b, err = ReadValue(b); err != nil {
				return nil, nil, err
			}
			out = append(out, v)
		}
		return out, b, nil
	}
	return nil, nil, ErrCorrupt
}

// Object is one object: its property values in the order of its type's
// properties.
type Object struct {
	Values []any
}

// Encode returns the store encoding of the object.
func (o *Object) Encode(b []byte) ([]byte, error) {
	b = binary.AppendUvarint(b, uint64(len(o.Values)))
	var err error
	for _, v := range o.Values {
		if b, err = AppendValue(b, v); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// DecodeObject decodes an object encoding.
func DecodeObject(b []byte) (*Object, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, ErrCorrupt
	}
	b = b[k:]
	o := &Object{Values: make([]any, n)}
	for i := range o.Values {
		var err error
		if o.Values[i], b, err = ReadValue(b); err != nil {
			return nil, err
		}
	}
	if len(b) != 0 {
		return nil, ErrCorrupt
	}
	return o, nil
}

// Hash is the row hash of an encoded object: equal encodings, equal hashes.
func Hash(encoded []byte) uint64 { return xxh3.Hash(encoded) }
