package daemon

import (
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/prometheus/client_golang/prometheus"
)

// Search backend metric names: one series per object type that names a
// backend (labels backend and object_type), from its status
// (indexer.BackendStatus) at scrape time. The counters count since the
// indexer opened or the type's config last changed, which Prometheus
// takes as a counter reset.
const (
	MetricBackendBulkWrites   = "ontoindex_backend_bulk_writes_total"
	MetricBackendBulkDuration = "ontoindex_backend_bulk_write_duration_seconds"
	MetricBackendBulkLatency  = "ontoindex_backend_bulk_write_last_seconds"
	MetricBackendDocuments    = "ontoindex_backend_documents_total"
	MetricBackendRetries      = "ontoindex_backend_retries_total"
	MetricBackendRejections   = "ontoindex_backend_rejections_total"
	MetricBackendFailures     = "ontoindex_backend_failures_total"
	MetricBackendFallbacks    = "ontoindex_backend_fallbacks_total"
	MetricBackendReads        = "ontoindex_backend_reads_total"
	MetricBackendReadDuration = "ontoindex_backend_read_duration_seconds"
	MetricBackendLagSeconds   = "ontoindex_backend_lag_seconds"
)

var (
	backendLabels       = []string{"backend", "object_type"}
	descBackendWrites   = prometheus.NewDesc(MetricBackendBulkWrites, "Bulk writes the search backend acknowledged.", backendLabels, nil)
	descBackendDuration = prometheus.NewDesc(MetricBackendBulkDuration, "Duration of the bulk writes the search backend acknowledged (count and sum).", backendLabels, nil)
	descBackendLatency  = prometheus.NewDesc(MetricBackendBulkLatency, "Duration of the last bulk write the search backend acknowledged.", backendLabels, nil)
	descBackendDocs     = prometheus.NewDesc(MetricBackendDocuments, "Documents the bulk writes indexed, deleted, or found the backend to hold at their version already (stale: a replay).", append(backendLabels, "result"), nil)
	descBackendRetries  = prometheus.NewDesc(MetricBackendRetries, "Documents sent again after the search backend refused them for load (429).", backendLabels, nil)
	descBackendRejected = prometheus.NewDesc(MetricBackendRejections, "Bulk writes the search backend refused a document of (a value its mapping cannot take).", backendLabels, nil)
	descBackendFailures = prometheus.NewDesc(MetricBackendFailures, "Failed requests of builds to the search backend, rejections included.", backendLabels, nil)
	descBackendFallback = prometheus.NewDesc(MetricBackendFallbacks, "Reads the search backend refused and the embedded index answered.", backendLabels, nil)
	descBackendReads    = prometheus.NewDesc(MetricBackendReads, "Searches and aggregations sent to the search backend: answered, or failed (unreachable, an error, a query it refused).", append(backendLabels, "result"), nil)
	descBackendReadTime = prometheus.NewDesc(MetricBackendReadDuration, "Duration of the searches and aggregations the search backend answered, the wait for a connection included (count and sum).", backendLabels, nil)
	descBackendLag      = prometheus.NewDesc(MetricBackendLagSeconds, "Time since the first failed request of a build to the search backend after the last that went through (0 while they go through).", backendLabels, nil)
)

// backendDescs are the descriptions of the backend metrics.
func backendDescs() []*prometheus.Desc {
	return []*prometheus.Desc{descBackendWrites, descBackendDuration, descBackendLatency, descBackendDocs, descBackendRetries,
		descBackendRejected, descBackendFailures, descBackendFallback, descBackendReads, descBackendReadTime, descBackendLag}
}

// collectBackend sends the backend metrics of an object type's status;
// none for a type without a backend.
func collectBackend(ch chan<- prometheus.Metric, objectType string, b *indexer.BackendStatus) {
	if b == nil {
		return
	}
	counter := func(desc *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.CounterValue, v, append([]string{b.Backend, objectType}, labels...)...)
	}
	counter(descBackendWrites, float64(b.Writes))
	// The status keeps the mean, not the sum: the sum is the mean times
	// the count, to the microsecond.
	ch <- prometheus.MustNewConstSummary(descBackendDuration, uint64(b.Writes), b.MeanBulkLatencyMs*float64(b.Writes)/1000, nil, b.Backend, objectType)
	ch <- prometheus.MustNewConstMetric(descBackendLatency, prometheus.GaugeValue, b.BulkLatencyMs/1000, b.Backend, objectType)
	counter(descBackendDocs, float64(b.Indexed), "indexed")
	counter(descBackendDocs, float64(b.Deleted), "deleted")
	counter(descBackendDocs, float64(b.Stale), "stale")
	counter(descBackendRetries, float64(b.Retries))
	counter(descBackendRejected, float64(b.Rejections))
	counter(descBackendFailures, float64(b.Failures))
	counter(descBackendFallback, float64(b.Fallbacks))
	counter(descBackendReads, float64(b.Reads), "answered")
	counter(descBackendReads, float64(b.ReadFailures), "failed")
	ch <- prometheus.MustNewConstSummary(descBackendReadTime, uint64(b.Reads), b.MeanReadLatencyMs*float64(b.Reads)/1000, nil, b.Backend, objectType)
	ch <- prometheus.MustNewConstMetric(descBackendLag, prometheus.GaugeValue, b.LagSeconds, b.Backend, objectType)
}
