package api

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/prometheus/client_golang/prometheus"
)

// HTTP metric names. route is chi's route pattern (such as
// /api/v2/ontologies/{ontology}/objects/{objectType}/search), never the raw
// path, so that the series stay bounded; requests that match no route are
// counted under route "unmatched".
const (
	MetricHTTPRequests        = "ontoindex_http_requests_total"
	MetricHTTPRequestDuration = "ontoindex_http_request_duration_seconds"
	MetricHTTPInFlight        = "ontoindex_http_requests_in_flight"
	MetricHTTPQueued          = "ontoindex_http_requests_queued_total"
	MetricDerivedQueued       = "ontoindex_http_derived_queued_total"
)

// RouteUnmatched is the route label of requests that match no route.
const RouteUnmatched = "unmatched"

// httpMetrics are the server's request metrics.
type httpMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	inFlight prometheus.Gauge
	queued   prometheus.Counter // requests that waited for a slot (admit.go)
	// derivedQueued counts the derived evaluations that waited for
	// their weight (derived_budget.go).
	derivedQueued prometheus.Counter
}

// newHTTPMetrics registers the request metrics with reg.
func newHTTPMetrics(reg prometheus.Registerer) (*httpMetrics, error) {
	m := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricHTTPRequests,
			Help: "HTTP requests by method, route pattern and status code."}, []string{"method", "route", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: MetricHTTPRequestDuration,
			Help:    "Time to serve HTTP requests, by method and route pattern.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}}, []string{"method", "route"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{Name: MetricHTTPInFlight, Help: "HTTP requests being served now."}),
		queued: prometheus.NewCounter(prometheus.CounterOpts{Name: MetricHTTPQueued,
			Help: "API requests that waited for one of server.maxConcurrentRequests slots."}),
		derivedQueued: prometheus.NewCounter(prometheus.CounterOpts{Name: MetricDerivedQueued,
			Help: "Derived property evaluations that waited for their objects of server.maxDerivedObjects."}),
	}
	if err := registerAll(reg, "http", m.requests, m.duration, m.inFlight, m.queued, m.derivedQueued); err != nil {
		return nil, err
	}
	return m, nil
}

// registerAll registers every collector with reg, or none of them: a
// registry keeps no half of the server's metrics.
func registerAll(reg prometheus.Registerer, what string, cs ...prometheus.Collector) error {
	var errs []error
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		for _, c := range cs {
			reg.Unregister(c)
		}
		return fmt.Errorf("register %s metrics: %w", what, err)
	}
	return nil
}

// routeMetrics are the series of one route, resolved when the route is
// registered: hashing the labels of every request is a measurable share of
// a get by key.
type routeMetrics struct {
	method, pattern string
	duration        prometheus.Observer
	ok              prometheus.Counter // code 200
}

// route resolves the series of a route.
func (m *httpMetrics) route(method, pattern string) *routeMetrics {
	return &routeMetrics{method: method, pattern: pattern,
		duration: m.duration.WithLabelValues(method, pattern),
		ok:       m.requests.WithLabelValues(method, pattern, "200")}
}

// observe counts a served request by route pattern and status and
// observes its latency. route is Server.routeOf's, used when the request
// has no route series of its own (middleware.go).
func (m *httpMetrics) observe(r *http.Request, info *requestInfo, route string, elapsed time.Duration) {
	code := info.status
	if code == 0 {
		code = http.StatusOK
	}
	rm := info.route
	if rm == nil || info.errorName == wire.NameApiNotFound {
		method := methodLabel(r.Method)
		m.requests.WithLabelValues(method, route, strconv.Itoa(code)).Inc()
		m.duration.WithLabelValues(method, route).Observe(elapsed.Seconds())
		return
	}
	if code == http.StatusOK {
		rm.ok.Inc()
	} else {
		m.requests.WithLabelValues(rm.method, rm.pattern, strconv.Itoa(code)).Inc()
	}
	rm.duration.Observe(elapsed.Seconds())
}

// methodLabel bounds the method label: clients may send any token as a
// method.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return m
	}
	return "other"
}
