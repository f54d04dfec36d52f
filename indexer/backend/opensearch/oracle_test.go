//go:build integration_opensearch

package opensearch

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// itemWords make the text values; itemCities the keyword values: cases,
// an empty string and a newline.
var itemWords = strings.Fields("amber basalt cedar delta ember fjord granite harbor indigo juniper kestrel lagoon")

var itemCities = []string{"Amsterdam", "Berlin", "Cairo", "Delhi", "amsterdam", "", "Zürich", "Oslo", "new\nline"}

// randomItem is item id with random values, about one in eight null.
func randomItem(r *rand.Rand, id int64) *objects.Object {
	null := func() bool { return r.IntN(8) == 0 }
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	words := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = pick(itemWords)
			switch r.IntN(10) {
			case 0:
				ws[i] = strings.ToUpper(ws[i])
			case 1:
				ws[i] += ","
			case 2:
				ws[i] += "-" + pick(itemWords)
			}
		}
		return strings.Join(ws, " ")
	}
	v := make([]any, 19)
	v[0] = id
	if !null() {
		v[1] = words(1 + r.IntN(4))
	}
	if !null() {
		v[2] = pick(itemCities)
	}
	if !null() {
		v[3] = fmt.Sprintf("c%05d", r.IntN(5000))
	}
	if !null() {
		if r.IntN(20) == 0 {
			v[4] = math.Copysign(0, -1)
		} else {
			v[4] = float64(r.IntN(2000)-1000) / 4
		}
	}
	if !null() {
		if r.IntN(10) == 0 {
			v[5] = int64(math.MaxInt64 - r.IntN(3))
		} else {
			v[5] = int64(r.IntN(50))
		}
	}
	if !null() {
		v[6] = objects.Decimal{Unscaled: big.NewInt(int64(r.IntN(1e6) - 5e5)), Scale: 2}
	}
	if !null() {
		v[7] = objects.Date(19000 + r.IntN(100))
	}
	if !null() {
		v[8] = time.UnixMilli(1.7e12 + int64(r.IntN(1000))*7).UTC()
	}
	if !null() {
		v[9] = r.IntN(2) == 0
	}
	if !null() {
		tags := make([]any, r.IntN(4))
		for i := range tags {
			tags[i] = pick(itemCities)
		}
		v[10] = tags
	}
	if !null() {
		notes := make([]any, r.IntN(3))
		for i := range notes {
			notes[i] = words(1 + r.IntN(3))
		}
		v[11] = notes
	}
	if !null() {
		scores := make([]any, r.IntN(3))
		for i := range scores {
			if r.IntN(5) > 0 {
				scores[i] = int64(r.IntN(10))
			}
		}
		v[12] = scores
	}
	if !null() {
		v[13] = words(2)
	}
	if !null() {
		v[14] = true
		if !null() {
			v[15] = pick(itemCities)
		}
		if !null() {
			v[16] = int64(r.IntN(12))
		}
	}
	if !null() {
		v[17] = int64(r.IntN(300) - 100)
	}
	if !null() {
		v[18] = objects.UUID{byte(r.IntN(4)), byte(r.IntN(256)), 7}
	}
	return &objects.Object{Values: v}
}

// itemElements are the non-null values of a value (a list's elements).
func itemElements(v any) []any {
	list, ok := v.([]any)
	if !ok {
		if v == nil {
			return nil
		}
		return []any{v}
	}
	var out []any
	for _, e := range list {
		if e != nil {
			out = append(out, e)
		}
	}
	return out
}

// randomItemValue is a filter value for property i, often one an object
// holds.
func randomItemValue(r *rand.Rand, p objects.Property, items []*objects.Object, i int) any {
	if r.IntN(3) > 0 {
		for range 10 {
			if els := itemElements(items[r.IntN(len(items))].Values[i]); len(els) > 0 {
				return els[r.IntN(len(els))]
			}
		}
	}
	switch p.Type.Primitive().Kind {
	case objects.KindString:
		return itemCities[r.IntN(len(itemCities))]
	case objects.KindLong:
		return int64(r.IntN(60) - 5)
	case objects.KindDouble:
		return float64(r.IntN(2000)-1000) / 4
	case objects.KindDecimal:
		return objects.Decimal{Unscaled: big.NewInt(int64(r.IntN(1e6) - 5e5)), Scale: 2}
	case objects.KindDate:
		return objects.Date(19000 + r.IntN(100))
	case objects.KindTimestampTZ:
		return time.UnixMilli(1.7e12 + int64(r.IntN(7000))).UTC()
	case objects.KindBoolean:
		return r.IntN(2) == 0
	case objects.KindUUID:
		return objects.UUID{byte(r.IntN(4)), byte(r.IntN(256)), 7}
	}
	return nil
}

// randomItemFilter is a random filter tree of depth at most depth.
func randomItemFilter(r *rand.Rand, t *objects.Type, items []*objects.Object, keys [][]byte, depth int) *query.Filter {
	if depth > 0 && r.IntN(3) == 0 {
		kids := make([]*query.Filter, r.IntN(4))
		for i := range kids {
			kids[i] = randomItemFilter(r, t, items, keys, depth-1)
		}
		switch r.IntN(3) {
		case 0:
			return query.And(kids...)
		case 1:
			return query.Or(kids...)
		}
		return query.Not(randomItemFilter(r, t, items, keys, depth-1))
	}
	if r.IntN(30) == 0 {
		var ks [][]byte
		for range r.IntN(5) {
			if n := r.IntN(len(keys) + 2); n < len(keys) {
				ks = append(ks, keys[n])
			}
		}
		return query.Keys(ks...)
	}
	i := r.IntN(len(t.Properties))
	p := t.Properties[i]
	if !p.Searchable() || r.IntN(8) == 0 {
		return query.IsNull(p.APIName, r.IntN(2) == 0)
	}
	word := func() string { return itemWords[r.IntN(len(itemWords))] }
	if p.Search == objects.SearchText && r.IntN(4) == 0 {
		return query.Interval(p.APIName, randomRule(r, p, 2))
	}
	if p.Search == objects.SearchText && r.IntN(2) == 0 {
		text := word()
		for range r.IntN(3) {
			text += []string{" ", ", ", "-"}[r.IntN(3)] + word()
		}
		ops := []query.Op{query.OpAllTerms, query.OpAnyTerm, query.OpPhrase, query.OpPhrasePrefix, query.OpStartsWith}
		f := query.Text(ops[r.IntN(len(ops))], p.APIName, text)
		if f.Op == query.OpPhrasePrefix || f.Op == query.OpStartsWith {
			f.Text = f.Text[:len(f.Text)-r.IntN(3)]
		}
		if (f.Op == query.OpAllTerms || f.Op == query.OpAnyTerm) && r.IntN(2) == 0 {
			f.Fuzzy = true
			f.Text = text[:len(text)-1] + "x"
		}
		return f
	}
	if p.Search == objects.SearchKeyword && p.Type.Primitive().Kind != objects.KindString && r.IntN(3) == 0 {
		// The text of numbers and uuids.
		switch r.IntN(3) {
		case 0:
			return query.Text(query.OpWildcard, p.APIName, []string{"1*", "-*", "?", "*0", "0?*-*"}[r.IntN(5)])
		case 1:
			return query.Text(query.OpRegex, p.APIName, []string{"[1-3][0-9]", "-.*", "0[0-3].*"}[r.IntN(3)])
		}
		return query.Text(query.OpStartsWith, p.APIName, []string{"1", "-", "02", ""}[r.IntN(4)])
	}
	if p.Type.Primitive().Kind == objects.KindString && r.IntN(3) == 0 {
		wildcards := []string{"*m*", "?erlin", "A*", "c0001*", "*", "*\\*", "*0", "*1?", "?0001*", "*3*7", "c01*5", "*in", "new?line", "new*"}
		regexps := []string{"[A-C].*", "c00[0-4].", ".*o", "(Oslo|Cairo)", ".*[05]", "c01.*[05]", "(?i).*IN", "new.line", "[^a-c].{2,4}", "c\\d{5}", "Z\\w+ch", ""}
		switch r.IntN(3) {
		case 0:
			return query.Text(query.OpWildcard, p.APIName, wildcards[r.IntN(len(wildcards))])
		case 1:
			return query.Text(query.OpRegex, p.APIName, regexps[r.IntN(len(regexps))])
		}
		if p.Search == objects.SearchKeyword {
			return query.Text(query.OpStartsWith, p.APIName, []string{"A", "c001", "", "Z", "a", "Zü"}[r.IntN(6)])
		}
	}
	v := randomItemValue(r, p, items, i)
	switch r.IntN(6) {
	case 0:
		vs := make([]any, []int{0, 1, 2, 3, 50}[r.IntN(5)])
		for j := range vs {
			vs[j] = randomItemValue(r, p, items, i)
		}
		return query.In(p.APIName, vs...)
	case 1, 2:
		if p.Type.Primitive().Kind != objects.KindBoolean {
			ops := []query.Op{query.OpGt, query.OpGte, query.OpLt, query.OpLte}
			return query.Compare(ops[r.IntN(4)], p.APIName, v)
		}
	}
	if p.Type.Kind == objects.KindList && r.IntN(2) == 0 {
		return query.Compare(query.OpContains, p.APIName, v)
	}
	return query.Eq(p.APIName, v)
}

// randomItemSort is zero to two sort properties.
func randomItemSort(r *rand.Rand, t *objects.Type) []query.Sort {
	var out []query.Sort
	used := map[string]bool{}
	for range r.IntN(3) {
		p := t.Properties[r.IntN(len(t.Properties))]
		if !p.Sortable() || used[p.APIName] {
			continue
		}
		used[p.APIName] = true
		out = append(out, query.Sort{Property: p.APIName, Desc: r.IntN(2) == 0})
	}
	return out
}

// randomItemAggregate is a random aggregation of what the backend
// computes: count, min, max, sum, avg and distinct counts, grouped by
// exact values.
func randomItemAggregate(r *rand.Rand, t *objects.Type, items []*objects.Object, keys [][]byte) *query.Aggregate {
	q := &query.Aggregate{Filter: randomItemFilter(r, t, items, keys, 2)}
	if r.IntN(4) == 0 {
		q.Filter = nil
	}
	pick := func(names ...string) string { return names[r.IntN(len(names))] }
	for range 1 + r.IntN(3) {
		m := query.Metric{Kind: []query.MetricKind{query.Count, query.Min, query.Max, query.Avg, query.Sum, query.ExactDistinct, query.ApproximateDistinct}[r.IntN(7)]}
		switch m.Kind {
		case query.Min, query.Max:
			m.Property = pick("id", "balance", "visits", "day", "at", "scores", "crew.size", "city", "code", "name", "active", "rank", "ref")
		case query.Avg, query.Sum:
			// visits holds values near 2^63, whose sums OpenSearch refuses.
			m.Property = pick("id", "balance", "scores", "crew.size", "amount")
		case query.ExactDistinct, query.ApproximateDistinct:
			m.Property = pick("id", "name", "city", "code", "balance", "visits", "amount", "day", "at", "active", "tags", "notes", "scores", "crew.captain", "crew.size", "rank", "ref")
		}
		if r.IntN(4) == 0 {
			m.Order = []int{1, -1}[r.IntN(2)]
		}
		q.Metrics = append(q.Metrics, m)
	}
	used := map[string]bool{}
	for range r.IntN(3) {
		// Not scores: grouping by a numeric list is refused (numericList).
		g := query.Group{Kind: query.Exact, Property: pick("name", "city", "balance", "visits", "day", "at", "active", "tags", "notes", "crew.captain", "crew.size", "rank", "ref")}
		if r.IntN(5) == 0 {
			g = query.Group{Kind: query.FixedWidth, Property: pick("id", "balance", "visits", "amount", "crew.size", "rank"), Width: []float64{10, 0.5, 1e20, 7}[r.IntN(4)]}
		} else if r.IntN(4) == 0 {
			g = query.Group{Kind: query.Duration, Property: pick("day", "at"), Unit: query.TimeUnit(1 + r.IntN(int(query.Years))), Every: int64(1 + r.IntN(3))}
			if g.Unit < query.Days {
				g.Property = "at"
			}
			if g.Unit >= query.Months { // one calendar unit only (durationSource)
				g.Every = 1
			}
		} else if r.IntN(3) == 0 {
			g = query.Group{Kind: query.Ranges, Property: pick("visits", "day", "balance", "rank", "at", "scores", "code")}
			i := t.PropertyIndex(g.Property)
			for range 1 + r.IntN(3) {
				lo, hi := randomItemValue(r, t.Properties[i], items, i), randomItemValue(r, t.Properties[i], items, i)
				switch r.IntN(4) {
				case 0:
					lo = nil
				case 1:
					hi = nil
				}
				g.Ranges = append(g.Ranges, query.Range{Start: lo, End: hi})
			}
		}
		if used[g.Property] {
			continue
		}
		used[g.Property] = true
		if r.IntN(3) == 0 {
			g.MaxGroupCount = 1 + r.IntN(4)
		}
		switch r.IntN(3) {
		case 0:
			g.IncludeNull = true
		case 1:
			def := "none"
			g.Default = &def
		}
		q.Groups = append(q.Groups, g)
	}
	return q
}
