package api_test

import (
	"math"
	"math/big"
	"slices"
	"strconv"
	"time"

	"github.com/ontoindex/ontoindex/objects"
)

// The oracle's duration groups and percentiles, from their contract
// (docs/api.md): a duration group is the UTC bucket that holds the value,
// named by its start (fixed widths counted from the epoch, weeks from a
// Monday, calendar months, quarters and years); approximatePercentile is
// the nearest-rank percentile, the value at rank max(1, ceil(p*n)) of the
// values in ascending order, p read as the decimal it was written as.

// dfDurationUnits are the units a grouping picks, each with values whose
// widths divide a day, so package time's Truncate (which counts from year
// 1) agrees with buckets counted from the epoch.
var dfDurationUnits = map[string][]int64{
	"MILLISECONDS": {1, 250}, "SECONDS": {1, 15, 30}, "MINUTES": {1, 5, 60}, "HOURS": {1, 3, 12},
	"DAYS": {1, 2, 7}, "WEEKS": {1}, "MONTHS": {1}, "QUARTERS": {1}, "YEARS": {1},
}

var dfUnitDuration = map[string]time.Duration{"MILLISECONDS": time.Millisecond, "SECONDS": time.Second, "MINUTES": time.Minute, "HOURS": time.Hour}

func (q *dfQGen) duration(g *dfGroupBy, date bool) {
	units := []string{"DAYS", "WEEKS", "MONTHS", "QUARTERS", "YEARS"}
	if !date {
		units = append(units, "MILLISECONDS", "SECONDS", "MINUTES", "HOURS")
	}
	g.kind, g.unit = "duration", units[q.r.IntN(len(units))]
	vals := dfDurationUnits[g.unit]
	g.every = vals[q.r.IntN(len(vals))]
}

// dfDurationStart is the start of the bucket of a date or timestamp.
func dfDurationStart(g *dfGroupBy, v any) any {
	var t time.Time
	date := false
	switch x := v.(type) {
	case objects.Date:
		t, date = x.Time().UTC(), true
	case time.Time:
		t = x.UTC()
	}
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	var s time.Time
	switch g.unit {
	case "DAYS":
		n := int64(math.Floor(float64(day.Unix()) / 86400))
		k := int64(math.Floor(float64(n)/float64(g.every))) * g.every
		s = time.Unix(k*86400, 0).UTC()
	case "WEEKS":
		s = day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7))
	case "MONTHS":
		s = time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	case "QUARTERS":
		s = time.Date(t.Year(), (t.Month()-1)/3*3+1, 1, 0, 0, 0, 0, time.UTC)
	case "YEARS":
		s = time.Date(t.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
	default:
		s = t.Truncate(time.Duration(g.every) * dfUnitDuration[g.unit])
	}
	if date {
		return objects.Date(s.Unix() / 86400)
	}
	return s
}

// dfPercentile is the oracle's approximatePercentile of els: exact, as
// every group of the test is far below the engine's exact bound.
func dfPercentile(els []any, p float64) dfMV {
	if len(els) == 0 {
		return dfMV{absent: true}
	}
	sorted := slices.Clone(els)
	slices.SortFunc(sorted, dfCmp)
	// The least rank r >= 1 with r >= p*n, p the decimal it was written as.
	dp, _ := new(big.Rat).SetString(strconv.FormatFloat(p, 'g', -1, 64))
	pn := new(big.Rat).Mul(dp, big.NewRat(int64(len(sorted)), 1))
	rank := 1
	for big.NewRat(int64(rank), 1).Cmp(pn) < 0 {
		rank++
	}
	var f float64
	switch x := sorted[rank-1].(type) {
	case int64:
		f = float64(x)
	case float64:
		f = x
	case objects.Decimal:
		f, _ = dfRat(x).Float64()
	}
	switch {
	case math.IsNaN(f):
		return dfMV{nan: true, json: "NaN"}
	case math.IsInf(f, 1):
		return dfMV{nan: true, json: "Infinity"}
	case math.IsInf(f, -1):
		return dfMV{nan: true, json: "-Infinity"}
	}
	r := new(big.Rat).SetFloat64(f)
	return dfMV{float: true, f: f, tol: 1e-12 * math.Abs(f), rat: r, json: f}
}
