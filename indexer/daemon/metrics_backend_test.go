package daemon_test

import (
	"net"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/indexer/daemon"
	"github.com/ontoindex/ontoindex/internal/testkit/daemontest"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
	"github.com/ontoindex/ontoindex/internal/testkit/peopletest"
	"github.com/ontoindex/ontoindex/objects"
	"github.com/prometheus/client_golang/prometheus"
)

// TestDaemon_Run_backendMetrics: a type whose backend does not answer (a
// closed port) fails its builds, and its backend series say so: failures
// counted, the lag growing, no write acknowledged. A type without a
// backend has no backend series. (TestDaemon_Run_openSearch checks the
// series of writes a real cluster acknowledged.)
func TestDaemon_Run_backendMetrics(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	w := icebergtest.MustWarehouse(t)
	peopletest.MustPeople(t, w, "ns.people", nil, 1, 5)
	peopletest.MustPeople(t, w, "ns.plain", nil, 1, 5)
	cfg := daemonConfig(t, w, objects.TypeSpec{APIName: "Person", Table: "warehouse.ns.people"},
		objects.TypeSpec{APIName: "Plain", Table: "warehouse.ns.plain"})
	cfg.Backends = map[string]config.Backend{"cluster": {Type: config.BackendOpenSearch, URLs: []string{closed}, Replicas: new(0)}}
	cfg.ObjectTypes[0].Backend = "cluster"
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	ix := indexertest.Open(t, cfg)
	reg := prometheus.NewRegistry()
	d := mustRunDaemon(t, ix, daemon.Options{Registerer: reg})
	daemontest.WaitStatus(t, d.Daemon, "Person", "failing builds", func(st daemon.TypeStatus) bool {
		return st.State == daemon.StateFailing && st.Backend != nil && st.Backend.Failures >= 2 && st.Backend.LagSeconds > 0
	})
	daemontest.WaitStatus(t, d.Daemon, "Plain", "the first build", func(st daemon.TypeStatus) bool { return st.Generation == 1 })

	person := map[string]string{"backend": "cluster", "object_type": "Person"}
	with := func(k, v string) map[string]string {
		m := map[string]string{k: v}
		for k, v := range person {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name   string
		labels map[string]string
		check  func(float64) bool
		want   string
	}{
		{daemon.MetricBackendFailures, person, func(v float64) bool { return v >= 2 }, ">= 2"},
		{daemon.MetricBackendLagSeconds, person, func(v float64) bool { return v > 0 }, "> 0"},
		{daemon.MetricBackendBulkWrites, person, func(v float64) bool { return v == 0 }, "0"},
		{daemon.MetricBackendBulkDuration, person, func(v float64) bool { return v == 0 }, "0 writes"},
		{daemon.MetricBackendDocuments, with("result", "indexed"), func(v float64) bool { return v == 0 }, "0"},
		{daemon.MetricBackendRejections, person, func(v float64) bool { return v == 0 }, "0"},
		{daemon.MetricBackendReads, with("result", "answered"), func(v float64) bool { return v == 0 }, "0"},
		{daemon.MetricBackendReads, with("result", "failed"), func(v float64) bool { return v == 0 }, "0"},
		{daemon.MetricBackendReadDuration, person, func(v float64) bool { return v == 0 }, "0 reads"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !hasSeries(t, reg, tt.name, tt.labels) {
				t.Fatalf("no series %s%v", tt.name, tt.labels)
			}
			if got := metricValue(t, reg, tt.name, tt.labels); !tt.check(got) {
				t.Errorf("%s%v = %v, want %s", tt.name, tt.labels, got, tt.want)
			}
		})
	}
	t.Run("no backend", func(t *testing.T) {
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			if !strings.HasPrefix(mf.GetName(), "ontoindex_backend_") {
				continue
			}
			for _, m := range mf.GetMetric() {
				for _, l := range m.GetLabel() {
					if l.GetName() == "object_type" && l.GetValue() == "Plain" {
						t.Errorf("series %s%v of a type without a backend", mf.GetName(), m.GetLabel())
					}
				}
			}
		}
	})
}

// hasSeries reports whether reg has a series of name with exactly the
// labels.
func hasSeries(tb testing.TB, reg *prometheus.Registry, name string, labels map[string]string) bool {
	tb.Helper()
	return findSeries(tb, reg, name, labels) != nil
}
