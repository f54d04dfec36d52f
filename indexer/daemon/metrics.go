package daemon

import (
	"errors"
	"fmt"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/prometheus/client_golang/prometheus"
)

// Metric names (the search backends' are in metrics_backend.go). Every
// metric has the label object_type; build metrics also have kind (full,
// incremental, none), and the build counter result (ok, or the error code
// of a failed build, such as MERGE_ON_READ).
const (
	MetricBuilds          = "ontoindex_builds_total"
	MetricBuildDuration   = "ontoindex_build_duration_seconds"
	MetricFilesRead       = "ontoindex_build_files_read_total"
	MetricBytesRead       = "ontoindex_build_bytes_read_total"
	MetricRowsRead        = "ontoindex_build_rows_read_total"
	MetricUpserts         = "ontoindex_build_upserts_total"
	MetricDeletes         = "ontoindex_build_deletes_total"
	MetricSkippedRows     = "ontoindex_build_skipped_rows_total"
	MetricMORRefusals     = "ontoindex_merge_on_read_refusals_total"
	MetricPollErrors      = "ontoindex_poll_errors_total"
	MetricReloads         = "ontoindex_config_reloads_total"
	MetricBuildsRunning   = "ontoindex_builds_running"
	MetricLagSeconds      = "ontoindex_lag_seconds"
	MetricLagSnapshots    = "ontoindex_lag_snapshots"
	MetricObjects         = "ontoindex_objects"
	MetricGeneration      = "ontoindex_generation"
	MetricCheckpointAge   = "ontoindex_checkpoint_age_seconds"
	MetricObjectTypeState = "ontoindex_object_type_state"
)

// ResultOK is the result label of a successful build.
const ResultOK = "ok"

// metrics are the daemon's Prometheus metrics. Counters and the duration
// histogram are updated as builds finish; the gauges (lag, objects,
// generation, state) are computed from the daemon's status at scrape time,
// so lagSeconds keeps growing between polls as it should.
type metrics struct {
	builds      *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	filesRead   *prometheus.CounterVec
	bytesRead   *prometheus.CounterVec
	rowsRead    *prometheus.CounterVec
	upserts     *prometheus.CounterVec
	deletes     *prometheus.CounterVec
	skipped     *prometheus.CounterVec
	morRefusals *prometheus.CounterVec
	pollErrors  *prometheus.CounterVec
	reloads     *prometheus.CounterVec
}

// newMetrics registers the daemon's metrics with reg. status is called at
// scrape time for the gauges.
func newMetrics(reg prometheus.Registerer, d *Daemon) (*metrics, error) {
	typeKind := []string{"object_type", "kind"}
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	}
	m := &metrics{
		builds: counter(MetricBuilds, "Builds by object type, kind and result (ok or the error code).", "object_type", "kind", "result"),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    MetricBuildDuration,
			Help:    "Duration of builds, successful or not, by object type and kind.",
			Buckets: prometheus.ExponentialBucketsRange(0.005, 3600, 16),
		}, typeKind),
		filesRead:   counter(MetricFilesRead, "Data files read by builds.", typeKind...),
		bytesRead:   counter(MetricBytesRead, "Bytes read from data files by builds.", typeKind...),
		rowsRead:    counter(MetricRowsRead, "Rows read from data files by builds.", typeKind...),
		upserts:     counter(MetricUpserts, "Objects inserted or updated by builds.", typeKind...),
		deletes:     counter(MetricDeletes, "Objects deleted by builds.", typeKind...),
		skipped:     counter(MetricSkippedRows, "Invalid rows skipped by builds (onInvalidRow: skip).", typeKind...),
		morRefusals: counter(MetricMORRefusals, "Builds refused because the target snapshot has live merge-on-read delete files.", "object_type"),
		pollErrors:  counter(MetricPollErrors, "Failed polls of the table behind an object type.", "object_type"),
		reloads:     counter(MetricReloads, "Config reloads by result (ok or rejected).", "result"),
	}
	cs := []prometheus.Collector{m.builds, m.duration, m.filesRead, m.bytesRead, m.rowsRead, m.upserts, m.deletes, m.skipped,
		m.morRefusals, m.pollErrors, m.reloads, &statusCollector{d: d}}
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
		return nil, fmt.Errorf("register metrics: %w", err)
	}
	return m, nil
}

// build records a finished build.
func (m *metrics) build(res *indexer.BuildResult) {
	if m == nil {
		return
	}
	kind := string(res.Kind)
	result := ResultOK
	if res.Error != nil {
		result = res.Error.Code
	}
	m.builds.WithLabelValues(res.ObjectType, kind, result).Inc()
	m.duration.WithLabelValues(res.ObjectType, kind).Observe(float64(res.DurationMs) / 1000)
	m.filesRead.WithLabelValues(res.ObjectType, kind).Add(float64(res.FilesRead))
	m.bytesRead.WithLabelValues(res.ObjectType, kind).Add(float64(res.BytesRead))
	m.rowsRead.WithLabelValues(res.ObjectType, kind).Add(float64(res.RowsRead))
	m.upserts.WithLabelValues(res.ObjectType, kind).Add(float64(res.Upserts))
	m.deletes.WithLabelValues(res.ObjectType, kind).Add(float64(res.Deletes))
	m.skipped.WithLabelValues(res.ObjectType, kind).Add(float64(res.SkippedRows))
	if result == indexer.CodeMergeOnRead {
		m.morRefusals.WithLabelValues(res.ObjectType).Inc()
	}
}

func (m *metrics) pollError(name string) {
	if m != nil {
		m.pollErrors.WithLabelValues(name).Inc()
	}
}

func (m *metrics) reload(err error) {
	if m == nil {
		return
	}
	if err != nil {
		m.reloads.WithLabelValues("rejected").Inc()
		return
	}
	m.reloads.WithLabelValues(ResultOK).Inc()
}

// forget drops the series of an object type that a reload removed.
func (m *metrics) forget(name string) {
	if m == nil {
		return
	}
	l := prometheus.Labels{"object_type": name}
	for _, v := range []*prometheus.CounterVec{m.builds, m.filesRead, m.bytesRead, m.rowsRead, m.upserts, m.deletes, m.skipped, m.morRefusals, m.pollErrors} {
		v.DeletePartialMatch(l)
	}
	m.duration.DeletePartialMatch(l)
}

// statusCollector exports the gauges of the daemon's status at scrape time.
type statusCollector struct{ d *Daemon }

var (
	descBuildsRunning = prometheus.NewDesc(MetricBuildsRunning, "Builds running now.", nil, nil)
	descLagSeconds    = prometheus.NewDesc(MetricLagSeconds, "Time since the oldest table commit the index does not reflect (0 when up to date).", []string{"object_type"}, nil)
	descLagSnapshots  = prometheus.NewDesc(MetricLagSnapshots, "Snapshots of the table the index does not reflect yet.", []string{"object_type"}, nil)
	descObjects       = prometheus.NewDesc(MetricObjects, "Objects in the serving generation.", []string{"object_type"}, nil)
	descGeneration    = prometheus.NewDesc(MetricGeneration, "Serving generation (0 before the first build).", []string{"object_type"}, nil)
	descCheckpointAge = prometheus.NewDesc(MetricCheckpointAge, "Time since the checkpoint was last moved by a build.", []string{"object_type"}, nil)
	descState         = prometheus.NewDesc(MetricObjectTypeState, "1 for the state the object type is in (building, idle, failing, blocked), else 0.", []string{"object_type", "state"}, nil)
)

func (c *statusCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range append([]*prometheus.Desc{descBuildsRunning, descLagSeconds, descLagSnapshots, descObjects, descGeneration, descCheckpointAge, descState}, backendDescs()...) {
		ch <- d
	}
}

func (c *statusCollector) Collect(ch chan<- prometheus.Metric) {
	running := 0
	now := c.d.now()
	for _, st := range c.d.Status() {
		if st.State == StateBuilding {
			running++
		}
		g := func(desc *prometheus.Desc, v float64, labels ...string) {
			ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, v, append([]string{st.ObjectType}, labels...)...)
		}
		g(descLagSeconds, st.LagSeconds)
		g(descLagSnapshots, float64(st.LagSnapshots))
		g(descObjects, float64(st.Objects))
		g(descGeneration, float64(st.Generation))
		if !st.builtAt.IsZero() {
			g(descCheckpointAge, now.Sub(st.builtAt).Seconds())
		}
		for _, s := range []State{StateBuilding, StateIdle, StateFailing, StateBlocked} {
			v := 0.0
			if st.State == s {
				v = 1
			}
			g(descState, v, string(s))
		}
		collectBackend(ch, st.ObjectType, st.Backend)
	}
	ch <- prometheus.MustNewConstMetric(descBuildsRunning, prometheus.GaugeValue, float64(running))
}
