package api_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/api"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

// mustClockEnv is mustEnv with a server whose clock stands at now.
func mustClockEnv(tb testing.TB, now time.Time) *testEnv {
	tb.Helper()
	e := mustEnv(tb)
	s, err := api.New(e.ix, api.Options{Logger: slog.New(slog.DiscardHandler), Clock: func() time.Time { return now }})
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	tb.Cleanup(srv.Close)
	e.api, e.srv = s, srv
	return e
}

// TestSearch_relativeDateRange filters by bounds relative to a fixed
// clock, against bounds worked out by hand.
func TestSearch_relativeDateRange(t *testing.T) {
	// 2024-01-03T05:00Z is 14:00 in Tokyo and 00:00 in New York (EST).
	e := mustClockEnv(t, time.Date(2024, 1, 3, 5, 0, 0, 0, time.UTC))
	hiredIn := func(lo, hi string) func(icebergtest.Row) bool {
		return func(r icebergtest.Row) bool { h := r["hired"].(string); return h >= lo && h < hi }
	}
	updatedIn := func(lo, hi string) func(icebergtest.Row) bool {
		l, _ := time.Parse(time.RFC3339, lo)
		h, _ := time.Parse(time.RFC3339, hi)
		return func(r icebergtest.Row) bool {
			u, _ := time.Parse(time.RFC3339, r["updated"].(string))
			return !u.Before(l) && u.Before(h)
		}
	}
	point := func(v int, unit string) string {
		return fmt.Sprintf(`{"type":"relativePoint","value":%d,"timeUnit":%q}`, v, unit)
	}
	tests := []struct {
		name  string
		where string
		want  func(icebergtest.Row) bool
	}{
		{"dates, the last five years", `{"type":"relativeDateRange","field":"hired","relativeStartTime":` + point(-5, "YEAR") + `,"relativeEndTime":` + point(0, "DAY") + `,"timeZoneId":"UTC"}`,
			hiredIn("2019-01-03", "2024-01-03")},
		{"dates, open end", `{"type":"relativeDateRange","field":"hired","relativeStartTime":` + point(-60, "MONTH") + `,"timeZoneId":"UTC"}`,
			hiredIn("2019-01-03", "9999-12-31")},
		{"dates, open start, weeks", `{"type":"relativeDateRange","field":"hired","relativeEndTime":` + point(-250, "WEEK") + `,"timeZoneId":"UTC"}`,
			hiredIn("0000-01-01", "2019-03-14")},
		{"timestamps in Tokyo", `{"type":"relativeDateRange","propertyIdentifier":{"type":"property","apiName":"updated"},"relativeStartTime":` + point(-1, "DAY") + `,"relativeEndTime":` + point(1, "DAY") + `,"timeZoneId":"Asia/Tokyo"}`,
			updatedIn("2024-01-01T15:00:00Z", "2024-01-03T15:00:00Z")},
		{"timestamps in New York", `{"type":"relativeDateRange","field":"updated","relativeStartTime":` + point(-2, "DAY") + `,"relativeEndTime":` + point(0, "DAY") + `,"timeZoneId":"America/New_York"}`,
			updatedIn("2024-01-01T05:00:00Z", "2024-01-03T05:00:00Z")},
		{"inside not", `{"type":"not","value":{"type":"relativeDateRange","field":"hired","relativeStartTime":` + point(-5, "YEAR") + `,"timeZoneId":"UTC"}}`,
			func(r icebergtest.Row) bool { return r["hired"].(string) < "2019-01-03" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, _ := e.search(t, "Employee", map[string]any{"where": where(tt.where), "pageSize": 100})
			got, want := ids(objs), employeeIDs(tt.want)
			if want == nil {
				want = []string{}
			}
			if len(want) == 0 || len(want) == 48 {
				t.Fatalf("the case selects %d of 48 employees: it tests nothing", len(want))
			}
			if !slices.Equal(got, want) {
				t.Fatalf("got %v, want %v", got, want)
			}
		})
	}
}

// TestSearch_relativeDateRangeErrors checks that a bad relativeDateRange
// is refused with a message naming what to fix.
func TestSearch_relativeDateRangeErrors(t *testing.T) {
	e := mustEnv(t)
	day := `{"type":"relativePoint","value":-1,"timeUnit":"DAY"}`
	tests := []struct {
		name, where, error, message string
	}{
		{"no zone", `{"type":"relativeDateRange","field":"hired","relativeStartTime":` + day + `}`, "MalformedPropertyFilters", "relativeDateRange on hired needs timeZoneId"},
		{"unknown zone", `{"type":"relativeDateRange","field":"hired","relativeStartTime":` + day + `,"timeZoneId":"Mars/Olympus"}`, "MalformedPropertyFilters", `timeZoneId "Mars/Olympus" is not a known time zone`},
		{"no bounds", `{"type":"relativeDateRange","field":"hired","timeZoneId":"UTC"}`, "MalformedPropertyFilters", "needs relativeStartTime, relativeEndTime or both"},
		{"bad unit", `{"type":"relativeDateRange","field":"hired","relativeEndTime":{"type":"relativePoint","value":1,"timeUnit":"HOUR"},"timeZoneId":"UTC"}`, "MalformedPropertyFilters", "relativeEndTime of relativeDateRange on hired: timeUnit must be DAY, WEEK, MONTH or YEAR"},
		{"fractional value", `{"type":"relativeDateRange","field":"hired","relativeStartTime":{"type":"relativePoint","value":1.5,"timeUnit":"DAY"},"timeZoneId":"UTC"}`, "MalformedPropertyFilters", "relativeStartTime of relativeDateRange on hired: value must be a whole number"},
		{"bad bound type", `{"type":"relativeDateRange","field":"hired","relativeStartTime":{"type":"absolute","value":1,"timeUnit":"DAY"},"timeZoneId":"UTC"}`, "MalformedPropertyFilters", "type must be relativePoint"},
		{"unknown bound key", `{"type":"relativeDateRange","field":"hired","relativeStartTime":{"type":"relativePoint","value":1,"timeUnit":"DAY","when":"BEFORE"},"timeZoneId":"UTC"}`, "MalformedPropertyFilters", "relativeStartTime of relativeDateRange on hired"},
		{"not a date", `{"type":"relativeDateRange","field":"age","relativeStartTime":` + day + `,"timeZoneId":"UTC"}`, "PropertyFiltersNotSupported", "relativeDateRange applies to date and timestamp properties; age is"},
		{"value key", `{"type":"relativeDateRange","field":"hired","value":1,"timeZoneId":"UTC"}`, "MalformedPropertyFilters", "relativeDateRange takes field"},
		{"keys on eq", `{"type":"eq","field":"hired","value":"2020-01-01","timeZoneId":"UTC"}`, "MalformedPropertyFilters", "apply to relativeDateRange only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := e.fail(t, http.MethodPost, ontologyPath+"/objects/Employee/search", map[string]any{"where": where(tt.where)}, 400, tt.error)
			if msg, _ := m["message"].(string); !strings.Contains(msg, tt.message) {
				t.Errorf("message = %q, want it to contain %q", msg, tt.message)
			}
		})
	}
}
