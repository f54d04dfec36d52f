package index

import (
	"fmt"
	"math"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// Duration groupings bucket dates and timestamps in UTC, from the column's
// integer (days since the epoch for dates, microseconds for timestamps)
// with integer arithmetic, never through objects:
//
//   - milliseconds, seconds, minutes, hours and days: fixed-width buckets
//     of Every units counted from 1970-01-01T00:00Z;
//   - weeks: Every weeks starting on a Monday (ISO 8601, as PostgreSQL's
//     date_trunc('week') and Elasticsearch's calendar weeks), counted from
//     Monday 1969-12-29;
//   - months, quarters (January, April, July, October) and years: calendar
//     buckets of Every of them counted from January 1970.
//
// A bucket is named by its start, in the property's own unit.

const (
	microsPerDay = 86_400_000_000
	// epochMonday is 1969-12-29, the Monday before the epoch (a Thursday),
	// in days since the epoch.
	epochMonday = -3
)

// durationBucketer computes the bucket starts of one duration grouping.
type durationBucketer struct {
	date  bool           // the property is a date: values and starts in days
	unit  query.TimeUnit // the grouping's unit
	every int64
	width int64 // sub-day units: the bucket width in microseconds
	// days memoizes the calendar buckets of days (months and longer):
	// see calendarOrdinal. A bucketer serves one query, on one goroutine.
	days []dayOrdinal
}

// dayOrdinal is a day and its calendar bucket; set tells a slot in use.
type dayOrdinal struct {
	day, ord int64
	set      bool
}

// memoDays is the number of days the memo holds, a power of two: two
// years and more of consecutive days without two in one slot.
const memoDays = 1024

func newDurationBucketer(t objects.DataType, g query.Group) (*durationBucketer, error) {
	b := &durationBucketer{date: t.Kind == objects.KindDate, unit: g.Unit, every: g.Every}
	switch t.Kind {
	case objects.KindDate, objects.KindTimestamp, objects.KindTimestampTZ:
	default:
		return nil, fmt.Errorf("duration grouping of %s: a %s property has no time", g.Property, t.Kind)
	}
	if g.Every < 1 {
		return nil, fmt.Errorf("duration grouping of %s: %d units, want at least 1", g.Property, g.Every)
	}
	var unitMicros int64
	switch g.Unit {
	case query.Milliseconds:
		unitMicros = 1000
	case query.Seconds:
		unitMicros = 1_000_000
	case query.Minutes:
		unitMicros = 60_000_000
	case query.Hours:
		unitMicros = 3_600_000_000
	case query.Days, query.Weeks, query.Months, query.Quarters, query.Years:
		if g.Every > math.MaxInt32 {
			return nil, fmt.Errorf("duration grouping of %s: %d units is too wide", g.Property, g.Every)
		}
		return b, nil
	default:
		return nil, fmt.Errorf("duration grouping of %s: unknown unit %d", g.Property, g.Unit)
	}
	if b.date {
		return nil, fmt.Errorf("duration grouping of %s: a date has no time of day; group it by days or longer", g.Property)
	}
	if g.Every > math.MaxInt64/unitMicros/2 {
		return nil, fmt.Errorf("duration grouping of %s: %d units is too wide", g.Property, g.Every)
	}
	b.width = g.Every * unitMicros
	return b, nil
}

// start is the start of the bucket of a column value (a valueKey's pre).
func (b *durationBucketer) start(pre uint64) int64 { return b.startOf(b.ordinal(pre)) }

// ordinal numbers the bucket of a column value: bucket 0 holds the epoch
// (for weeks, Monday 1969-12-29), and consecutive buckets have
// consecutive numbers, so the buckets of a query index a slice.
func (b *durationBucketer) ordinal(pre uint64) int64 {
	x := int64(pre ^ signBit)
	if b.width != 0 { // sub-day, timestamps only
		return floorDiv(x, b.width)
	}
	days := x
	if !b.date {
		days = floorDiv(x, microsPerDay)
	}
	switch b.unit {
	case query.Days:
		return floorDiv(days, b.every)
	case query.Weeks:
		return floorDiv(days-epochMonday, 7*b.every)
	}
	return b.calendarOrdinal(days)
}

// calendarOrdinal is the month, quarter or year bucket of a day. The
// civil calendar's divisions were most of a grouping by month (0.71 s of
// 1.25 in a profile of a million orders: 22 ns an order), and the values
// of a grouping fall on few days, again and again: a direct-mapped memo of
// the last day seen in each slot answers them.
func (b *durationBucketer) calendarOrdinal(days int64) int64 {
	if b.days == nil {
		b.days = make([]dayOrdinal, memoDays)
	}
	e := &b.days[uint64(days)&(memoDays-1)]
	if e.set && e.day == days {
		return e.ord
	}
	y, m, _ := civilFromDays(days)
	ord := floorDiv((y-1970)*12+m-1, b.monthStep())
	*e = dayOrdinal{day: days, ord: ord, set: true}
	return ord
}

// startOf is the start of bucket ord, in the property's own unit.
func (b *durationBucketer) startOf(ord int64) int64 {
	if b.width != 0 {
		return ord * b.width
	}
	var s int64
	switch b.unit {
	case query.Days:
		s = ord * b.every
	case query.Weeks:
		s = ord*7*b.every + epochMonday
	default:
		months := ord * b.monthStep()
		s = daysFromCivil(1970+floorDiv(months, 12), months-floorDiv(months, 12)*12+1, 1)
	}
	if b.date {
		return s
	}
	return s * microsPerDay
}

// monthStep is the months of a calendar bucket.
func (b *durationBucketer) monthStep() int64 {
	switch b.unit {
	case query.Quarters:
		return 3 * b.every
	case query.Years:
		return 12 * b.every
	}
	return b.every
}

// value is a bucket start as the property's typed value.
func (b *durationBucketer) value(start int64) any {
	if b.date {
		return objects.Date(start)
	}
	return time.UnixMicro(start).UTC()
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// civilFromDays and daysFromCivil convert between days since 1970-01-01
// and proleptic Gregorian dates (Howard Hinnant's algorithms), in integers.
func civilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	if mp < 10 {
		m = mp + 3
	} else {
		m = mp - 9
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// byDuration accumulates one duration grouping over a scalar column: the
// bucket ordinal of each match straight from the column's chunks, its
// accumulator from durationGroups, and the metrics read from their
// columns.
func (a *aggregation) byDuration(bm *roaring.Bitmap) (bool, error) {
	if len(a.groups) != 1 || a.groups[0].Kind != query.Duration || a.groups[0].pi.column == nil || a.needsLoad() {
		return false, nil
	}
	g := a.groups[0]
	col := g.pi.column
	if !g.pi.nulls.IsEmpty() {
		bm = roaring.AndNot(bm, g.pi.nulls)
	}
	buckets := newDurationGroups(a, g)
	plain := a.countsOnly()
	it := bm.ManyIterator()
	batch := make([]uint32, 1024)
	for {
		n := it.NextMany(batch)
		if n == 0 {
			return true, nil
		}
		if err := a.x.ctx.Err(); err != nil {
			return true, err
		}
		for _, d := range batch[:n] {
			var pre uint64
			if i := int(d >> chunkShift); i < len(col.chunks) {
				pre = col.chunks[i].pre[d&chunkMask]
			}
			acc, err := buckets.of(g.bucketer.ordinal(pre))
			if err != nil {
				return true, err
			}
			acc.count++
			if plain {
				continue
			}
			for i, m := range a.metrics {
				if m.Kind == query.Count {
					continue
				}
				vals, err := a.values(m.pi, d)
				if err != nil {
					return true, err
				}
				for _, vk := range vals {
					acc.metrics[i].add(m, vk)
				}
			}
		}
	}
}
