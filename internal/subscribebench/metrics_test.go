package subscribebench

import (
	"strings"
	"testing"
)

func TestParseMetrics(t *testing.T) {
	const text = `# HELP ontoindex_subscriptions subscriptions
# TYPE ontoindex_subscriptions gauge
ontoindex_subscriptions 1000
ontoindex_subscription_connections 10
ontoindex_subscription_messages_total{type="objectSetChanged"} 600
ontoindex_subscription_messages_total{type="subscribeResponses"} 20
ontoindex_subscription_drops_total 0
ontoindex_subscription_push_seconds_bucket{le="0.005"} 3
ontoindex_subscription_push_seconds_bucket{le="+Inf"} 4
ontoindex_subscription_push_seconds_sum 0.2
ontoindex_subscription_push_seconds_count 4
ontoindex_requests_total 5
`
	got, err := parseMetrics(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"ontoindex_subscription_connections":        10,
		"ontoindex_subscription_messages_total":     620,
		"ontoindex_subscription_drops_total":        0,
		"ontoindex_subscription_push_seconds_sum":   0.2,
		"ontoindex_subscription_push_seconds_count": 4,
		"ontoindex_subscription_push_mean_ms":       50,
		"ontoindex_subscriptions":                   1000,
	}
	if len(got) != len(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g < v-1e-9 || g > v+1e-9 {
			t.Errorf("%s = %v (present %v), want %v", k, g, ok, v)
		}
	}
	if _, err := parseMetrics(strings.NewReader("ontoindex_subscription_drops_total x\n")); err == nil {
		t.Error("a value that is not a number: no error")
	}
}
