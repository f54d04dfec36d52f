package api_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/internal/testkit/apidemo"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

func aggregate(tb testing.TB, e *testEnv, body map[string]any) []any {
	tb.Helper()
	m := e.ok(tb, http.MethodPost, ontologyPath+"/objects/Employee/aggregate", body)
	if m["accuracy"] != "ACCURATE" {
		tb.Fatalf("accuracy %v", m["accuracy"])
	}
	return m["data"].([]any)
}

// metricsOf returns the metrics of a group as name -> value text.
func metricsOf(item any) map[string]string {
	out := map[string]string{}
	for _, m := range item.(map[string]any)["metrics"].([]any) {
		mm := m.(map[string]any)
		out[mm["name"].(string)] = fmt.Sprint(mm["value"])
	}
	return out
}

func groupOf(item any) map[string]any { return item.(map[string]any)["group"].(map[string]any) }

func metric(typ, field string) map[string]any {
	m := map[string]any{"type": typ}
	if field != "" {
		m["field"] = field
	}
	return m
}

func num(v any) float64 {
	switch x := v.(type) {
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case float64:
		return x
	case string:
		f, _ := strconv.ParseFloat(x, 64)
		return f
	}
	return math.NaN()
}

func TestAggregate(t *testing.T) {
	e := mustEnv(t)
	rows := apidemo.EmployeeRows()

	t.Run("count all", func(t *testing.T) {
		data := aggregate(t, e, map[string]any{"aggregation": []any{metric("count", "")}, "groupBy": []any{}})
		if len(data) != 1 || len(groupOf(data[0])) != 0 || metricsOf(data[0])["count"] != "48" {
			t.Fatalf("got %v", data)
		}
	})

	t.Run("metrics by dept", func(t *testing.T) {
		data := aggregate(t, e, map[string]any{
			"aggregation": []any{metric("count", ""), metric("avg", "age"), metric("sum", "age"), metric("min", "salary"), metric("max", "salary"),
				metric("min", "hired"), metric("max", "updated"), metric("exactDistinct", "title"), metric("approximateDistinct", "title"),
				map[string]any{"type": "sum", "field": "big", "name": "bigSum"}, metric("avg", "rating")},
			"groupBy": []any{map[string]any{"type": "exact", "field": "dept"}},
		})
		if len(data) != 4 {
			t.Fatalf("%d groups", len(data))
		}
		for _, item := range data {
			dept := groupOf(item)["dept"].(string)
			var n, ages, ageSum int64
			var ratingSum float64
			var ratings int
			minSal, maxSal := math.Inf(1), math.Inf(-1)
			minHired, maxUpd := "9999", ""
			titles := map[string]bool{}
			bigSum := int64(0)
			for _, r := range rows {
				if r["dept"] != dept {
					continue
				}
				n++
				if r["age"] != nil {
					ages++
					ageSum += intOf(r["age"])
				}
				if r["rating"] != nil {
					ratings++
					ratingSum += r["rating"].(float64)
				}
				minSal, maxSal = math.Min(minSal, num(r["salary"])), math.Max(maxSal, num(r["salary"]))
				minHired = min(minHired, r["hired"].(string))
				maxUpd = max(maxUpd, r["updated"].(string))
				titles[r["title"].(string)] = true
				bigSum += r["big"].(int64)
			}
			got := metricsOf(item)
			want := map[string]string{
				"count": fmt.Sprint(n), "age.avg": fmt.Sprint(float64(ageSum) / float64(ages)), "age.sum": fmt.Sprint(ageSum),
				"salary.min": fmt.Sprintf("%.2f", minSal), "salary.max": fmt.Sprintf("%.2f", maxSal),
				"hired.min": minHired, "updated.max": maxUpd, "title.exactDistinct": fmt.Sprint(len(titles)),
				"title.approximateDistinct": fmt.Sprint(len(titles)), "bigSum": fmt.Sprint(bigSum),
				"rating.avg": fmt.Sprint(ratingSum / float64(ratings)),
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s:\ngot  %v\nwant %v", dept, got, want)
			}
		}
	})

	t.Run("where", func(t *testing.T) {
		data := aggregate(t, e, map[string]any{"aggregation": []any{metric("count", ""), metric("max", "age")}, "groupBy": []any{},
			"where": where(`{"type":"eq","field":"active","value":false}`)})
		var n, maxAge int64
		for _, r := range rows {
			if r["active"] == false {
				n++
				if r["age"] != nil {
					maxAge = max(maxAge, intOf(r["age"]))
				}
			}
		}
		if got := metricsOf(data[0]); got["count"] != fmt.Sprint(n) || got["age.max"] != fmt.Sprint(maxAge) {
			t.Fatalf("got %v, want count %d max %d", got, n, maxAge)
		}
	})

	t.Run("where matching nothing", func(t *testing.T) {
		data := aggregate(t, e, map[string]any{"aggregation": []any{metric("count", ""), metric("avg", "age")}, "groupBy": []any{},
			"where": where(`{"type":"eq","field":"dept","value":"Nobody"}`)})
		if got := metricsOf(data[0]); got["count"] != "0" || got["age.avg"] != "<nil>" {
			t.Fatalf("got %v", got)
		}
	})

	groupCounts := func(data []any, key func(map[string]any) string) map[string]string {
		out := map[string]string{}
		for _, item := range data {
			out[key(groupOf(item))] = metricsOf(item)["count"]
		}
		return out
	}
	countRows := func(key func(icebergtest.Row) []string) map[string]string {
		n := map[string]int{}
		for _, r := range rows {
			for _, k := range key(r) {
				n[k]++
			}
		}
		out := map[string]string{}
		for k, v := range n {
			out[k] = fmt.Sprint(v)
		}
		return out
	}

	t.Run("fixedWidth", func(t *testing.T) {
		data := aggregate(t, e, map[string]any{"aggregation": []any{metric("count", "")},
			"groupBy": []any{map[string]any{"type": "fixedWidth", "field": "age", "fixedWidth": 10}}})
		got := groupCounts(data, func(g map[string]any) string {
			r := g["age"].(map[string]any)
			return fmt.Sprint(r["startValue"], "-", r["endValue"])
		})
		want := countRows(func(r icebergtest.Row) []string {
			if r["age"] == nil {
				return nil
			}
			lo := intOf(r["age"]) / 10 * 10
			return []string{fmt.Sprint(lo, "-", lo+10)}
		})
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
	})

	t.Run("ranges", func(t *testing.T) {
		data := aggregate(t, e, map[string]any{"aggregation": []any{metric("count", "")},
			"groupBy": []any{map[string]any{"type": "ranges", "field": "hired", "ranges": []any{
				map[string]any{"startValue": nil, "endValue": "2016-01-01"},
				map[string]any{"startValue": "2016-01-01", "endValue": "2018-01-01"},
				map[string]any{"startValue": "2018-01-01"},
			}}}})
		got := groupCounts(data, func(g map[string]any) string {
			r := g["hired"].(map[string]any)
			return fmt.Sprint(r["startValue"], "..", r["endValue"])
		})
		want := countRows(func(r icebergtest.Row) []string {
			h := r["hired"].(string)
			switch {
			case h < "2016-01-01":
				return []string{"<nil>..2016-01-01"}
			case h < "2018-01-01":
				return []string{"2016-01-01..2018-01-01"}
			}
			return []string{"2018-01-01..<nil>"}
		})
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
	})

	t.Run("exact on array elements", func(t *testing.T) {
		data := aggregate(t, e, map[string]any{"aggregation": []any{metric("count", "")}, "groupBy": []any{map[string]any{"type": "exact", "field": "tags"}}})
		got := groupCounts(data, func(g map[string]any) string { return g["tags"].(string) })
		want := countRows(func(r icebergtest.Row) []string { tags, _ := r["tags"].([]string); return tags })
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
	})

	t.Run("exact with nulls", func(t *testing.T) {
		data := aggregate(t, e, map[string]any{"aggregation": []any{metric("count", "")},
			"groupBy": []any{map[string]any{"type": "exact", "field": "rating", "includeNullValues": true}}})
		got := groupCounts(data, func(g map[string]any) string { return fmt.Sprint(g["rating"]) })
		want := countRows(func(r icebergtest.Row) []string {
			if r["rating"] == nil {
				return []string{"<nil>"}
			}
			return []string{strconv.FormatFloat(r["rating"].(float64), 'g', -1, 64)}
		})
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
		data = aggregate(t, e, map[string]any{"aggregation": []any{metric("count", "")},
			"groupBy": []any{map[string]any{"type": "exact", "field": "bio", "defaultValue": "(none)"}}})
		if got := groupCounts(data, func(g map[string]any) string { return fmt.Sprint(g["bio"]) }); got["(none)"] != "9" {
			t.Fatalf("got %v", got)
		}
	})

	t.Run("maxGroupCount keeps the largest groups", func(t *testing.T) {
		data := aggregate(t, e, map[string]any{"aggregation": []any{metric("count", "")},
			"groupBy": []any{map[string]any{"type": "exact", "field": "age", "maxGroupCount": 3}}})
		if len(data) != 3 {
			t.Fatalf("%d groups", len(data))
		}
		counts := countRows(func(r icebergtest.Row) []string {
			if r["age"] == nil {
				return nil
			}
			return []string{fmt.Sprint(r["age"])}
		})
		var all []int
		for _, c := range counts {
			n, _ := strconv.Atoi(c)
			all = append(all, n)
		}
		slices.Sort(all)
		slices.Reverse(all)
		for i, item := range data {
			if got := metricsOf(item)["count"]; got != fmt.Sprint(all[i]) {
				t.Fatalf("group %d has %s objects, want %d (%v)", i, got, all[i], data)
			}
		}
	})

	t.Run("two groupings and metric order", func(t *testing.T) {
		data := aggregate(t, e, map[string]any{
			"aggregation": []any{map[string]any{"type": "avg", "field": "salary", "name": "pay", "direction": "DESC"}},
			"groupBy":     []any{map[string]any{"type": "exact", "field": "dept"}, map[string]any{"type": "exact", "field": "active"}}})
		if len(data) != 8 {
			t.Fatalf("%d groups: %v", len(data), data)
		}
		prev := math.Inf(1)
		for _, item := range data {
			g := groupOf(item)
			var sum float64
			var n int
			for _, r := range rows {
				if r["dept"] == g["dept"] && r["active"] == g["active"] {
					sum += num(r["salary"])
					n++
				}
			}
			got, _ := strconv.ParseFloat(metricsOf(item)["pay"], 64)
			if math.Abs(got-sum/float64(n)) > 1e-6 || got > prev {
				t.Fatalf("group %v: pay %v, want %v, not above %v", g, got, sum/float64(n), prev)
			}
			prev = got
		}
	})

	errs := []struct {
		name   string
		body   map[string]any
		status int
		error  string
	}{
		{"unknown metric", map[string]any{"aggregation": []any{metric("median", "age")}, "groupBy": []any{}}, 400, "AggregationMetricNotSupported"},
		{"unknown groupBy", map[string]any{"aggregation": []any{metric("count", "")}, "groupBy": []any{map[string]any{"type": "histogram", "field": "hired"}}}, 400, "AggregationGroupByNotSupported"},
		{"sum of text", map[string]any{"aggregation": []any{metric("sum", "name")}, "groupBy": []any{}}, 400, "InvalidPropertyType"},
		{"max of boolean", map[string]any{"aggregation": []any{metric("max", "active")}, "groupBy": []any{}}, 400, "InvalidPropertyType"},
		{"fixedWidth of text", map[string]any{"aggregation": []any{}, "groupBy": []any{map[string]any{"type": "fixedWidth", "field": "name", "fixedWidth": 2}}}, 400, "InvalidPropertyType"},
		{"fixedWidth zero", map[string]any{"aggregation": []any{}, "groupBy": []any{map[string]any{"type": "fixedWidth", "field": "age", "fixedWidth": 0}}}, 400, "InvalidAggregationRange"},
		{"ranges of text", map[string]any{"aggregation": []any{}, "groupBy": []any{map[string]any{"type": "ranges", "field": "name", "ranges": []any{map[string]any{"startValue": "a"}}}}}, 400, "InvalidAggregationRangePropertyType"},
		{"range value", map[string]any{"aggregation": []any{}, "groupBy": []any{map[string]any{"type": "ranges", "field": "age", "ranges": []any{map[string]any{"startValue": "old"}}}}}, 400, "InvalidAggregationRangeValue"},
		{"empty range", map[string]any{"aggregation": []any{}, "groupBy": []any{map[string]any{"type": "ranges", "field": "age", "ranges": []any{map[string]any{}}}}}, 400, "InvalidAggregationRange"},
		{"unknown property", map[string]any{"aggregation": []any{metric("max", "nope")}, "groupBy": []any{}}, 404, "PropertiesNotFound"},
		{"default and nulls", map[string]any{"aggregation": []any{}, "groupBy": []any{map[string]any{"type": "exact", "field": "age", "defaultValue": "x", "includeNullValues": true}}}, 400, "DefaultAndNullGroupsNotSupported"},
		{"same field twice", map[string]any{"aggregation": []any{}, "groupBy": []any{map[string]any{"type": "exact", "field": "age"}, map[string]any{"type": "fixedWidth", "field": "age", "fixedWidth": 5}}}, 400, "MultipleGroupByOnFieldNotSupported"},
		{"bad where", map[string]any{"aggregation": []any{}, "groupBy": []any{}, "where": where(`{"type":"gt","field":"active","value":1}`)}, 400, "InvalidRangeQuery"},
		{"bad accuracy", map[string]any{"aggregation": []any{}, "groupBy": []any{}, "accuracy": "ROUGHLY"}, 400, "MalformedRequestBody"},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			e.fail(t, http.MethodPost, ontologyPath+"/objects/Employee/aggregate", tt.body, tt.status, tt.error)
		})
	}
	// Errors that name the fix in their message.
	messages := []struct {
		name    string
		body    map[string]any
		status  int
		error   string
		message string
	}{
		{"misspelt group property", map[string]any{"aggregation": []any{}, "groupBy": []any{map[string]any{"type": "exact", "field": "dpet"}}},
			404, "PropertiesNotFound", "Employee has no property dpet; did you mean dept?"},
		{"misspelt metric property", map[string]any{"aggregation": []any{metric("max", "salery")}, "groupBy": []any{}},
			404, "PropertiesNotFound", "did you mean salary?"},
		{"bad direction", map[string]any{"aggregation": []any{map[string]any{"type": "max", "field": "age", "direction": "down"}}, "groupBy": []any{}},
			400, "InvalidSortOrder", `the direction of age.max is "down"; it must be "asc" or "desc"`},
	}
	for _, tt := range messages {
		t.Run(tt.name, func(t *testing.T) {
			m := e.fail(t, http.MethodPost, ontologyPath+"/objects/Employee/aggregate", tt.body, tt.status, tt.error)
			if msg, _ := m["message"].(string); !strings.Contains(msg, tt.message) {
				t.Errorf("message = %q, want it to contain %q", msg, tt.message)
			}
		})
	}
}

func TestAggregate_groupLimit(t *testing.T) {
	e := mustEnv(t, func(c *indexerConfig) { c.Server.MaxAggregationGroups = 5 })
	m := e.fail(t, http.MethodPost, ontologyPath+"/objects/Employee/aggregate", map[string]any{"aggregation": []any{metric("count", "")},
		"groupBy": []any{map[string]any{"type": "exact", "field": "name"}}}, 400, "AggregationGroupCountExceededLimit")
	if m["parameters"].(map[string]any)["groupsLimit"] != json.Number("5") {
		t.Fatalf("got %v", m)
	}
	// Four departments fit.
	aggregate(t, e, map[string]any{"aggregation": []any{metric("count", "")}, "groupBy": []any{map[string]any{"type": "exact", "field": "dept"}}})
}
