package api

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// Duration groupings (AggregationDurationGroupingV2) and percentile
// metrics (ApproximatePercentileAggregationV2), decoded for the engine.
// A duration group's value is its bucket's start, as the property
// encodes it ("2024-03-01" for a date, "2024-03-01T00:00:00Z" for a
// timestamp): @osdk/client types $group of a $duration grouping as the
// property's own type.

var timeUnits = map[string]query.TimeUnit{
	"MILLISECONDS": query.Milliseconds, "SECONDS": query.Seconds, "MINUTES": query.Minutes, "HOURS": query.Hours,
	"DAYS": query.Days, "WEEKS": query.Weeks, "MONTHS": query.Months, "QUARTERS": query.Quarters, "YEARS": query.Years,
}

// maxDurationValue bounds a duration's value: wide enough for any chart,
// narrow enough that no bucket width overflows the engine's integers.
const maxDurationValue = 1_000_000_000

// decodeDuration reads the value and unit of a duration grouping on p.
func decodeDuration(t *objects.Type, p objects.Property, rg *rawGroup, g *query.Group) error {
	k := p.Type.Primitive().Kind
	if !k.DateLike() { // arrays of dates group by element, like ranges
		return wire.Err(wire.NameInvalidDurationGroupByPropertyType, map[string]any{"property": p.APIName, "objectType": t.APIName,
			"propertyBaseType": dataType(p.Type.Primitive())["type"]})
	}
	var unit string
	if err := json.Unmarshal(rg.Unit, &unit); err != nil || timeUnits[unit] == 0 {
		return wire.Err(wire.NameMalformedRequestBody, map[string]any{"reason": fmt.Sprintf("duration groupBy of %s: unit must be one of MILLISECONDS, SECONDS, MINUTES, HOURS, DAYS, WEEKS, MONTHS, QUARTERS, YEARS", p.APIName)})
	}
	var value json.Number
	if err := json.Unmarshal(rg.Value, &value); err != nil {
		return wire.Err(wire.NameMalformedRequestBody, map[string]any{"reason": fmt.Sprintf("duration groupBy of %s: value must be a whole number", p.APIName)})
	}
	n, err := value.Int64()
	if err != nil || n < 1 || n > maxDurationValue {
		return wire.Err(wire.NameInvalidDurationGroupByValue, map[string]any{"reason": fmt.Sprintf("duration groupBy of %s: value must be a whole number from 1 to %d", p.APIName, maxDurationValue)})
	}
	g.Unit, g.Every = timeUnits[unit], n
	switch {
	case g.Unit >= query.Weeks && n != 1:
		return wire.Err(wire.NameInvalidDurationGroupByValue, map[string]any{"reason": fmt.Sprintf("duration groupBy of %s: %s takes value 1", p.APIName, unit)})
	case k == objects.KindDate && g.Unit < query.Days:
		return wire.Err(wire.NameInvalidDurationGroupByValue, map[string]any{"reason": fmt.Sprintf("duration groupBy of %s: a date groups by DAYS or longer, not %s", p.APIName, unit)})
	case g.Unit == query.Days && n > math.MaxInt32:
		return wire.Err(wire.NameInvalidDurationGroupByValue, map[string]any{"reason": fmt.Sprintf("duration groupBy of %s: too many days", p.APIName)})
	}
	return nil
}

// decodePercentile reads the rank of an approximatePercentile metric.
func decodePercentile(p objects.Property, raw json.RawMessage, m *query.Metric) error {
	if !p.Type.Primitive().Kind.Numeric() {
		return wrongType(p, "approximatePercentile")
	}
	var f float64
	if wire.IsNull(raw) || json.Unmarshal(raw, &f) != nil || !(f >= 0 && f <= 1) {
		return wire.Err(wire.NameMalformedRequestBody, map[string]any{"reason": fmt.Sprintf("approximatePercentile of %s: approximatePercentile must be a number from 0 to 1", p.APIName)})
	}
	m.Percentile = f
	return nil
}

// exactPercentileValues is the engine's bound for a request's accuracy:
// REQUIRE_ACCURATE ranks every value; otherwise groups past the default
// bound answer from a sketch and the response says APPROXIMATE.
func exactPercentileValues(accuracy string) int {
	if accuracy == "REQUIRE_ACCURATE" {
		return math.MaxInt
	}
	return 0
}

// accuracyOf is the response's accuracy of an engine result.
func accuracyOf(res *query.AggregateResult) string {
	if res.Approximate {
		return "APPROXIMATE"
	}
	return "ACCURATE"
}
