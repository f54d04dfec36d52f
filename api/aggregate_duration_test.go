package api_test

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/internal/testkit/apidemo"
)

// TestAggregate_duration groups the demo employees by calendar buckets of
// their hire date and update time, against the rows themselves.
func TestAggregate_duration(t *testing.T) {
	e := mustEnv(t)
	rows := apidemo.EmployeeRows()
	cases := []struct {
		field, unit string
		value       int
		start       func(time.Time) time.Time
		format      string
	}{
		{"hired", "MONTHS", 1, func(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC) }, time.DateOnly},
		{"hired", "QUARTERS", 1, func(t time.Time) time.Time { return time.Date(t.Year(), (t.Month()-1)/3*3+1, 1, 0, 0, 0, 0, time.UTC) }, time.DateOnly},
		{"hired", "YEARS", 1, func(t time.Time) time.Time { return time.Date(t.Year(), 1, 1, 0, 0, 0, 0, time.UTC) }, time.DateOnly},
		{"hired", "WEEKS", 1, func(t time.Time) time.Time { return t.AddDate(0, 0, -((int(t.Weekday()) + 6) % 7)) }, time.DateOnly},
		{"updated", "DAYS", 1, func(t time.Time) time.Time { return t.Truncate(24 * time.Hour) }, time.RFC3339},
		{"updated", "HOURS", 6, func(t time.Time) time.Time { return t.Truncate(6 * time.Hour) }, time.RFC3339},
		{"updated", "MONTHS", 1, func(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC) }, time.RFC3339},
	}
	for _, tt := range cases {
		t.Run(fmt.Sprintf("%s by %d %s", tt.field, tt.value, tt.unit), func(t *testing.T) {
			want := map[string]int{}
			for _, r := range rows {
				layout := time.DateOnly
				if tt.field == "updated" {
					layout = time.RFC3339
				}
				v, err := time.Parse(layout, r[tt.field].(string))
				if err != nil {
					t.Fatal(err)
				}
				want[tt.start(v.UTC()).Format(tt.format)]++
			}
			data := aggregate(t, e, map[string]any{"aggregation": []any{metric("count", ""), metric("max", "salary")},
				"groupBy": []any{map[string]any{"type": "duration", "field": tt.field, "value": tt.value, "unit": tt.unit}}})
			if len(data) != len(want) {
				t.Fatalf("%d groups, want %d", len(data), len(want))
			}
			prev := math.MaxInt
			for _, item := range data {
				key, _ := groupOf(item)[tt.field].(string)
				n := int(num(metricsOf(item)["count"]))
				if want[key] != n {
					t.Fatalf("group %q: count %d, want %d", key, n, want[key])
				}
				if n > prev {
					t.Fatalf("group %q of %d after a group of %d: want count descending", key, n, prev)
				}
				prev = n
			}
		})
	}
	t.Run("with an exact group", func(t *testing.T) {
		data := aggregate(t, e, map[string]any{"aggregation": []any{metric("count", "")},
			"groupBy": []any{map[string]any{"type": "exact", "field": "dept"}, map[string]any{"type": "duration", "field": "hired", "value": 1, "unit": "YEARS"}}})
		want := map[string]int{}
		for _, r := range rows {
			want[r["dept"].(string)+" "+r["hired"].(string)[:4]+"-01-01"]++
		}
		if len(data) != len(want) {
			t.Fatalf("%d groups, want %d", len(data), len(want))
		}
		for _, item := range data {
			g := groupOf(item)
			if k := fmt.Sprint(g["dept"], " ", g["hired"]); want[k] != int(num(metricsOf(item)["count"])) {
				t.Fatalf("group %s: %v, want %d", k, metricsOf(item), want[k])
			}
		}
	})
}

// TestAggregate_percentile checks approximatePercentile against the
// nearest rank of the sorted values.
func TestAggregate_percentile(t *testing.T) {
	e := mustEnv(t)
	var ages []float64
	for _, r := range apidemo.EmployeeRows() {
		if a, ok := r["age"].(int); ok {
			ages = append(ages, float64(a))
		}
	}
	slices.Sort(ages)
	for _, p := range []float64{0, 0.1, 0.5, 0.75, 0.99, 1} {
		for _, accuracy := range []string{"", "REQUIRE_ACCURATE"} {
			body := map[string]any{"aggregation": []any{map[string]any{"type": "approximatePercentile", "field": "age", "approximatePercentile": p}}, "groupBy": []any{}}
			if accuracy != "" {
				body["accuracy"] = accuracy
			}
			data := aggregate(t, e, body) // ACCURATE: 48 values are ranked exactly
			rank := max(int(math.Ceil(p*float64(len(ages)))), 1)
			if got, want := metricsOf(data[0])["age.approximatePercentile"], fmt.Sprint(ages[rank-1]); got != want {
				t.Fatalf("percentile %v: got %s, want %s", p, got, want)
			}
		}
	}
}

// TestAggregate_durationErrors checks that a bad duration or percentile
// is refused with the error and a message naming the field.
func TestAggregate_durationErrors(t *testing.T) {
	e := mustEnv(t)
	duration := func(field string, value any, unit string) map[string]any {
		return map[string]any{"aggregation": []any{metric("count", "")}, "groupBy": []any{map[string]any{"type": "duration", "field": field, "value": value, "unit": unit}}}
	}
	percentile := func(field string, p any) map[string]any {
		return map[string]any{"aggregation": []any{map[string]any{"type": "approximatePercentile", "field": field, "approximatePercentile": p}}, "groupBy": []any{}}
	}
	cases := []struct {
		name    string
		body    map[string]any
		error   string
		message string
	}{
		{"duration of a number", duration("age", 1, "DAYS"), "InvalidDurationGroupByPropertyType", ""},
		{"two weeks", duration("hired", 2, "WEEKS"), "InvalidDurationGroupByValue", "hired: WEEKS takes value 1"},
		{"two months", duration("updated", 2, "MONTHS"), "InvalidDurationGroupByValue", "updated: MONTHS takes value 1"},
		{"hours of a date", duration("hired", 1, "HOURS"), "InvalidDurationGroupByValue", "hired: a date groups by DAYS or longer"},
		{"zero days", duration("hired", 0, "DAYS"), "InvalidDurationGroupByValue", "hired: value must be a whole number"},
		{"fractional days", duration("hired", 1.5, "DAYS"), "InvalidDurationGroupByValue", "hired: value must be a whole number"},
		{"unknown unit", duration("hired", 1, "FORTNIGHTS"), "MalformedRequestBody", "hired: unit must be one of"},
		{"no unit", duration("hired", 1, ""), "MalformedRequestBody", "hired: unit must be one of"},
		{"percentile of text", percentile("name", 0.5), "InvalidPropertyType", "name"},
		{"percentile above 1", percentile("age", 1.5), "MalformedRequestBody", "approximatePercentile of age"},
		{"percentile missing", percentile("age", nil), "MalformedRequestBody", "approximatePercentile of age"},
		{"percentile as text", percentile("age", "half"), "MalformedRequestBody", "approximatePercentile of age"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			m := e.fail(t, http.MethodPost, ontologyPath+"/objects/Employee/aggregate", tt.body, 400, tt.error)
			if msg, _ := m["message"].(string); !strings.Contains(msg, tt.message) {
				t.Errorf("message = %q, want it to contain %q", msg, tt.message)
			}
		})
	}
}
