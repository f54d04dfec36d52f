package index

import (
	"math/big"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// metricAccumulator accumulates one metric of one group.
type metricAccumulator struct {
	count     int64
	intSum    int64
	bigSum    *big.Int // the integer sum once it overflows int64
	floatSum  float64
	min, max  valueKey
	hasMinMax bool
	distinct  map[string]struct{}
	values    []float64         // Percentile, while exact
	sketch    *percentileSketch // Percentile, past the metric's exactValues
}

// add accumulates one value.
func (m *metricAccumulator) add(spec metric, vk valueKey) {
	m.count++
	et := spec.pi.elementType
	switch spec.Kind {
	case query.Min:
		if !m.hasMinMax || compareValueKeys(vk, m.min) < 0 {
			m.min = vk
		}
		m.hasMinMax = true
	case query.Max:
		if !m.hasMinMax || compareValueKeys(vk, m.max) > 0 {
			m.max = vk
		}
		m.hasMinMax = true
	case query.Sum, query.Avg:
		if et.Kind == objects.KindInteger || et.Kind == objects.KindLong {
			v := int64(vk.pre ^ signBit)
			if m.bigSum != nil {
				m.bigSum.Add(m.bigSum, big.NewInt(v))
			} else if s := m.intSum + v; (v > 0 && s < m.intSum) || (v < 0 && s > m.intSum) {
				m.bigSum = new(big.Int).Add(big.NewInt(m.intSum), big.NewInt(v))
			} else {
				m.intSum = s
			}
		}
		m.floatSum += numberOf(et, vk)
	case query.ExactDistinct, query.ApproximateDistinct:
		if m.distinct == nil {
			m.distinct = map[string]struct{}{}
		}
		m.distinct[dictKey(vk)] = struct{}{}
	case query.Percentile:
		v := numberOf(et, vk)
		if m.sketch != nil {
			m.sketch.add(v)
			return
		}
		m.values = append(m.values, v)
		if len(m.values) > spec.exactValues {
			m.sketch = newPercentileSketch()
			for _, x := range m.values {
				m.sketch.add(x)
			}
			m.values = nil
		}
	}
}

// value is the metric's result for a group of count objects.
func (m *metricAccumulator) value(spec metric, count int64) any {
	switch spec.Kind {
	case query.Count:
		return count
	case query.Min:
		if !m.hasMinMax {
			return nil
		}
		return valueOf(spec.pi.elementType, m.min)
	case query.Max:
		if !m.hasMinMax {
			return nil
		}
		return valueOf(spec.pi.elementType, m.max)
	case query.Sum, query.Avg:
		if m.count == 0 {
			return nil
		}
		et := spec.pi.elementType
		integer := et.Kind == objects.KindInteger || et.Kind == objects.KindLong
		if spec.Kind == query.Sum {
			switch {
			case integer && m.bigSum != nil:
				return new(big.Int).Set(m.bigSum)
			case integer:
				return m.intSum
			}
			return m.floatSum
		}
		if integer {
			sum := m.bigSum
			if sum == nil {
				sum = big.NewInt(m.intSum)
			}
			f, _ := new(big.Rat).SetFrac(sum, big.NewInt(m.count)).Float64()
			return f
		}
		return m.floatSum / float64(m.count)
	case query.Percentile:
		switch {
		case m.sketch != nil:
			return m.sketch.percentile(spec.Percentile)
		case len(m.values) == 0:
			return nil
		}
		return exactPercentile(m.values, spec.Percentile)
	}
	return int64(len(m.distinct))
}
