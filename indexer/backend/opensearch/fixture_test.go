package opensearch

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"time"

	"github.com/ontoindex/ontoindex/objects"
)

// flightType is an object type with a property of every mapped kind and
// role, a struct among them.
func flightType() *objects.Type {
	p := func(name string, t objects.DataType, role objects.SearchRole) objects.Property {
		return objects.Property{APIName: name, Column: name, Type: t, Search: role}
	}
	k := func(kind objects.Kind) objects.DataType { return objects.DataType{Kind: kind} }
	str := k(objects.KindString)
	return objects.NewType(objects.Type{
		APIName: "Flight", PrimaryKey: []string{"id"}, TitleProperty: "name",
		Properties: []objects.Property{
			p("id", str, objects.SearchKeyword),
			p("name", str, objects.SearchText),
			p("seats", k(objects.KindLong), objects.SearchNumeric),
			p("gate", k(objects.KindInteger), objects.SearchNumeric),
			p("fare", objects.DataType{Kind: objects.KindDecimal, Precision: 10, Scale: 2}, objects.SearchNumeric),
			p("delay", k(objects.KindDouble), objects.SearchNumeric),
			p("onTime", k(objects.KindBoolean), objects.SearchBoolean),
			p("day", k(objects.KindDate), objects.SearchDate),
			p("departs", k(objects.KindTimestampTZ), objects.SearchDate),
			p("ref", k(objects.KindUUID), objects.SearchKeyword),
			p("loc", k(objects.KindGeoPoint), objects.SearchNone),
			p("area", k(objects.KindGeoShape), objects.SearchNone),
			p("tags", objects.DataType{Kind: objects.KindList, Elem: &str}, objects.SearchKeyword),
			p("note", str, objects.SearchNone),
			{APIName: "crew", Column: "crew", Type: k(objects.KindStruct), Search: objects.SearchNone},
			{APIName: "crew.captain", Column: "crew", Type: str, Search: objects.SearchKeyword, Struct: "crew", Field: "captain"},
			{APIName: "crew.size", Column: "crew", Type: k(objects.KindLong), Search: objects.SearchNumeric, Struct: "crew", Field: "size"},
		},
	})
}

// Positions of flightType's properties.
const (
	pID = iota
	pName
	pSeats
	pGate
	pFare
	pDelay
	pOnTime
	pDay
	pDeparts
	pRef
	pLoc
	pArea
	pTags
	pNote
	pCrew
	pCaptain
	pCrewSize
	pCount
)

// randomFlight is flight number n with random values, some of them null.
func randomFlight(r *rand.Rand, n int) *objects.Object {
	v := make([]any, pCount)
	v[pID] = fmt.Sprintf("F%05d", n)
	maybe := func(i int, x any) {
		if r.IntN(5) > 0 {
			v[i] = x
		}
	}
	words := []string{"red", "eye", "shuttle", "night", "cargo", "charter"}
	maybe(pName, words[r.IntN(len(words))]+" "+words[r.IntN(len(words))])
	maybe(pSeats, int64(r.IntN(400)))
	maybe(pGate, int64(r.IntN(60)-5))
	maybe(pFare, objects.Decimal{Unscaled: big.NewInt(int64(r.IntN(100000))), Scale: 2})
	maybe(pDelay, float64(r.IntN(1000))/8)
	maybe(pOnTime, r.IntN(2) == 0)
	maybe(pDay, objects.Date(18000+r.IntN(3000)))
	maybe(pDeparts, time.Unix(1.6e9+r.Int64N(1e8), r.Int64N(1e6)*1000).UTC())
	maybe(pRef, objects.UUID{byte(n), byte(n >> 8), 1, 2, 3})
	if p, err := objects.NewGeoPoint(r.Float64()*360-180, r.Float64()*180-90); err == nil {
		maybe(pLoc, p)
	}
	if s, err := objects.ParseGeoShape(fmt.Sprintf("POLYGON((%d 1, %d 1, %d 2, %d 1))", n%100, n%100+1, n%100+1, n%100)); err == nil {
		maybe(pArea, s)
	}
	if r.IntN(2) == 0 {
		v[pTags] = []any{words[r.IntN(len(words))], words[r.IntN(len(words))]}
	}
	maybe(pNote, "note "+fmt.Sprint(n))
	if r.IntN(3) > 0 {
		v[pCrew] = true
		maybe(pCaptain, words[r.IntN(len(words))])
		maybe(pCrewSize, int64(r.IntN(12)))
	}
	return &objects.Object{Values: v}
}

// key is the encoded primary key of a flight.
func key(t *objects.Type, o *objects.Object) []byte {
	k, err := t.Key(o)
	if err != nil {
		panic(err)
	}
	return k
}
