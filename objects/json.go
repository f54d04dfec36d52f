package objects

import (
	"encoding/json"
	"strconv"
	"time"
)

// JSONValue renders a value for the wire: longs as JSON numbers with their
// exact digits, floats in their shortest form, decimals as strings, dates as
// YYYY-MM-DD, timestamps as RFC 3339 in UTC, lists as arrays.
func JSONValue(t DataType, v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case int64:
		return json.Number(strconv.FormatInt(x, 10))
	case float64:
		bits := 64
		if t.Primitive().Kind == KindFloat {
			bits = 32
		}
		if x != x || x > 1.7976931348623157e308 || x < -1.7976931348623157e308 {
			return strconv.FormatFloat(x, 'g', -1, 64) // NaN and infinities are not JSON numbers
		}
		return json.Number(strconv.FormatFloat(x, 'g', -1, bits))
	case Decimal:
		return x.String()
	case UUID:
		return x.String()
	case Date:
		return x.String()
	case Time:
		return x.String()
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case GeoPoint:
		return x.GeoJSON()
	case GeoShape:
		return x.GeoJSON()
	case Vector:
		return vectorJSON(x)
	case []any:
		out := make([]any, len(x))
		elementType := t.Primitive()
		for i, e := range x {
			out[i] = JSONValue(elementType, e)
		}
		return out
	}
	return v
}

// JSON renders an object the way the API and exports return it: property
// apiName to value with nulls omitted, plus __apiName, __primaryKey and
// __title.
func (t *Type) JSON(o *Object) map[string]any {
	m := make(map[string]any, len(t.Properties)+3)
	for i, p := range t.Properties {
		if i >= len(o.Values) || o.Values[i] == nil || p.Hidden() {
			continue
		}
		if p.Type.Kind == KindStruct {
			m[p.APIName] = t.StructValue(i, o)
			continue
		}
		m[p.APIName] = JSONValue(p.Type, o.Values[i])
	}
	m["__apiName"] = t.APIName
	m["__primaryKey"] = t.KeyJSON(o)
	if ti := t.TitleIndex(); ti >= 0 && ti < len(o.Values) && o.Values[ti] != nil {
		m["__title"] = TextOf(o.Values[ti])
	}
	return m
}
