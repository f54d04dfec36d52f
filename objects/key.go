package objects

import (
	"encoding/base32"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// Primary keys are stored in an order-preserving binary form: comparing two
// encoded keys byte-wise orders them like their values, component by
// component. bbolt iterates objects in that order, which makes exports and
// listings sorted by primary key, and search ties broken by key total.

const (
	keyTagBool      byte = 0x08
	keyTagInt       byte = 0x10
	keyTagFloat     byte = 0x14
	keyTagDecimal   byte = 0x18
	keyTagString    byte = 0x20
	keyTagUUID      byte = 0x28
	keyTagTimestamp byte = 0x30
)

// ErrNullKey reports a primary key component that is null.
var ErrNullKey = errors.New("primary key is null")

// AppendKey appends the order-preserving encoding of one key component.
func AppendKey(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return nil, ErrNullKey
	case bool:
		if x {
			return append(b, keyTagBool, 1), nil
		}
		return append(b, keyTagBool, 0), nil
	case int64:
		return binary.BigEndian.AppendUint64(append(b, keyTagInt), uint64(x)^(1<<63)), nil
	case float64:
		// IEEE 754 order: flip the sign bit of positives, every bit of
		// negatives. Floats are not primary keys; this serves sorting.
		u := math.Float64bits(x)
		if u>>63 == 1 {
			u = ^u
		} else {
			u |= 1 << 63
		}
		return binary.BigEndian.AppendUint64(append(b, keyTagFloat), u), nil
	case Date:
		return binary.BigEndian.AppendUint64(append(b, keyTagInt), uint64(int64(x))^(1<<63)), nil
	case Time:
		return binary.BigEndian.AppendUint64(append(b, keyTagInt), uint64(int64(x))^(1<<63)), nil
	case Decimal:
		raw := twosComplement(x.Unscaled)
		if len(raw) > 16 {
			return nil, fmt.Errorf("decimal key %s out of range", x)
		}
		var buf [16]byte
		fill := byte(0)
		if x.Unscaled != nil && x.Unscaled.Sign() < 0 {
			fill = 0xff
		}
		for i := range buf {
			buf[i] = fill
		}
		copy(buf[16-len(raw):], raw)
		buf[0] ^= 0x80
		return append(append(b, keyTagDecimal), buf[:]...), nil
	case string:
		b = append(b, keyTagString)
		for i := 0; i < len(x); i++ {
			if x[i] == 0 {
				b = append(b, 0, 0xff)
			} else {
				b = append(b, x[i])
			}
		}
		return append(b, 0, 1), nil
	case UUID:
		return append(append(b, keyTagUUID), x[:]...), nil
	case time.Time:
		b = binary.BigEndian.AppendUint64(append(b, keyTagTimestamp), uint64(x.Unix())^(1<<63))
		return binary.BigEndian.AppendUint32(b, uint32(x.Nanosecond())), nil
	}
	return nil, fmt.Errorf("type %T cannot be part of a primary key", v)
}

// Key returns the encoded primary key of an object of type t.
func (t *Type) Key(o *Object) ([]byte, error) { return t.AppendKey(nil, o) }

// AppendKey appends the encoded primary key of an object of type t to b:
// for the key of each row a build reads, without a slice of its own or a
// lookup of the key's properties by name.
func (t *Type) AppendKey(b []byte, o *Object) ([]byte, error) {
	idx := t.keyIdx
	if idx == nil {
		idx = t.KeyIndexes()
	}
	for _, i := range idx {
		var err error
		if b, err = AppendKey(b, o.Values[i]); err != nil {
			if errors.Is(err, ErrNullKey) {
				return nil, fmt.Errorf("%w: %s", ErrNullKey, t.Properties[i].APIName)
			}
			return nil, err
		}
	}
	return b, nil
}

// docIDEncoding keeps byte order: base32hex without padding sorts like the
// bytes it encodes, so search ties broken by document id follow key order.
var docIDEncoding = base32.HexEncoding.WithPadding(base32.NoPadding)

// DocID is the search document id of an encoded key.
func DocID(key []byte) string { return docIDEncoding.EncodeToString(key) }

// AppendDocID appends the DocID of key.
func AppendDocID(b, key []byte) []byte { return docIDEncoding.AppendEncode(b, key) }

// KeyFromDocID inverts DocID.
func KeyFromDocID(id string) ([]byte, error) { return docIDEncoding.DecodeString(id) }

// KeyString is the primary key as users address it: the single key value's
// text, or for composite keys the components' texts joined by ",", with
// "%" and "," inside a component escaped as %25 and %2C.
func (t *Type) KeyString(o *Object) string {
	idx := t.KeyIndexes()
	if len(idx) == 1 {
		return TextOf(o.Values[idx[0]])
	}
	parts := make([]string, len(idx))
	for i, j := range idx {
		s := TextOf(o.Values[j])
		s = strings.ReplaceAll(s, "%", "%25")
		parts[i] = strings.ReplaceAll(s, ",", "%2C")
	}
	return strings.Join(parts, ",")
}

// KeyJSON is the value of __primaryKey: the typed value for single keys, the
// KeyString for composite ones.
func (t *Type) KeyJSON(o *Object) any {
	idx := t.KeyIndexes()
	if len(idx) == 1 {
		return JSONValue(t.Properties[idx[0]].Type, o.Values[idx[0]])
	}
	return t.KeyString(o)
}

// ParseKey parses a KeyString into the encoded key.
func (t *Type) ParseKey(s string) ([]byte, error) {
	idx := t.KeyIndexes()
	parts := []string{s}
	if len(idx) > 1 {
		parts = strings.Split(s, ",")
		if len(parts) != len(idx) {
			return nil, fmt.Errorf("primary key %q of %s needs %d comma-separated components (%s)", s, t.APIName, len(idx), joinNames(t.PrimaryKey))
		}
		for i, p := range parts {
			p = strings.ReplaceAll(p, "%2C", ",")
			p = strings.ReplaceAll(p, "%2c", ",")
			parts[i] = strings.ReplaceAll(p, "%25", "%")
		}
	}
	var b []byte
	for i, j := range idx {
		p := t.Properties[j]
		v, err := ParseText(p.Type, parts[i])
		if err != nil {
			return nil, fmt.Errorf("primary key property %s: %w", p.APIName, err)
		}
		if b, err = AppendKey(b, v); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// TextOf renders a value as plain text (the form keys and exact matches use).
func TextOf(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case Decimal:
		return x.String()
	case string:
		return x
	case UUID:
		return x.String()
	case Date:
		return x.String()
	case Time:
		return x.String()
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	}
	return fmt.Sprint(v)
}

// ParseText parses the text form of a value of type t.
func ParseText(t DataType, s string) (any, error) {
	switch t.Kind {
	case KindBoolean:
		return strconv.ParseBool(s)
	case KindInteger, KindLong:
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", s)
		}
		if t.Kind == KindInteger && (v < -1<<31 || v > 1<<31-1) {
			return nil, fmt.Errorf("%q is out of range for integer", s)
		}
		return v, nil
	case KindFloat, KindDouble:
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", s)
		}
		return v, nil
	case KindDecimal:
		return ParseDecimal(s, t.Scale)
	case KindString:
		return s, nil
	case KindUUID:
		return ParseUUID(s)
	case KindDate:
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			return nil, fmt.Errorf("%q is not a date (YYYY-MM-DD)", s)
		}
		return Date(d.Unix() / 86400), nil
	case KindTime:
		d, err := time.Parse("15:04:05.999999", s)
		if err != nil {
			return nil, fmt.Errorf("%q is not a time (HH:MM:SS[.ffffff])", s)
		}
		return Time(int64(d.Hour())*3_600_000_000 + int64(d.Minute())*60_000_000 + int64(d.Second())*1_000_000 + int64(d.Nanosecond()/1000)), nil
	case KindTimestamp, KindTimestampTZ:
		ts, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return nil, fmt.Errorf("%q is not an RFC 3339 timestamp", s)
		}
		return ts.UTC(), nil
	}
	return nil, fmt.Errorf("cannot parse a value of type %s", t)
}

// ParseDecimal parses a decimal and rescales it to scale; digits beyond the
// scale are an error, not rounded.
func ParseDecimal(s string, scale int) (Decimal, error) {
	str := strings.TrimSpace(s)
	neg := strings.HasPrefix(str, "-")
	str = strings.TrimPrefix(strings.TrimPrefix(str, "-"), "+")
	intPart, frac, _ := strings.Cut(str, ".")
	if intPart == "" && frac == "" {
		return Decimal{}, fmt.Errorf("%q is not a decimal", s)
	}
	if len(frac) > scale {
		trimmed := strings.TrimRight(frac[scale:], "0")
		if trimmed != "" {
			return Decimal{}, fmt.Errorf("%q has more than %d fractional digits", s, scale)
		}
		frac = frac[:scale]
	}
	frac += strings.Repeat("0", scale-len(frac))
	n, ok := new(big.Int).SetString(intPart+frac, 10)
	if !ok || strings.ContainsAny(intPart+frac, "+-") {
		return Decimal{}, fmt.Errorf("%q is not a decimal", s)
	}
	if neg {
		n.Neg(n)
	}
	return Decimal{Unscaled: n, Scale: int32(scale)}, nil
}

// DecodeKey decodes an encoded primary key into its component values.
// Integers, dates and times come back as int64 and decimals as their
// unscaled *big.Int: the key alone does not carry the column types.
func DecodeKey(key []byte) ([]any, error) {
	var out []any
	for len(key) > 0 {
		tag := key[0]
		key = key[1:]
		switch tag {
		case keyTagBool:
			if len(key) < 1 {
				return nil, ErrCorrupt
			}
			out, key = append(out, key[0] == 1), key[1:]
		case keyTagInt:
			if len(key) < 8 {
				return nil, ErrCorrupt
			}
			out, key = append(out, int64(binary.BigEndian.Uint64(key)^(1<<63))), key[8:]
		case keyTagFloat:
			if len(key) < 8 {
				return nil, ErrCorrupt
			}
			u := binary.BigEndian.Uint64(key)
			if u>>63 == 1 {
				u &^= 1 << 63
			} else {
				u = ^u
			}
			out, key = append(out, math.Float64frombits(u)), key[8:]
		case keyTagDecimal:
			if len(key) < 16 {
				return nil, ErrCorrupt
			}
			raw := append([]byte(nil), key[:16]...)
			raw[0] ^= 0x80
			out, key = append(out, fromTwosComplement(raw)), key[16:]
		case keyTagString:
			var s []byte
			i := 0
			for {
				if i+1 >= len(key) {
					return nil, ErrCorrupt
				}
				if key[i] == 0 {
					if key[i+1] == 1 {
						break
					}
					if key[i+1] != 0xff {
						return nil, ErrCorrupt
					}
					s = append(s, 0)
					i += 2
					continue
				}
				s = append(s, key[i])
				i++
			}
			out, key = append(out, string(s)), key[i+2:]
		case keyTagUUID:
			if len(key) < 16 {
				return nil, ErrCorrupt
			}
			var u UUID
			copy(u[:], key)
			out, key = append(out, u), key[16:]
		case keyTagTimestamp:
			if len(key) < 12 {
				return nil, ErrCorrupt
			}
			sec := int64(binary.BigEndian.Uint64(key) ^ (1 << 63))
			out, key = append(out, time.Unix(sec, int64(binary.BigEndian.Uint32(key[8:]))).UTC()), key[12:]
		default:
			return nil, ErrCorrupt
		}
	}
	return out, nil
}
