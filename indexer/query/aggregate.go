package query

// MetricKind is the kind of an aggregation metric.
type MetricKind uint8

// Metric kinds.
const (
	_ MetricKind = iota
	Count
	Min
	Max
	Avg
	Sum
	ExactDistinct
	ApproximateDistinct // computed exactly
	// Percentile is the nearest-rank percentile of the values (see
	// Metric.Percentile), exact up to Aggregate.ExactPercentileValues
	// values per group and approximate beyond.
	Percentile
)

// Metric is one metric of an aggregation. Count takes no property; the
// others read the non-null values (array elements each) of Property.
type Metric struct {
	Kind     MetricKind
	Property string
	// Order, when non-zero, orders the groups by this metric: 1 ascending,
	// -1 descending. The first metric with an order decides.
	Order int
	// Percentile, in [0, 1], is the rank of a Percentile metric.
	Percentile float64
}

// GroupKind is the kind of a grouping.
type GroupKind uint8

// Group kinds.
const (
	_ GroupKind = iota
	// Exact groups by value (array elements each).
	Exact
	// FixedWidth groups numbers into [k*Width, (k+1)*Width).
	FixedWidth
	// Ranges groups numbers, dates and timestamps into [Start, End) of each
	// range that holds them.
	Ranges
	// Duration groups dates and timestamps into UTC buckets of Every Units
	// (aggregate_duration.go in package index says how each unit aligns).
	Duration
)

// TimeUnit is the unit of a Duration grouping.
type TimeUnit uint8

// Time units.
const (
	_ TimeUnit = iota
	Milliseconds
	Seconds
	Minutes
	Hours
	Days
	Weeks
	Months
	Quarters
	Years
)

// Range is one range of a Ranges grouping; a nil bound is open. Bounds are
// typed like filter values.
type Range struct {
	Start, End any
}

// Group is one grouping of an aggregation.
type Group struct {
	Kind     GroupKind
	Property string
	// Exact: keep the MaxGroupCount values with most objects (0: all);
	// objects whose value is null (or an empty array) form a group of
	// their own when IncludeNull, or the group Default when it is set, and
	// are left out otherwise.
	MaxGroupCount int
	IncludeNull   bool
	Default       *string
	Width         float64  // FixedWidth
	Ranges        []Range  // Ranges
	Unit          TimeUnit // Duration
	Every         int64    // Duration: buckets of Every Units, at least 1
}

// Aggregate asks for metrics over the objects Filter matches, grouped by
// every combination of the Groups' values.
type Aggregate struct {
	Filter  *Filter
	Metrics []Metric
	Groups  []Group
	Limits  Limits
	// ExactPercentileValues bounds the values of one group a Percentile
	// metric keeps to rank exactly; past it the group's percentile comes
	// from a sketch with 1% relative error and the result is Approximate.
	// Zero means DefaultExactPercentileValues.
	ExactPercentileValues int
}

// DefaultExactPercentileValues is the default of
// Aggregate.ExactPercentileValues: 8 MiB of float64s per group.
const DefaultExactPercentileValues = 1 << 20

// GroupKey is the value of one grouping for one group.
type GroupKey struct {
	// Value is the typed value of an Exact group (nil for the null
	// group), or the start of a Duration group's bucket, typed like the
	// property (objects.Date or a UTC time.Time).
	Value any
	// IsDefault marks the Exact group of nulls under Group.Default.
	IsDefault bool
	// Start and End bound a FixedWidth group.
	Start, End float64
	// Range is the index of the range of a Ranges group.
	Range int
}

// GroupResult is one group: its keys, one per grouping, and its metric
// values, one per metric:
//
//	Count                         int64
//	Min, Max                      the typed value, nil without values
//	Sum                           int64 or *big.Int for integer properties, float64 otherwise; nil without values
//	Avg                           float64; nil without values
//	ExactDistinct, Approximate... int64
//	Percentile                    float64; nil without values
type GroupResult struct {
	Keys    []GroupKey
	Count   int64
	Metrics []any
}

// AggregateResult lists the groups in result order: by the first metric
// with an order, else by object count descending, then by group keys.
type AggregateResult struct {
	Groups []GroupResult
	// Approximate is set when some percentile came from a sketch.
	Approximate bool
}
