package api_test

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/objects"
)

// The random values of the differential test's table: the schema (every
// property type, nulls everywhere but the key, a property that is not
// searchable) and value generators that make ties, byte-order edge cases
// and, unless -differential.safe, values the float64 approximations of the
// current engine cannot tell apart.

// dfCol is one column; its property has the same apiName.
type dfCol struct {
	name string
	typ  iceberg.Type
	role objects.SearchRole // "" = the default role of the type
	req  bool
	gen  func(g *dfGen) any // a random value, typed as objects holds it
}

// dfGen draws values. safe keeps them to what the current engine's float64
// search fields represent exactly.
type dfGen struct {
	r     *rand.Rand
	safe  bool
	scale int             // of the decimal column
	avoid map[string]bool // -differential.avoid
}

func (g *dfGen) pct(p int) bool { return g.r.IntN(100) < p }

// pick draws from s; with avoid=empty never "".
func (g *dfGen) pick(s []string) string {
	for {
		if v := s[g.r.IntN(len(s))]; v != "" || !g.avoid["empty"] {
			return v
		}
	}
}

// Words of text values: case variants, shared prefixes, near misses for
// fuzzy matching (alpha/alpah), multi-byte letters, ideographs.
var dfWords = []string{"red", "Red", "RED", "fox", "foxes", "jump", "jumps", "jumped", "quick", "quack",
	"lazy", "dog", "dogs", "über", "Über", "naïve", "café", "日本", "x", "xy", "a1", "b2", "alpha", "alpah",
	"alpaca", "beta", "better", "bitter", "zeta", "ab", "abc", "abd", "straße", "Ωmega"}

var dfSeps = []string{" ", " ", " ", ", ", "-", ". ", "! ", "/", " (", ") ", " & ", "…", "\t"}

// Strings whose byte order differs from any case-insensitive or
// locale order, and characters wildcard and regex patterns must escape.
var dfStrs = []string{"", "a", "A", "b", "B", "Z", "z", "aa", "aA", "Aa", "a b", "a-b", "a_b", "a,b",
	"a%b", "a*b", "a?b", `a\b`, "a.b", "a+b", "(a)", "[a]", "é", "É", "e\u0301", "ß", "SS", "日本",
	"日本語", "😀", "😀x", "~", "!", "0", "00", "1", "10", "9", "Ω", "ω", "ñ", "n", "a|b", "{x}"}

var dfCats = []string{"alpha", "Alpha", "beta", "", "gamma delta", "Ω", "beta "}

var dfTags = []string{"alpha", "Alpha", "beta", "", "gamma delta", "Ω", "beta ", "A", "a", "日本", "x*y"}

var dfCodes = []string{"A", "b", "a,b", "100%", "", "x%2Cy", "日本", "z", "Z", "a b"}

func (g *dfGen) text() any {
	switch {
	case g.pct(8):
		return nil
	case g.pct(3) && !g.avoid["empty"]:
		return ""
	}
	var b strings.Builder
	for i := range 1 + g.r.IntN(6) {
		if i > 0 {
			b.WriteString(g.pick(dfSeps))
		}
		b.WriteString(g.pick(dfWords))
	}
	if g.pct(20) {
		b.WriteString(g.pick([]string{"!", ".", "?", " "}))
	}
	return b.String()
}

func (g *dfGen) name() any {
	if g.pct(5) {
		return nil
	}
	s := g.pick(dfStrs)
	if g.pct(60) {
		s += g.pick(dfStrs)
	}
	if g.pct(50) {
		s += fmt.Sprint(g.r.IntN(100))
	}
	return s
}

// bigLong clusters longs where float64 cannot tell neighbours apart
// (beyond 2^53, near ±2^63) unless safe.
func (g *dfGen) bigLong() int64 {
	k := g.r.Int64N(40)
	if g.safe {
		switch g.r.IntN(4) {
		case 0:
			return 1<<52 + k
		case 1:
			return -(1 << 52) - k
		case 2:
			return g.r.Int64N(1<<53) - 1<<52
		}
		return g.r.Int64N(1000) - 500
	}
	switch g.r.IntN(6) {
	case 0:
		return math.MaxInt64 - k
	case 1:
		return math.MinInt64 + k
	case 2:
		return 1<<53 + k
	case 3:
		return -(1 << 62) - k*2
	case 4:
		return int64(g.r.Uint64())
	}
	return g.r.Int64N(1000) - 500
}

func (g *dfGen) double() any {
	switch {
	case g.pct(10):
		return nil
	case !g.safe && g.pct(4):
		return math.NaN()
	case !g.safe && g.pct(4):
		return math.Copysign(0, -1)
	case g.pct(5):
		return 0.0
	case g.pct(35):
		return float64(g.r.IntN(81)-40) / 4 // ties, exact sums
	}
	return math.Round(g.r.NormFloat64()*1e6) / 64
}

// decimal: scale 3 and at most 15 digits when safe; else decimal(38,10)
// values of 30+ digits that differ only in their last digits.
func (g *dfGen) decimal() any {
	if g.pct(8) {
		return nil
	}
	u := new(big.Int)
	if g.safe {
		if g.pct(30) {
			u.SetInt64(int64(g.r.IntN(9)-4) * 250)
		} else {
			u.SetInt64(g.r.Int64N(2e12) - 1e12)
		}
		return objects.Decimal{Unscaled: u, Scale: int32(g.scale)}
	}
	switch g.r.IntN(4) {
	case 0:
		u.SetInt64(int64(g.r.IntN(9)-4) * 2_500_000_000)
	case 1: // 38 digits, neighbours
		u.Exp(big.NewInt(10), big.NewInt(37), nil)
		u.Add(u, big.NewInt(g.r.Int64N(30)))
		if g.pct(50) {
			u.Neg(u)
		}
	default: // 30-35 digits
		u.Exp(big.NewInt(10), big.NewInt(int64(29+g.r.IntN(6))), nil)
		u.Mul(u, big.NewInt(g.r.Int64N(9)+1))
		u.Add(u, big.NewInt(g.r.Int64N(1000)-500))
		if g.pct(40) {
			u.Neg(u)
		}
	}
	return objects.Decimal{Unscaled: u, Scale: int32(g.scale)}
}

func (g *dfGen) date() any {
	switch {
	case g.pct(8):
		return nil
	case g.pct(40):
		return objects.Date(18000 + g.r.IntN(12)*30) // ties
	}
	return objects.Date(g.r.IntN(70000) - 25000) // 1901..2161
}

func (g *dfGen) timestamp() any {
	switch {
	case g.pct(8):
		return nil
	case g.pct(25):
		return time.Unix(1_700_000_000+int64(g.r.IntN(6))*3600, 0).UTC()
	}
	sec := g.r.Int64N(4_000_000_000) - 500_000_000
	return time.Unix(sec, int64(g.r.IntN(1_000_000))*1000).UTC()
}

func (g *dfGen) list(elem func() any) any {
	switch {
	case g.pct(10):
		return nil
	case g.pct(10):
		return []any{}
	}
	out := []any{}
	for range 1 + g.r.IntN(4) {
		if g.pct(5) {
			out = append(out, nil)
			continue
		}
		e := elem()
		if g.avoid["dups"] && slices.ContainsFunc(out, func(x any) bool { return x != nil && dfCmp(x, e) == 0 }) {
			continue
		}
		out = append(out, e)
		if g.pct(10) && !g.avoid["dups"] {
			out = append(out, e) // duplicate elements
		}
	}
	return out
}

func nullOr(g *dfGen, p int, v any) any {
	if g.pct(p) {
		return nil
	}
	return v
}

// dfColumns is the schema; composite adds code to the primary key.
func dfColumns(composite bool, scale int, safe bool) []dfCol {
	decType := iceberg.DecimalTypeOf(38, scale)
	if safe {
		decType = iceberg.DecimalTypeOf(15, scale)
	}
	strList := func(id int) iceberg.Type {
		return &iceberg.ListType{ElementID: id, Element: iceberg.PrimitiveTypes.String}
	}
	return []dfCol{
		{name: "id", typ: iceberg.PrimitiveTypes.Int64, req: true},
		{name: "code", typ: iceberg.PrimitiveTypes.String, role: objects.SearchKeyword, req: composite, gen: func(g *dfGen) any {
			if !composite && g.pct(10) {
				return nil
			}
			return g.pick(dfCodes)
		}},
		{name: "title", typ: iceberg.PrimitiveTypes.String, role: objects.SearchText, gen: (*dfGen).text},
		{name: "name", typ: iceberg.PrimitiveTypes.String, role: objects.SearchKeyword, gen: (*dfGen).name},
		{name: "cat", typ: iceberg.PrimitiveTypes.String, role: objects.SearchKeyword, gen: func(g *dfGen) any { return nullOr(g, 10, g.pick(dfCats)) }},
		{name: "qty", typ: iceberg.PrimitiveTypes.Int64, gen: func(g *dfGen) any {
			if !g.safe && g.pct(3) {
				return int64(math.MaxInt64 - g.r.IntN(2))
			}
			return nullOr(g, 10, int64(g.r.IntN(9)-2))
		}},
		{name: "big", typ: iceberg.PrimitiveTypes.Int64, gen: func(g *dfGen) any { return nullOr(g, 6, g.bigLong()) }},
		{name: "n32", typ: iceberg.PrimitiveTypes.Int32, gen: func(g *dfGen) any {
			switch {
			case g.pct(3):
				return int64(math.MaxInt32)
			case g.pct(3):
				return int64(math.MinInt32)
			case g.pct(40):
				return int64(g.r.IntN(20))
			}
			return nullOr(g, 8, int64(g.r.Int32()))
		}},
		{name: "score", typ: iceberg.PrimitiveTypes.Float64, gen: (*dfGen).double},
		{name: "price", typ: decType, gen: (*dfGen).decimal},
		{name: "day", typ: iceberg.PrimitiveTypes.Date, gen: (*dfGen).date},
		{name: "at", typ: iceberg.PrimitiveTypes.TimestampTz, gen: (*dfGen).timestamp},
		{name: "flag", typ: iceberg.PrimitiveTypes.Bool, gen: func(g *dfGen) any { return nullOr(g, 10, g.pct(40)) }},
		{name: "tags", typ: strList(101), role: objects.SearchKeyword, gen: func(g *dfGen) any {
			return g.list(func() any { return g.pick(dfTags) })
		}},
		{name: "labels", typ: strList(102), role: objects.SearchText, gen: func(g *dfGen) any {
			return g.list(func() any {
				if v := g.text(); v != nil {
					return v
				}
				return "red fox"
			})
		}},
		{name: "nums", typ: &iceberg.ListType{ElementID: 103, Element: iceberg.PrimitiveTypes.Int64}, gen: func(g *dfGen) any {
			return g.list(func() any {
				if !g.safe && g.pct(10) {
					return g.bigLong()
				}
				return int64(g.r.IntN(12) - 3)
			})
		}},
		{name: "note", typ: iceberg.PrimitiveTypes.String, role: objects.SearchNone, gen: func(g *dfGen) any { return nullOr(g, 20, g.pick(dfWords)) }},
	}
}
