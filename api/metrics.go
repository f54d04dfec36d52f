package api

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"
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
)

// RouteUnmatched is the route label of requests that match no route.
const RouteUnmatched = "unmatched"

// httpMetrics are the server's request metrics.
type httpMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	inFlight prometheus.Gauge
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
	}
	cs := []prometheus.Collector{m.requests, m.duration, m.inFlight}
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
		return nil, fmt.Errorf("register http metrics: %w", err)
	}
	return m, nil
}

// metrics counts requests by route pattern and status and observes their
// latency. It runs inside logRequests, whose statusWriter records the
// status; a handler that panics counts as 500.
func (s *Server) metrics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		s.hm.inFlight.Inc()
		completed := false
		defer func() {
			s.hm.inFlight.Dec()
			info := requestInfoFrom(r.Context())
			code := http.StatusOK
			if info != nil && info.status != 0 {
				code = info.status
			}
			if !completed {
				code = http.StatusInternalServerError
			}
			route := chi.RouteContext(r.Context()).RoutePattern()
			if route == "" || (info != nil && info.errorName == nameApiNotFound) {
				route = RouteUnmatched
			}
			method := methodLabel(r.Method)
			s.hm.requests.WithLabelValues(method, route, strconv.Itoa(code)).Inc()
			s.hm.duration.WithLabelValues(method, route).Observe(time.Since(start).Seconds())
		}()
		next.ServeHTTP(w, r)
		completed = true
	})
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
