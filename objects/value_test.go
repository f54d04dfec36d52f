package objects

import (
	"bytes"
	"math"
	"math/big"
	"slices"
	"testing"
	"time"
)

func mustDecimal(tb testing.TB, s string, scale int) Decimal {
	tb.Helper()
	d, err := ParseDecimal(s, scale)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

func TestObject_Encode(t *testing.T) {
	ts := time.Date(2024, 2, 29, 13, 14, 15, 123456789, time.UTC)
	u, _ := ParseUUID("123e4567-e89b-12d3-a456-426614174000")
	o := &Object{Values: []any{
		nil, true, false, int64(math.MaxInt64), int64(math.MinInt64), int64(9007199254740993),
		1.5, math.Inf(-1), mustDecimal(t, "-12345678901234567890.12345", 5), mustDecimal(t, "0.00", 2),
		"héllo", "", u, Date(19782), Time(3_600_000_001), ts, []any{int64(1), nil, "x"},
	}}
	enc, err := o.Encode(nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeObject(enc)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Values) != len(o.Values) {
		t.Fatalf("decoded %d values", len(got.Values))
	}
	for i := range o.Values {
		want, have := TextOf(o.Values[i]), TextOf(got.Values[i])
		if want != have {
			t.Errorf("value %d: got %q, want %q", i, have, want)
		}
	}
	if got.Values[5].(int64) != 9007199254740993 {
		t.Error("long beyond 2^53 lost precision")
	}
	if d := got.Values[8].(Decimal); d.String() != "-12345678901234567890.12345" || d.Scale != 5 {
		t.Errorf("decimal = %s scale %d", d, d.Scale)
	}
	again, _ := got.Encode(nil)
	if !bytes.Equal(enc, again) {
		t.Error("encoding is not stable across a round trip")
	}
}

func TestDecodeObject_corrupt(t *testing.T) {
	enc, _ := (&Object{Values: []any{"abc", int64(5)}}).Encode(nil)
	for i := range enc {
		if _, err := DecodeObject(enc[:i]); err == nil {
			t.Errorf("truncated at %d: no error", i)
		}
	}
}

func FuzzDecodeObject(f *testing.F) {
	enc, _ := (&Object{Values: []any{"abc", int64(5), []any{1.5}, mustDecimal(f, "1.25", 2)}}).Encode(nil)
	f.Add(enc)
	f.Add([]byte{1, tagList, 200})
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := DecodeObject(b)
		if err != nil {
			return
		}
		again, err := o.Encode(nil)
		if err != nil {
			t.Fatal(err)
		}
		o2, err := DecodeObject(again)
		if err != nil || len(o2.Values) != len(o.Values) {
			t.Fatalf("re-decode: %v", err)
		}
	})
}

func TestHash_promotion(t *testing.T) {
	// An int read before a promotion to long and a float before a promotion
	// to double encode (and hash) like the wider type.
	a, _ := (&Object{Values: []any{int64(int32(7)), float64(float32(2.25))}}).Encode(nil)
	b, _ := (&Object{Values: []any{int64(7), 2.25}}).Encode(nil)
	if Hash(a) != Hash(b) {
		t.Error("promoted values hash differently")
	}
	c, _ := (&Object{Values: []any{int64(8), 2.25}}).Encode(nil)
	if Hash(a) == Hash(c) {
		t.Error("different rows hash equal")
	}
}

func TestAppendKey_order(t *testing.T) {
	tests := []struct {
		name string
		vals []any // ascending
	}{
		{"long", []any{int64(math.MinInt64), int64(-5), int64(0), int64(3), int64(math.MaxInt64)}},
		{"string", []any{"", "\x00", "\x00\x00", "a", "a\x00", "a\x00b", "ab", "b"}},
		{"decimal", []any{mustDecimal(t, "-100.50", 2), mustDecimal(t, "-0.01", 2), mustDecimal(t, "0", 2), mustDecimal(t, "0.01", 2), mustDecimal(t, "99999999999999999999999999999999999.99", 2)}},
		{"timestamp", []any{time.Unix(-10, 5).UTC(), time.Unix(-10, 6).UTC(), time.Unix(0, 0).UTC(), time.Unix(1e9, 0).UTC()}},
		{"date", []any{Date(-3), Date(0), Date(19000)}},
		{"bool", []any{false, true}},
		{"float", []any{math.Inf(-1), -1e300, -2.5, -0.0001, 0.0, 1e-300, 2.5, math.MaxFloat64, math.Inf(1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var prev []byte
			for i, v := range tt.vals {
				k, err := AppendKey(nil, v)
				if err != nil {
					t.Fatal(err)
				}
				if i > 0 && bytes.Compare(prev, k) >= 0 {
					t.Errorf("key(%v) <= key(%v)", v, tt.vals[i-1])
				}
				prev = k
			}
		})
	}
	t.Run("composite", func(t *testing.T) {
		// ("a", 2) < ("a\x00", 1): the first component decides.
		k1, _ := AppendKey(nil, "a")
		k1, _ = AppendKey(k1, int64(2))
		k2, _ := AppendKey(nil, "a\x00")
		k2, _ = AppendKey(k2, int64(1))
		if bytes.Compare(k1, k2) >= 0 {
			t.Error("composite keys out of order")
		}
		ids := []string{DocID(k1), DocID(k2)}
		if !slices.IsSorted(ids) {
			t.Error("doc ids do not sort like keys")
		}
	})
	if _, err := AppendKey(nil, nil); err == nil {
		t.Error("null key accepted")
	}
}

func TestType_ParseKey(t *testing.T) {
	typ := NewType(Type{APIName: "Line", PrimaryKey: []string{"order", "sku"}, Properties: []Property{
		{APIName: "order", Type: DataType{Kind: KindLong}}, {APIName: "sku", Type: DataType{Kind: KindString}}}})
	o := &Object{Values: []any{int64(42), "a,b%c"}}
	s := typ.KeyString(o)
	if s != "42,a%2Cb%25c" {
		t.Fatalf("KeyString = %q", s)
	}
	k, err := typ.ParseKey(s)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := typ.Key(o)
	if !bytes.Equal(k, want) {
		t.Error("ParseKey(KeyString(o)) != Key(o)")
	}
	for _, bad := range []string{"42", "x,y", "1,2,3"} {
		if _, err := typ.ParseKey(bad); err == nil {
			t.Errorf("ParseKey(%q): no error", bad)
		}
	}
}

func FuzzType_ParseKey(f *testing.F) {
	typ := NewType(Type{APIName: "T", PrimaryKey: []string{"a", "b"}, Properties: []Property{
		{APIName: "a", Type: DataType{Kind: KindString}}, {APIName: "b", Type: DataType{Kind: KindDate}}}})
	f.Add("x,2024-01-02")
	f.Add("%2C%25,1970-01-01")
	f.Fuzz(func(t *testing.T, s string) {
		k, err := typ.ParseKey(s)
		if err != nil {
			return
		}
		// A parsed key renders back to a string that parses to the same key.
		vals, err := DecodeKey(k)
		if err != nil || len(vals) != 2 {
			t.Fatalf("DecodeKey: %v %v", vals, err)
		}
		vals[1] = Date(vals[1].(int64))
		k2, err := typ.ParseKey(typ.KeyString(&Object{Values: vals}))
		if err != nil || !bytes.Equal(k, k2) {
			t.Fatalf("round trip of %q: %v", s, err)
		}
	})
}

func TestParseDecimal(t *testing.T) {
	tests := []struct {
		in    string
		scale int
		want  string
		err   bool
	}{
		{"1.5", 2, "1.50", false},
		{"-0.001", 3, "-0.001", false},
		{"12", 0, "12", false},
		{"1.234", 2, "", true},
		{"1.230", 2, "1.23", false},
		{"abc", 2, "", true},
		{"", 2, "", true},
		{"1e5", 0, "", true},
	}
	for _, tt := range tests {
		d, err := ParseDecimal(tt.in, tt.scale)
		if (err != nil) != tt.err {
			t.Errorf("ParseDecimal(%q): err = %v", tt.in, err)
			continue
		}
		if err == nil && d.String() != tt.want {
			t.Errorf("ParseDecimal(%q) = %s, want %s", tt.in, d, tt.want)
		}
	}
	if (Decimal{Unscaled: big.NewInt(-5), Scale: 3}).String() != "-0.005" {
		t.Error("small negative decimal")
	}
}
