//go:build integration_opensearch

package daemon_test

import (
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/indexer/daemon"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/internal/testkit/daemontest"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/internal/testkit/indexertest"
	"github.com/ontoindex/ontoindex/internal/testkit/opensearchtest"
	"github.com/ontoindex/ontoindex/internal/testkit/peopletest"
	"github.com/ontoindex/ontoindex/objects"
	"github.com/prometheus/client_golang/prometheus"
)

// TestDaemon_Run_openSearch: the daemon builds a type with an OpenSearch
// backend and keeps it in step; with the cluster down its builds fail
// and the status says so, and the type catches up by itself when the
// cluster returns.
func TestDaemon_Run_openSearch(t *testing.T) {
	c := opensearchtest.Must(t, opensearchtest.Options{})
	p := opensearchtest.NewProxy(t, c)
	ctx := context.Background()
	w := icebergtest.MustWarehouse(t)
	tbl := peopletest.MustPeople(t, w, "ns.people", nil, 3, 5)
	cfg := daemonConfig(t, w, objects.TypeSpec{APIName: "Person", Table: "warehouse.ns.people"})
	cfg.Backends = map[string]config.Backend{"cluster": {Type: config.BackendOpenSearch, URLs: []string{p.URL()}, IndexPrefix: "daemon-", Replicas: new(0)}}
	cfg.ObjectTypes[0].Backend = "cluster"
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	ix := indexertest.Open(t, cfg)
	reg := prometheus.NewRegistry()
	d := mustRunDaemon(t, ix, daemon.Options{Registerer: reg})
	series := map[string]string{"backend": "cluster", "object_type": "Person"}
	metric := func(name string, labels ...string) float64 {
		t.Helper()
		l := maps.Clone(series)
		for i := 0; i+1 < len(labels); i += 2 {
			l[labels[i]] = labels[i+1]
		}
		if !hasSeries(t, reg, name, l) {
			t.Fatalf("no series %s%v", name, l)
		}
		return metricValue(t, reg, name, l)
	}
	// found is how many people the cluster finds in Lisbon, and in all.
	found := func() (lisbon, all int64) {
		t.Helper()
		v, err := ix.View("Person")
		if err != nil {
			t.Fatal(err)
		}
		defer v.Release()
		for _, f := range []*query.Filter{query.Eq("city", "Lisbon"), nil} {
			page, err := v.Search(ctx, &query.Search{Filter: f, PageSize: 1})
			if err != nil {
				t.Fatal(err)
			}
			lisbon, all = all, page.Total
		}
		return lisbon, all
	}

	daemontest.WaitStatus(t, d.Daemon, "Person", "the first build", daemontest.UpToDate(tbl))
	if lisbon, all := found(); lisbon != 4 || all != 15 {
		t.Fatalf("after the first build the cluster finds %d in Lisbon, %d in all; want 4 and 15", lisbon, all)
	}
	if err := tbl.Append(ctx, peopletest.Rows(100, 8, "new")); err != nil {
		t.Fatal(err)
	}
	daemontest.WaitStatus(t, d.Daemon, "Person", "the append", daemontest.UpToDate(tbl))
	if lisbon, all := found(); lisbon != 6 || all != 23 {
		t.Fatalf("after the append the cluster finds %d in Lisbon, %d in all; want 6 and 23", lisbon, all)
	}
	writes := metric(daemon.MetricBackendBulkWrites)
	if writes < 2 || metric(daemon.MetricBackendBulkDuration) != writes || metric(daemon.MetricBackendDocuments, "result", "indexed") != 23 ||
		metric(daemon.MetricBackendFailures) != 0 || metric(daemon.MetricBackendLagSeconds) != 0 {
		t.Fatalf("backend metrics after two builds: %v writes (%v timed), %v documents indexed, %v failures, lag %v; want 2 or more, 23, none, 0",
			writes, metric(daemon.MetricBackendBulkDuration), metric(daemon.MetricBackendDocuments, "result", "indexed"),
			metric(daemon.MetricBackendFailures), metric(daemon.MetricBackendLagSeconds))
	}
	// found's four searches, each answered by the cluster and timed.
	if answered, timed, failed := metric(daemon.MetricBackendReads, "result", "answered"), metric(daemon.MetricBackendReadDuration), metric(daemon.MetricBackendReads, "result", "failed"); answered != 4 || timed != 4 || failed != 0 {
		t.Fatalf("backend reads after four searches: %v answered (%v timed), %v failed; want 4, 4, 0", answered, timed, failed)
	}

	p.Down(t)
	before := tbl.T.CurrentSnapshot().SnapshotID
	if err := tbl.Append(ctx, peopletest.Rows(200, 4, "late")); err != nil {
		t.Fatal(err)
	}
	st := daemontest.WaitStatus(t, d.Daemon, "Person", "failing builds with the cluster down", func(st daemon.TypeStatus) bool {
		return st.State == daemon.StateFailing && st.LastError != nil && st.Backend != nil && st.Backend.Failures > 0
	})
	if st.CheckpointSnapshotID != before || !strings.Contains(st.LastError.Message, `"cluster"`) || st.Backend.LagSeconds <= 0 {
		t.Fatalf("status with the cluster down: checkpoint %d (want %d), error %q, backend %+v", st.CheckpointSnapshotID, before, st.LastError.Message, st.Backend)
	}
	if failures, lag := metric(daemon.MetricBackendFailures), metric(daemon.MetricBackendLagSeconds); failures == 0 || lag <= 0 {
		t.Fatalf("backend metrics with the cluster down: %v failures, lag %v", failures, lag)
	}
	v, err := ix.View("Person")
	if err != nil {
		t.Fatal(err)
	}
	_, err = v.Search(ctx, &query.Search{PageSize: 1})
	v.Release()
	if err == nil || !strings.Contains(err.Error(), `"cluster"`) {
		t.Fatalf("a search with the cluster down: %v, want an error naming the cluster", err)
	}
	if answered, failed := metric(daemon.MetricBackendReads, "result", "answered"), metric(daemon.MetricBackendReads, "result", "failed"); answered != 4 || failed != 1 {
		t.Fatalf("backend reads after a search with the cluster down: %v answered, %v failed; want 4 and 1", answered, failed)
	}

	p.Up(t)
	daemontest.WaitStatus(t, d.Daemon, "Person", "catching up after the cluster returned", daemontest.UpToDate(tbl))
	if lisbon, all := found(); lisbon != 7 || all != 27 {
		t.Fatalf("after the cluster returned it finds %d in Lisbon, %d in all; want 7 and 27", lisbon, all)
	}
	if lag := metric(daemon.MetricBackendLagSeconds); lag != 0 {
		t.Fatalf("backend lag %v after the cluster returned", lag)
	}
}
