package index

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

var durationUnits = map[query.TimeUnit]time.Duration{
	query.Milliseconds: time.Millisecond, query.Seconds: time.Second, query.Minutes: time.Minute, query.Hours: time.Hour,
}

// oracleDurationStart is the start of the bucket of a date or timestamp,
// computed with package time and big integers: another way than the
// engine's integer civil-calendar arithmetic.
func oracleDurationStart(g query.Group, v any) any {
	var t time.Time
	date := false
	switch x := v.(type) {
	case objects.Date:
		t, date = x.Time().UTC(), true
	case time.Time:
		t = x.UTC()
	}
	floor := func(a *big.Int, b int64) int64 {
		q := new(big.Int)
		q.Div(a, big.NewInt(b)) // Euclidean: floor for a positive divisor
		return q.Int64()
	}
	midnight := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	days := new(big.Int).SetInt64(floorDays(midnight))
	var start time.Time
	switch g.Unit {
	case query.Milliseconds, query.Seconds, query.Minutes, query.Hours:
		ns := new(big.Int).Mul(big.NewInt(t.Unix()), big.NewInt(1e9))
		ns.Add(ns, big.NewInt(int64(t.Nanosecond())))
		w := g.Every * int64(durationUnits[g.Unit])
		k := floor(ns, w)
		s := new(big.Int).Mul(big.NewInt(k), big.NewInt(w))
		sec := floor(s, 1e9)
		start = time.Unix(sec, new(big.Int).Sub(s, new(big.Int).Mul(big.NewInt(sec), big.NewInt(1e9))).Int64()).UTC()
	case query.Days:
		start = time.Unix(0, 0).UTC().AddDate(0, 0, int(floor(days, g.Every)*g.Every))
	case query.Weeks:
		monday := midnight.AddDate(0, 0, -((int(midnight.Weekday()) + 6) % 7))
		weeks := floor(new(big.Int).SetInt64(floorDays(monday)+3), 7) // since Monday 1969-12-29
		start = monday.AddDate(0, 0, -7*int(weeks-floor(big.NewInt(weeks), g.Every)*g.Every))
	default:
		per := map[query.TimeUnit]int64{query.Months: 1, query.Quarters: 3, query.Years: 12}[g.Unit] * g.Every
		idx := int64(t.Year()-1970)*12 + int64(t.Month()-1)
		idx = floor(big.NewInt(idx), per) * per
		start = time.Date(1970, time.Month(idx+1), 1, 0, 0, 0, 0, time.UTC)
	}
	if date {
		return objects.Date(floorDays(start))
	}
	return start
}

func floorDays(t time.Time) int64 { return int64(math.Floor(float64(t.Unix()) / 86400)) }

// TestDurationBucketer_Start compares the engine's buckets with package
// time's over dates from 1600 to 2400 and timestamps around the epoch.
func TestDurationBucketer_Start(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	date, ts := objects.DataType{Kind: objects.KindDate}, objects.DataType{Kind: objects.KindTimestampTZ}
	units := []query.TimeUnit{query.Milliseconds, query.Seconds, query.Minutes, query.Hours, query.Days, query.Weeks, query.Months, query.Quarters, query.Years}
	for _, unit := range units {
		for _, every := range []int64{1, 2, 3, 7, 13} {
			g := query.Group{Kind: query.Duration, Property: "p", Unit: unit, Every: every}
			t.Run("", func(t *testing.T) {
				types := []objects.DataType{ts}
				if unit >= query.Days {
					types = append(types, date)
				}
				for _, typ := range types {
					b, err := newDurationBucketer(typ, g)
					if err != nil {
						t.Fatal(err)
					}
					// Half the values from a few days, again and again and
					// 1024 days apart (one slot of the calendar memo).
					pool, base := make([]int64, 8), r.Int64N(200_000)-100_000
					for i := range pool {
						pool[i] = base + r.Int64N(4) + int64(i%3)*memoDays
					}
					for i := range 2000 {
						var v any
						switch {
						case i%2 == 0 && typ.Kind == objects.KindDate:
							v = objects.Date(pool[r.IntN(len(pool))])
						case i%2 == 0:
							v = time.UnixMicro(pool[r.IntN(len(pool))]*microsPerDay + r.Int64N(microsPerDay)).UTC()
						case typ.Kind == objects.KindDate:
							v = objects.Date(r.Int64N(292_000) - 134_000) // 1603..2409
						default:
							v = time.UnixMicro(r.Int64N(2e16) - 1e16).UTC()
						}
						vk, err := valueKeyOf(typ.Kind, v)
						if err != nil {
							t.Fatal(err)
						}
						got, want := b.value(b.start(vk.pre)), oracleDurationStart(g, v)
						if objects.Compare(got, want) != 0 {
							t.Fatalf("%v every %d of %v: bucket %v, want %v", unit, every, v, got, want)
						}
					}
				}
			})
		}
	}
	t.Run("refuses", func(t *testing.T) {
		for _, g := range []query.Group{
			{Kind: query.Duration, Property: "p", Unit: query.Hours, Every: 1},
			{Kind: query.Duration, Property: "p", Unit: query.Months, Every: 0},
		} {
			if _, err := newDurationBucketer(date, g); err == nil {
				t.Fatalf("%+v on a date: no error", g)
			}
		}
		if _, err := newDurationBucketer(objects.DataType{Kind: objects.KindLong}, query.Group{Kind: query.Duration, Property: "p", Unit: query.Days, Every: 1}); err == nil {
			t.Fatal("a long: no error")
		}
	})
}

// TestPercentileRank checks nearest ranks where p*n in float64 is off.
func TestPercentileRank(t *testing.T) {
	tests := []struct {
		p    float64
		n    int64
		want int64
	}{
		{0, 10, 1}, {0.1, 10, 1}, {0.3, 10, 3}, {0.35, 10, 4}, {0.5, 4, 2}, {0.51, 4, 3}, {1, 7, 7}, {0.7, 10, 7}, {0.07, 100, 7},
	}
	for _, tt := range tests {
		if got := query.PercentileRank(tt.p, tt.n); got != tt.want {
			t.Errorf("rank of %v among %d: %d, want %d", tt.p, tt.n, got, tt.want)
		}
	}
}
