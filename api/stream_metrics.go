package api

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Subscription metric names.
const (
	MetricSubscriptionConnections = "ontoindex_subscription_connections"
	MetricSubscriptions           = "ontoindex_subscriptions"
	MetricSubscriptionMessages    = "ontoindex_subscription_messages_total"
	MetricSubscriptionRefreshes   = "ontoindex_subscription_refreshes_total"
	MetricSubscriptionDrops       = "ontoindex_subscription_drops_total"
	MetricSubscriptionPush        = "ontoindex_subscription_push_seconds"
)

// streamMetrics are the metrics of the subscriptions (stream.go).
type streamMetrics struct {
	connections   prometheus.Gauge
	subscriptions prometheus.Gauge
	messages      *prometheus.CounterVec // by message type
	refreshes     *prometheus.CounterVec // by reason
	drops         prometheus.Counter
	push          prometheus.Histogram
}

// Reasons of refreshObjectSet, the label of MetricSubscriptionRefreshes.
const (
	refreshReplaced = "replaced"  // a full build or a config reload
	refreshBehind   = "behind"    // the connection's queue overflowed
	refreshTooLarge = "too_large" // the change message would exceed maxMessageBytes
	refreshFeedGap  = "feed_gap"  // the server fell behind the builds
)

func newStreamMetrics(reg prometheus.Registerer) (*streamMetrics, error) {
	m := &streamMetrics{
		connections: prometheus.NewGauge(prometheus.GaugeOpts{Name: MetricSubscriptionConnections,
			Help: "Open subscription websockets."}),
		subscriptions: prometheus.NewGauge(prometheus.GaugeOpts{Name: MetricSubscriptions,
			Help: "Live object set subscriptions over all connections."}),
		messages: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricSubscriptionMessages,
			Help: "Subscription messages written, by type."}, []string{"type"}),
		refreshes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricSubscriptionRefreshes,
			Help: "refreshObjectSet messages queued, by reason."}, []string{"reason"}),
		drops: prometheus.NewCounter(prometheus.CounterOpts{Name: MetricSubscriptionDrops,
			Help: "Change messages dropped because their connection's queue was full (each is followed by a refreshObjectSet)."}),
		push: prometheus.NewHistogram(prometheus.HistogramOpts{Name: MetricSubscriptionPush,
			Help:    "Time from a build's commit being served to its change message being written.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}}),
	}
	if err := registerAll(reg, "subscription", m.connections, m.subscriptions, m.messages, m.refreshes, m.drops, m.push); err != nil {
		return nil, err
	}
	return m, nil
}
