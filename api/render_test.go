package api

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/objects"
)

// TestRenderer_appendObject checks the direct JSON writer against
// encoding/json of objects.Type.JSON (the map the API used to encode, with
// longs as strings), on random objects with every kind of value and
// awkward strings.
func TestRenderer_appendObject(t *testing.T) {
	str := objects.DataType{Kind: objects.KindString}
	long := objects.DataType{Kind: objects.KindLong}
	typ := objects.NewType(objects.Type{APIName: "Thing", PrimaryKey: []string{"id", "code"}, TitleProperty: "name", Properties: []objects.Property{
		{APIName: "id", Type: long, Search: objects.SearchNumeric},
		{APIName: "code", Type: str, Search: objects.SearchKeyword},
		{APIName: "name", Type: str, Search: objects.SearchText},
		{APIName: "f32", Type: objects.DataType{Kind: objects.KindFloat}, Search: objects.SearchNumeric},
		{APIName: "f64", Type: objects.DataType{Kind: objects.KindDouble}, Search: objects.SearchNumeric},
		{APIName: "amount", Type: objects.DataType{Kind: objects.KindDecimal, Precision: 38, Scale: 3}, Search: objects.SearchNumeric},
		{APIName: "day", Type: objects.DataType{Kind: objects.KindDate}, Search: objects.SearchDate},
		{APIName: "at", Type: objects.DataType{Kind: objects.KindTimestampTZ}, Search: objects.SearchDate},
		{APIName: "clock", Type: objects.DataType{Kind: objects.KindTime}, Search: objects.SearchKeyword},
		{APIName: "uid", Type: objects.DataType{Kind: objects.KindUUID}, Search: objects.SearchKeyword},
		{APIName: "ok", Type: objects.DataType{Kind: objects.KindBoolean}, Search: objects.SearchBoolean},
		{APIName: "tags", Type: objects.DataType{Kind: objects.KindList, Elem: &str}, Search: objects.SearchKeyword},
		{APIName: "nums", Type: objects.DataType{Kind: objects.KindList, Elem: &long}, Search: objects.SearchNumeric},
		{APIName: "Zeta", Type: str, Search: objects.SearchNone},
	}})
	strs := []string{"", "plain", "quote\"d", "back\\slash", "<tag>&amp;", "line\nbreak\ttab\x01\x1f", "ünïcødé", "\u2028\u2029",
		"bad\xffutf8", "emoji 😀", strings.Repeat("x", 300)}
	floats := []float64{0, math.Copysign(0, -1), 1.5, -2.25e-300, 1e21, 123456789.125, math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64}
	r := rand.New(rand.NewPCG(1, 2))
	pick := func() string { return strs[r.IntN(len(strs))] }
	for i := range 2000 {
		v := make([]any, len(typ.Properties))
		v[0] = []int64{0, -1, math.MaxInt64, math.MinInt64, 1 << 53}[r.IntN(5)] + int64(i)
		v[1] = pick()
		null := func() bool { return r.IntN(4) == 0 }
		if !null() {
			v[2] = pick()
		}
		if !null() {
			v[3] = float64(float32(floats[r.IntN(len(floats))]))
		}
		if !null() {
			v[4] = floats[r.IntN(len(floats))]
		}
		if !null() {
			v[5] = objects.Decimal{Unscaled: new(big.Int).Exp(big.NewInt(-7), big.NewInt(int64(r.IntN(40))), nil), Scale: 3}
		}
		if !null() {
			v[6] = objects.Date(r.IntN(40000) - 20000)
		}
		if !null() {
			v[7] = time.Unix(int64(r.IntN(4e9))-2e9, int64(r.IntN(1e9))).UTC()
		}
		if !null() {
			v[8] = objects.Time(r.Int64N(86_400_000_000))
		}
		if !null() {
			var u objects.UUID
			for j := range u {
				u[j] = byte(r.IntN(256))
			}
			v[9] = u
		}
		if !null() {
			v[10] = r.IntN(2) == 0
		}
		if !null() {
			v[11] = []any{pick(), nil, pick()}[:r.IntN(4)]
		}
		if !null() {
			v[12] = []any{int64(r.IntN(9)), nil}[:r.IntN(3)]
		}
		if !null() {
			v[13] = pick()
		}
		o := &objects.Object{Values: v}
		key, err := typ.Key(o)
		if err != nil {
			t.Fatal(err)
		}
		for _, sel := range []selection{nil, {"id": true, "code": true, "name": true}} {
			for _, excl := range []bool{false, true} {
				m := typ.JSON(o)
				if sel != nil {
					for _, p := range typ.Properties {
						if !sel[p.APIName] {
							delete(m, p.APIName)
						}
					}
				}
				if !excl {
					m["__rid"] = objectRID(typ, key)
				}
				longsAsStrings(typ, m)
				var want bytes.Buffer
				enc := json.NewEncoder(&want)
				enc.SetEscapeHTML(false)
				if err := enc.Encode(m); err != nil {
					t.Fatal(err)
				}
				got := (&renderer{layout: layoutOf(typ), sel: sel, excludeRID: excl}).appendObject(nil, key, o)
				if w := bytes.TrimSuffix(want.Bytes(), []byte("\n")); !bytes.Equal(got, w) {
					t.Fatalf("object %d:\n got %s\nwant %s", i, got, w)
				}
			}
		}
	}
}

// longsAsStrings turns the long values of m, an objects.Type.JSON map,
// into the JSON strings the API sends (Foundry's encoding of longs, which
// JavaScript numbers cannot hold beyond 2^53): property values, array
// elements, and a primary key of one long property.
func longsAsStrings(t *objects.Type, m map[string]any) {
	str := func(v any) any {
		if n, ok := v.(json.Number); ok {
			return string(n)
		}
		return v
	}
	for _, p := range t.Properties {
		if p.Type.Primitive().Kind != objects.KindLong {
			continue
		}
		switch v := m[p.APIName].(type) {
		case []any:
			for i := range v {
				v[i] = str(v[i])
			}
		case nil:
		default:
			m[p.APIName] = str(v)
		}
	}
	if len(t.PrimaryKey) == 1 {
		if p, _ := t.Property(t.PrimaryKey[0]); p.Type.Kind == objects.KindLong {
			m["__primaryKey"] = str(m["__primaryKey"])
		}
	}
}

// objectRID is the rid of an object as the wire defines it: its type and
// search document id (the renderer writes it without building a string).
func objectRID(t *objects.Type, key []byte) string {
	return wire.ObjectRIDPrefix + t.APIName + "." + objects.DocID(key)
}
