package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"time"
	_ "time/tzdata" // timeZoneId names a zone even where the host has no zoneinfo

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// relativeDateRange (RelativeDateRangeQuery) is decoded into a range of
// the engine: each bound is "now" (WhereDecoder.Now) in the query's
// timeZoneId, rounded down to that day's midnight, plus value units (DAY,
// WEEK = 7 days, MONTH, YEAR: calendar arithmetic in the zone; value may
// be negative). relativeStartTime is inclusive, relativeEndTime exclusive;
// either may be absent, not both. On a date property a bound is the
// calendar date of that midnight; on a timestamp, its instant.

const opRelativeDateRange = "relativeDateRange"

// relativeTimeUnits are RelativeTimeUnit's values as calendar steps.
var relativeTimeUnits = map[string]struct{ years, months, days int }{
	"DAY": {0, 0, 1}, "WEEK": {0, 0, 7}, "MONTH": {0, 1, 0}, "YEAR": {1, 0, 0},
}

// now is the decoder's clock: Now, or time.Now without one.
func (d *WhereDecoder) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}

// relativeKeysOutside refuses the keys of relativeDateRange in other query
// types.
func relativeKeysOutside(typ string, q rawWhere) error {
	if typ != opRelativeDateRange && (q.RelativeStart != nil || q.RelativeEnd != nil || q.TimeZoneID != nil) {
		return Malformed(typ, "relativeStartTime, relativeEndTime and timeZoneId apply to relativeDateRange only")
	}
	return nil
}

// relativeDateRange decodes one relativeDateRange query.
func (d *WhereDecoder) relativeDateRange(q rawWhere) (*query.Filter, error) {
	typ := opRelativeDateRange
	if q.Value != nil || q.Fuzzy != nil {
		return nil, Malformed(typ, "relativeDateRange takes field or propertyIdentifier, relativeStartTime, relativeEndTime and timeZoneId")
	}
	p, err := d.property(typ, q)
	if err != nil {
		return nil, err
	}
	if !p.Searchable() {
		return nil, Err(NamePropertiesNotSearchable, map[string]any{"propertyApiNames": []string{p.APIName},
			"reason": fmt.Sprintf("property %s has search role none", p.APIName)})
	}
	k := p.Type.Primitive().Kind
	if !k.DateLike() {
		return nil, notSupported(typ, p, fmt.Sprintf("relativeDateRange applies to date and timestamp properties; %s is %s", p.APIName, p.Type))
	}
	var zone string
	if q.TimeZoneID == nil || json.Unmarshal(q.TimeZoneID, &zone) != nil || zone == "" {
		return nil, Malformed(typ, fmt.Sprintf("relativeDateRange on %s needs timeZoneId, a zone name such as \"UTC\" or \"Europe/Paris\"", p.APIName))
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return nil, Malformed(typ, fmt.Sprintf("relativeDateRange on %s: timeZoneId %q is not a known time zone", p.APIName, zone))
	}
	if q.RelativeStart == nil && q.RelativeEnd == nil {
		return nil, Malformed(typ, fmt.Sprintf("relativeDateRange on %s needs relativeStartTime, relativeEndTime or both", p.APIName))
	}
	now := d.now().In(loc)
	midnight := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
	var kids []*query.Filter
	for _, b := range []struct {
		name string
		raw  json.RawMessage
		op   query.Op
	}{{"relativeStartTime", q.RelativeStart, query.OpGte}, {"relativeEndTime", q.RelativeEnd, query.OpLt}} {
		if b.raw == nil {
			continue
		}
		t, err := relativeBound(midnight, b.raw)
		if err != nil {
			return nil, Malformed(typ, fmt.Sprintf("%s of relativeDateRange on %s: %v", b.name, p.APIName, err))
		}
		var v any = t.UTC()
		if k == objects.KindDate {
			v = objects.Date(time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC).Unix() / 86400)
		}
		kids = append(kids, &query.Filter{Op: b.op, Property: p.APIName, Value: v})
	}
	if len(kids) == 1 {
		return kids[0], nil
	}
	return &query.Filter{Op: query.OpAnd, Kids: kids}, nil
}

// relativeBound is midnight moved by a RelativeDateRangeBound.
func relativeBound(midnight time.Time, raw json.RawMessage) (time.Time, error) {
	var b struct {
		Type     string   `json:"type"`
		Value    *float64 `json:"value"`
		TimeUnit string   `json:"timeUnit"`
	}
	if err := strictUnmarshal(raw, &b); err != nil {
		return time.Time{}, fmt.Errorf("want {type: \"relativePoint\", value, timeUnit}: %v", err)
	}
	unit, ok := relativeTimeUnits[b.TimeUnit]
	switch {
	case b.Type != "relativePoint":
		return time.Time{}, fmt.Errorf("type must be relativePoint, not %q", b.Type)
	case b.Value == nil || *b.Value != math.Trunc(*b.Value) || math.Abs(*b.Value) > 1e6:
		return time.Time{}, fmt.Errorf("value must be a whole number of units within a million")
	case !ok:
		return time.Time{}, fmt.Errorf("timeUnit must be DAY, WEEK, MONTH or YEAR, not %q", b.TimeUnit)
	}
	n := int(*b.Value)
	return midnight.AddDate(n*unit.years, n*unit.months, n*unit.days), nil
}

func strictUnmarshal(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
