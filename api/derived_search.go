package api

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// loadObjects of a set with derived properties: the derived values of
// every object of the source set, the where clauses on them, the order
// (stored or derived properties, nulls last, then primary key) and a
// page after the token's position. A token holds the sort values and
// key of the last object of its page, so the next page is computed again
// and continues strictly after it.

// derivedMatches is the objects of rs (positions in its page) that every
// where clause matches.
func derivedMatches(rs *derivedRows, where []*query.Filter) ([]int, error) {
	keep := make([]int, 0, rs.page.Len())
	for j := range rs.page.Len() {
		ok := true
		for _, w := range where {
			m, err := matches(rs, j, w)
			if err != nil {
				return nil, err
			}
			if !m {
				ok = false
				break
			}
		}
		if ok {
			keep = append(keep, j)
		}
	}
	return keep, nil
}

// position is where an object stands in an order: its sort values and
// its primary key.
type position struct {
	values []any
	key    []byte
}

// encodePosition is a page token's values: the sort values, then the key.
func encodePosition(p position) ([]string, error) {
	var out []string
	for _, v := range p.values {
		b, err := objects.AppendValue(nil, v)
		if err != nil {
			return nil, fmt.Errorf("page token: %w", err)
		}
		out = append(out, string(b))
	}
	return append(out, string(p.key)), nil
}

func decodePosition(vals []string, n int) (position, bool) {
	if len(vals) != n+1 {
		return position{}, false
	}
	var p position
	for _, s := range vals[:n] {
		v, rest, err := objects.ReadValue([]byte(s))
		if err != nil || len(rest) > 0 {
			return position{}, false
		}
		p.values = append(p.values, v)
	}
	p.key = []byte(vals[n])
	return p, true
}

// loadDerived serves loadObjects of a set with derived properties.
func (s *Server) loadDerived(ctx context.Context, d *setDecoder, f *query.Filter, req *loadObjectSetRequest, size int) (*derivedPage, error) {
	t := d.derived.Type
	order, sel, err := orderAndSelect(t, req.OrderBy, req.Select, req.SelectV2)
	if err != nil {
		return nil, err
	}
	rs, err := d.evalDerived(ctx, d.view.Type().APIName, f, d.derived)
	if err != nil {
		return nil, err
	}
	keep, err := derivedMatches(rs, d.derived.Where)
	if err != nil {
		return nil, err
	}
	fp := wire.Fingerprint("derived", t.APIName, compact(req.ObjectSet), sortKey(order))
	o := newOrdering(rs, order)
	after := keep
	if req.PageToken != "" {
		tok, err := wire.DecodeToken(req.PageToken, wire.TokSearch, fp)
		if err != nil {
			return nil, err
		}
		at, ok := decodePosition(tok.Values, len(order))
		if !ok {
			return nil, wire.InvalidToken(req.PageToken)
		}
		// The page starts strictly after the token's position.
		after = slices.DeleteFunc(slices.Clone(keep), func(j int) bool { return o.compareTo(j, at) <= 0 })
	}
	data := o.first(after, size)
	page := &derivedPage{r: &renderer{layout: layoutOf(t), sel: sel, excludeRID: req.ExcludeRid}, rows: rs, data: data, total: int64(len(keep))}
	if len(after) > len(data) {
		vals, err := encodePosition(o.position(data[len(data)-1]))
		if err != nil {
			return nil, err
		}
		page.next = wire.Token{Kind: wire.TokSearch, FP: fp, Values: vals}.Encode()
	}
	return page, nil
}

// derivedPage is a page of objects with derived properties
// (LoadObjectSetResponseV2).
type derivedPage struct {
	r     *renderer
	rows  *derivedRows
	data  []int
	next  string
	total int64
}

func (p *derivedPage) appendJSON(b []byte) []byte {
	b = append(b, `{"data":[`...)
	base := len(p.rows.base.Properties)
	for n, j := range p.data {
		if n > 0 {
			b = append(b, ',')
		}
		o := &objects.Object{Values: make([]any, len(p.r.t.Properties))}
		stored := p.rows.page.Object(j)
		copy(o.Values[:base], stored.Values)
		for k := range p.rows.values {
			o.Values[base+k] = p.rows.values[k].at(j)
		}
		b = p.r.appendObject(b, p.rows.page.Key(j), o)
	}
	b = append(b, ']')
	if p.next != "" {
		b = appendString(append(b, `,"nextPageToken":`...), p.next)
	}
	b = strconv.AppendInt(append(b, `,"totalCount":"`...), p.total, 10)
	return append(b, `","propertySecurities":[]}`...)
}

// matches evaluates a where clause on object j of rs, in memory: the
// comparisons, in, isNull, contains, startsWith and their combinations.
func matches(rs *derivedRows, j int, f *query.Filter) (bool, error) {
	switch f.Op {
	case query.OpAll:
		return true, nil
	case query.OpNone:
		return false, nil
	case query.OpAnd, query.OpOr:
		for _, k := range f.Kids {
			m, err := matches(rs, j, k)
			if err != nil {
				return false, err
			}
			if m == (f.Op == query.OpOr) {
				return m, nil
			}
		}
		return f.Op == query.OpAnd, nil
	case query.OpNot:
		m, err := matches(rs, j, f.Kids[0])
		return !m, err
	case query.OpKeys:
		return slices.ContainsFunc(f.Keys, func(k []byte) bool { return bytes.Equal(k, rs.page.Key(j)) }), nil
	}
	i := rs.t.PropertyIndex(f.Property)
	if i < 0 {
		return false, wire.PropertiesNotFound(rs.t, []string{f.Property})
	}
	v := rs.value(j, i)
	switch f.Op {
	case query.OpIsNull:
		isNull := v == nil
		if list, ok := v.([]any); ok {
			isNull = len(list) == 0
		}
		return isNull == (f.Value == true), nil
	case query.OpContains:
		list, _ := v.([]any)
		return slices.ContainsFunc(list, func(e any) bool { return e != nil && compareValues(e, f.Value) == 0 }), nil
	}
	if v == nil {
		return false, nil
	}
	switch f.Op {
	case query.OpEq:
		return compareValues(v, f.Value) == 0, nil
	case query.OpGt:
		return compareValues(v, f.Value) > 0, nil
	case query.OpGte:
		return compareValues(v, f.Value) >= 0, nil
	case query.OpLt:
		return compareValues(v, f.Value) < 0, nil
	case query.OpLte:
		return compareValues(v, f.Value) <= 0, nil
	case query.OpIn:
		return slices.ContainsFunc(f.InValues(), func(e any) bool { return compareValues(v, e) == 0 }), nil
	case query.OpStartsWith:
		str, ok := v.(string)
		return ok && strings.HasPrefix(str, f.Text), nil
	}
	return false, wire.Err(wire.NamePropertyFiltersNotSupported, map[string]any{"propertyFilter": f.Op.String(), "property": f.Property,
		"reason": fmt.Sprintf("a where clause that names a derived property takes comparisons, in, isNull, contains and startsWith, not %s", f.Op)})
}
