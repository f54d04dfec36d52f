package index

import (
	"cmp"
	"math"
	"slices"

	"github.com/ontoindex/ontoindex/indexer/query"
)

// A percentile metric is the nearest-rank percentile: of the n values of a
// group in ascending order (NaN last), the value at rank max(1, ceil(p*n)),
// p*n exact with p the decimal it was written as (query.PercentileRank), so p = 0 is the minimum and p = 1 the maximum. A group keeps its values
// (as float64) and ranks them exactly until it holds more than the
// metric's exactValues; then they move into a percentileSketch, whose
// answer is within 1% of the exact one (relative), and the aggregation's
// result says it is approximate.

// exactPercentile ranks values in place.
func exactPercentile(values []float64, p float64) float64 {
	slices.SortFunc(values, func(a, b float64) int { return cmp.Compare(floatKey(a), floatKey(b)) })
	return values[query.PercentileRank(p, int64(len(values)))-1]
}

// sketchAccuracy is the relative error of a percentileSketch.
const sketchAccuracy = 0.01

// percentileSketch counts values in logarithmic buckets (a DDSketch): a
// value v > 0 falls in bucket ceil(log_gamma(v)), gamma = (1+a)/(1-a),
// whose midpoint 2*gamma^i/(gamma+1) is within a of every value in it.
// Negative values mirror the positive ones; zeros, tiny values,
// infinities and NaN are counted apart. The buckets a group uses are few
// (about 1,400 per 10^6 of range per sign), so memory stays small.
type percentileSketch struct {
	logGamma          float64
	positive          map[int32]int64
	negative          map[int32]int64 // by the bucket of -v
	zero, nan         int64
	negInf, posInf    int64
	count             int64
	smallest, largest float64 // exact extremes: p = 0 and p = 1 stay exact
}

func newPercentileSketch() *percentileSketch {
	gamma := (1 + sketchAccuracy) / (1 - sketchAccuracy)
	return &percentileSketch{logGamma: math.Log(gamma), positive: map[int32]int64{}, negative: map[int32]int64{},
		smallest: math.Inf(1), largest: math.Inf(-1)}
}

// minSketchMagnitude: smaller magnitudes count as zero (their bucket index
// would underflow int32 no sooner, but the error stays absolute and tiny).
const minSketchMagnitude = 1e-300

func (s *percentileSketch) add(v float64) {
	s.count++
	switch {
	case math.IsNaN(v):
		s.nan++
		return
	case math.IsInf(v, 1):
		s.posInf++
	case math.IsInf(v, -1):
		s.negInf++
	case math.Abs(v) < minSketchMagnitude:
		s.zero++
	case v > 0:
		s.positive[s.index(v)]++
	default:
		s.negative[s.index(-v)]++
	}
	s.smallest, s.largest = min(s.smallest, v), max(s.largest, v)
}

func (s *percentileSketch) index(v float64) int32 {
	return int32(math.Ceil(math.Log(v) / s.logGamma))
}

func (s *percentileSketch) midpoint(i int32) float64 {
	gamma := math.Exp(s.logGamma)
	return 2 * math.Exp(float64(i)*s.logGamma) / (gamma + 1)
}

// percentile walks the buckets in value order to the nearest rank.
func (s *percentileSketch) percentile(p float64) float64 {
	rank := query.PercentileRank(p, s.count)
	finite := s.count - s.nan
	switch {
	case rank > finite:
		return math.NaN()
	case rank == 1 && finite > 0:
		return s.smallest
	case rank == finite:
		return s.largest
	}
	seen := s.negInf
	if rank <= seen {
		return math.Inf(-1)
	}
	neg := sortedKeys(s.negative)
	for i := len(neg) - 1; i >= 0; i-- { // the largest magnitudes first
		if seen += s.negative[neg[i]]; rank <= seen {
			return -s.midpoint(neg[i])
		}
	}
	if seen += s.zero; rank <= seen {
		return 0
	}
	for _, k := range sortedKeys(s.positive) {
		if seen += s.positive[k]; rank <= seen {
			return s.midpoint(k)
		}
	}
	return math.Inf(1)
}

func sortedKeys(m map[int32]int64) []int32 {
	out := make([]int32, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
