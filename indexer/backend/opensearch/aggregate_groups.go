package opensearch

import (
	"fmt"
	"math"
	"strconv"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// rangeCombo is one combination of the ranges of the Ranges groupings:
// the range of each (-1 for the other groupings), and the filters that
// keep the objects with a value in each.
type rangeCombo struct {
	at      []int
	filters []any
}

// rangeCombos are the combinations of the ranges of the Ranges
// groupings; one, of no ranges, without such groupings. An object is in
// range [Start, End) when one of its values is (each bound open when
// nil), as the engine puts it: a range query of the property.
func (a *aggregation) rangeCombos() ([]rangeCombo, error) {
	combos := []rangeCombo{{}}
	for i, g := range a.q.Groups {
		if g.Kind != query.Ranges {
			for j := range combos {
				combos[j].at = append(combos[j].at, -1)
			}
			continue
		}
		var next []rangeCombo
		for ri, rg := range g.Ranges {
			bounds := map[string]any{}
			for op, v := range map[string]any{"gte": rg.Start, "lt": rg.End} {
				if v == nil {
					continue
				}
				x, err := a.tr.value(a.groups[i], v)
				if err != nil {
					return nil, err
				}
				bounds[op] = x
			}
			f := map[string]any{"range": map[string]any{exactField(a.groups[i]): bounds}}
			if len(bounds) == 0 {
				f = map[string]any{"exists": map[string]any{"field": exactField(a.groups[i])}}
			}
			for _, c := range combos {
				next = append(next, rangeCombo{
					at:      append(append([]int(nil), c.at...), ri),
					filters: append(append([]any(nil), c.filters...), f),
				})
			}
		}
		combos = next
	}
	return combos, nil
}

// compositeGroups reports whether a grouping is a composite source (all
// but ranges).
func (a *aggregation) compositeGroups() bool {
	for _, g := range a.q.Groups {
		if g.Kind != query.Ranges {
			return true
		}
	}
	return false
}

// compositeSource is the composite source of a duration or fixed-width
// grouping.
func compositeSource(p objects.Property, g query.Group) (map[string]any, error) {
	if g.Kind == query.Duration {
		return durationSource(p, g)
	}
	if g.Kind != query.FixedWidth {
		return nil, fmt.Errorf("property %s: this grouping is not supported by the OpenSearch backend", p.APIName)
	}
	// [k*Width, (k+1)*Width), k = floor(v/Width) in doubles: the engine
	// floors exactly, so a value within a double's rounding of an edge
	// may fall in the other bucket.
	if !p.Type.Primitive().Kind.Numeric() || numericList(p) || !p.Searchable() || !(g.Width > 0) || math.IsInf(g.Width, 0) {
		return nil, fmt.Errorf("fixed-width grouping of %s: not supported by the OpenSearch backend for this property or width", g.Property)
	}
	switch p.Type.Primitive().Kind {
	case objects.KindFloat, objects.KindDouble, objects.KindDecimal:
		// The histogram's key of -0 is -0.0, a bucket of its own beside
		// 0.0's; the engine puts -0 in [0, Width): the script adds 0.0,
		// which makes -0 +0 and leaves every other value as it is.
		return map[string]any{"histogram": map[string]any{"interval": g.Width, "script": map[string]any{
			"source": positiveZeroScript, "params": map[string]any{"field": exactField(p)}}}}, nil
	}
	return map[string]any{"histogram": map[string]any{"field": exactField(p), "interval": g.Width}}, nil
}

// positiveZeroScript is the double value of a field with -0 as +0, or
// null (no value) without one.
const positiveZeroScript = `def v = doc[params.field]; if (v.size() == 0) { return null; } return v.value + 0.0;`

// durationSource is the composite date_histogram of a duration grouping,
// whose buckets are the engine's (index/aggregate_duration.go), in UTC:
// sub-day units and days fixed intervals from the epoch; weeks fixed
// intervals of 7 days from Monday 1969-12-29 (offset -3d); months,
// quarters and years calendar intervals, one unit only (OpenSearch has
// no calendar interval of several).
func durationSource(p objects.Property, g query.Group) (map[string]any, error) {
	k := p.Type.Primitive().Kind
	if k != objects.KindDate && k != objects.KindTimestamp && k != objects.KindTimestampTZ || p.Type.Kind == objects.KindList {
		return nil, fmt.Errorf("duration grouping of %s: not supported by the OpenSearch backend for a %s property", g.Property, p.Type.Kind)
	}
	if g.Every < 1 {
		return nil, fmt.Errorf("duration grouping of %s: %d units, want at least 1", g.Property, g.Every)
	}
	h := map[string]any{"field": exactField(p)}
	ms := map[query.TimeUnit]int64{query.Milliseconds: 1, query.Seconds: 1000, query.Minutes: 60_000, query.Hours: 3_600_000, query.Days: 86_400_000, query.Weeks: 7 * 86_400_000}
	switch {
	case ms[g.Unit] > 0:
		if k == objects.KindDate && g.Unit < query.Days {
			return nil, fmt.Errorf("duration grouping of %s: a date has no time of day; group it by days or longer", g.Property)
		}
		if g.Every > math.MaxInt64/ms[g.Unit] {
			return nil, fmt.Errorf("duration grouping of %s: %d units is too wide", g.Property, g.Every)
		}
		h["fixed_interval"] = strconv.FormatInt(g.Every*ms[g.Unit], 10) + "ms"
		if g.Unit == query.Weeks {
			h["offset"] = "-3d" // from a Monday
		}
	case g.Every == 1 && (g.Unit == query.Months || g.Unit == query.Quarters || g.Unit == query.Years):
		h["calendar_interval"] = map[query.TimeUnit]string{query.Months: "1M", query.Quarters: "1q", query.Years: "1y"}[g.Unit]
	default:
		return nil, fmt.Errorf("duration grouping of %s: %d of unit %d is not supported by the OpenSearch backend", g.Property, g.Every, g.Unit)
	}
	return map[string]any{"date_histogram": h}, nil
}

// sources are the composite sources of the groupings, and extra.
func (a *aggregation) sources(extra ...any) []any {
	var out []any
	for i, p := range a.groups {
		g := a.q.Groups[i]
		if g.Kind == query.Duration || g.Kind == query.FixedWidth {
			src, _ := compositeSource(p, g) // checked by Aggregate
			out = append(out, map[string]any{"g" + strconv.Itoa(i): src})
		}
		if g.Kind != query.Exact {
			continue
		}
		out = append(out, map[string]any{"g" + strconv.Itoa(i): map[string]any{"terms": map[string]any{
			"field": exactField(p), "missing_bucket": g.IncludeNull || g.Default != nil}}})
	}
	return append(out, extra...)
}
