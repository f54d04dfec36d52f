package api

import (
	"context"
	"fmt"

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// Derived properties are computed per request from the views the set
// decoder opened, so every value comes from the snapshot that answers the
// request. A selection follows its links level by level: each linked
// object carries the source objects it was reached from, and the last
// level's objects are scanned once, accumulating per source object.

// derivedRows is the objects of a set with derived properties: the
// source set's matching objects and the derived values of each.
type derivedRows struct {
	base   *objects.Type // the stored type
	t      *objects.Type // base with the derived properties appended
	page   *indexer.Page
	values []column // values[k]: derived property k of each object
	// source is the set's objects as the level every selection starts
	// from; nil until the first selection.
	source *level
	// levels are the chains of links followed, by their hops: selections
	// over the same chain (a count and a sum of the same orders) follow it
	// once.
	levels map[string]level
}

// value is property i of the extended type of object j.
func (rs *derivedRows) value(j, i int) any {
	if n := len(rs.base.Properties); i >= n {
		return rs.values[i-n].at(j)
	}
	return cellValue(rs.page, rs.base, j, i)
}

// cellValue is property i of object j of a page.
func cellValue(p *indexer.Page, t *objects.Type, j, i int) any {
	rw := row{t: t, p: p, j: j}
	if !p.FromIndex() {
		rw = row{t: t, o: p.Object(j)}
	}
	var sc objects.Scalar
	if list := rw.cell(i, &sc); list != nil {
		return list
	}
	return sc.Value(t.Properties[i].Type.Kind)
}

// readAll is every object of v that f matches, in primary key order.
func (s *Server) readAll(ctx context.Context, v *indexer.View, f *query.Filter) (*indexer.Page, error) {
	if f == nil {
		f = &query.Filter{Op: query.OpAll}
	}
	// Partial: a definition reads a column or two of each object, not
	// every value that Search would read ahead for rendering.
	p, err := v.PartialSearch(ctx, &query.Search{Filter: f, PageSize: max(1, int(v.Count())), Limits: s.limits()})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", v.Type().APIName, err)
	}
	return p, nil
}

// evalDerived computes the derived properties of the objects f matches in
// the set's type.
func (d *setDecoder) evalDerived(ctx context.Context, typ string, f *query.Filter, der *wire.Derived) (*derivedRows, error) {
	release, err := d.claimDerived(ctx, typ, f, der)
	if err != nil {
		return nil, err
	}
	defer release() // outside a request's middleware; within, the response gives it back
	v := d.views[typ]
	p, err := d.s.readAll(ctx, v, f)
	if err != nil {
		return nil, err
	}
	rs := &derivedRows{base: v.Type(), t: der.Type, page: p, levels: map[string]level{}}
	for _, def := range der.Props {
		vals, err := d.evalDef(ctx, rs, def)
		if err != nil {
			return nil, err
		}
		rs.values = append(rs.values, vals)
	}
	return rs, nil
}

// evalDef is the value of def for each object of rs.
func (d *setDecoder) evalDef(ctx context.Context, rs *derivedRows, def *wire.DerivedDef) (column, error) {
	n := rs.page.Len()
	switch def.Kind {
	case wire.DerivedSelection:
		return d.evalSelection(ctx, rs, def)
	case wire.DerivedProperty:
		i := rs.t.PropertyIndex(def.Property)
		out := make([]any, n)
		for j := range out {
			out[j] = rs.value(j, i)
		}
		return column{anys: out}, nil
	}
	kids := make([]column, len(def.Kids))
	for k, kid := range def.Kids {
		vals, err := d.evalDef(ctx, rs, kid)
		if err != nil {
			return column{}, err
		}
		kids[k] = vals
	}
	out := make([]any, n)
	args := make([]any, len(kids))
	for j := range out {
		for k := range kids {
			args[k] = kids[k].at(j)
		}
		out[j] = compute(def, args)
	}
	return column{anys: out}, nil
}

// level is the objects a chain of links reached: each with the source
// objects (positions in the source page) it was reached from, all in one
// slice (a slice of slices was 24 bytes an object more).
type level struct {
	t    *objects.Type
	page *indexer.Page
	// The origins of object j are of[at[j]:at[j+1]]; without at (the
	// source level), of[j:j+1].
	at, of []int32
}

// origins are the source objects object j of the level was reached from
// (capped: appending to them copies).
func (lv *level) origins(j int) []int32 {
	if lv.at == nil {
		return lv.of[j : j+1 : j+1]
	}
	a, b := lv.at[j], lv.at[j+1]
	return lv.of[a:b:b]
}

// sourceLevel is the set's objects, each its own origin.
func (rs *derivedRows) sourceLevel() level {
	if rs.source == nil {
		self := make([]int32, rs.page.Len())
		for j := range self {
			self[j] = int32(j)
		}
		rs.source = &level{t: rs.base, page: rs.page, of: self}
	}
	return *rs.source
}

// evalSelection follows the selection's links and accumulates its
// operation per source object.
func (d *setDecoder) evalSelection(ctx context.Context, rs *derivedRows, def *wire.DerivedDef) (column, error) {
	lv := rs.sourceLevel()
	chain := ""
	for _, h := range def.Hops {
		chain += fmt.Sprintf("%s.%s[%v];", h.From, h.Link, h.Filter)
		if have, ok := rs.levels[chain]; ok {
			lv = have
			continue
		}
		var err error
		if lv, err = d.hop(ctx, lv, h); err != nil {
			return column{}, err
		}
		rs.levels[chain] = lv
	}
	prop := -1
	if def.Property != "" {
		prop = lv.t.PropertyIndex(def.Property)
	}
	// Sums and averages of numbers read the scalar, unboxed.
	var sc objects.Scalar
	numbers := false
	if prop >= 0 && (def.Op == "sum" || def.Op == "avg") {
		switch k := lv.t.Properties[prop].Type.Kind; k {
		case objects.KindInteger, objects.KindLong, objects.KindFloat, objects.KindDouble:
			numbers = true
		}
	}
	if numericSelection(def, numbers) {
		return accumulateNumbers(def, rs.page.Len(), func(add func([]int32, float64, bool)) {
			for j := range lv.page.Len() {
				origins := lv.origins(j)
				switch {
				case len(origins) == 0:
				case def.Op == "count":
					add(origins, 0, false)
				default:
					x, ok := numberAt(lv.page, lv.t, j, prop, &sc)
					add(origins, x, ok)
				}
			}
		}), nil
	}
	accs := make([]accumulator, rs.page.Len())
	for j := range lv.page.Len() {
		origins := lv.origins(j)
		if len(origins) == 0 {
			continue
		}
		var val any
		if prop >= 0 {
			val = cellValue(lv.page, lv.t, j, prop)
		}
		for _, o := range origins {
			accs[o].add(def, val)
		}
	}
	out := make([]any, len(accs))
	for j := range accs {
		out[j] = accs[j].result(def)
	}
	return column{anys: out}, nil
}

// hop follows one link from the objects of lv: the objects of the
// target type the link reaches (that the hop's filter matches), each with
// the union of the origins of the objects it is reached from.
func (d *setDecoder) hop(ctx context.Context, lv level, h wire.DerivedHop) (level, error) {
	l, sv, tv, err := d.resolveLink(h.From, h.Link)
	if err != nil {
		return level{}, err
	}
	st, tt := sv.Type(), tv.Type()
	var sourceProp, targetProp string
	switch {
	case l.Table != "" || l.Many: // the source's primary key is joined
		sourceProp = st.PrimaryKey[0]
		targetProp = l.TargetProperty
		if l.Table != "" {
			targetProp = tt.PrimaryKey[0]
		}
	default: // the source holds the target's primary key
		sourceProp, targetProp = l.SourceProperty, tt.PrimaryKey[0]
	}
	si := lv.t.PropertyIndex(sourceProp)
	byValue, firsts := originsByValue(&lv, si)
	n, vals := len(firsts), func() []any { return values(lv.page, lv.t, si, firsts) }
	if l.Table != "" {
		jv := d.views[l.Table]
		jp, err := d.s.readAll(ctx, jv, inOrAll(jv, l.SourceProperty, n, vals, nil))
		if err != nil {
			return level{}, err
		}
		jt := jv.Type()
		si, ti := jt.PropertyIndex(l.SourceProperty), jt.PropertyIndex(l.TargetProperty)
		next := &joinIndex{}
		var tos []int32 // the join rows that name each target first
		var sc objects.Scalar
		for j := range jp.Len() {
			k, ok := keyAt(jp, jt, j, si, &sc)
			if !ok {
				continue
			}
			from, ok := byValue.get(k)
			if !ok {
				continue
			}
			tk, ok := keyAt(jp, jt, j, ti, &sc)
			if !ok {
				continue
			}
			have, seen := next.get(tk)
			if !seen {
				tos = append(tos, int32(j))
			}
			next.set(tk, append(have, from...))
		}
		byValue = next
		n, vals = len(tos), func() []any { return values(jp, jt, ti, tos) }
	}
	tp, err := d.s.readAll(ctx, tv, inOrAll(tv, targetProp, n, vals, h.Filter))
	if err != nil {
		return level{}, err
	}
	out, err := reached(tp, tt, tt.PropertyIndex(targetProp), byValue)
	if err != nil {
		return level{}, fmt.Errorf("link %s.%s: %w", h.From, h.Link, err)
	}
	return out, nil
}

// values are property i of the objects js of a page.
func values(p *indexer.Page, t *objects.Type, i int, js []int32) []any {
	out := make([]any, len(js))
	for n, j := range js {
		out[n] = cellValue(p, t, int(j), i)
	}
	return out
}

// inOrAll is the filter of the objects of v whose prop is one of the n
// values vals gives, and that extra matches; when the values are many
// for v's objects, a filter of every object (extra alone), which is
// cheaper to read than a long OpIn: objects of other values are dropped
// when their origins are looked up.
func inOrAll(v *indexer.View, prop string, n int, vals func() []any, extra *query.Filter) *query.Filter {
	var f *query.Filter
	switch {
	case n == 0:
		return &query.Filter{Op: query.OpNone}
	case int64(n)*4 > v.Count():
		f = &query.Filter{Op: query.OpAll}
	default:
		f = &query.Filter{Op: query.OpIn, Property: prop, Values: vals()}
	}
	if extra != nil {
		return query.And(f, extra)
	}
	return f
}

// valueKey is a string key of a value: its store encoding.
func valueKey(v any) string {
	b, err := objects.AppendValue(nil, v)
	if err != nil {
		return fmt.Sprintf("%T:%v", v, v)
	}
	return string(b)
}

// numberAt reads a numeric property i of object j of a page as a float64;
// ok is false for a null.
func numberAt(p *indexer.Page, t *objects.Type, j, i int, sc *objects.Scalar) (float64, bool) {
	rw := row{t: t, p: p, j: j}
	if !p.FromIndex() {
		rw = row{t: t, o: p.Object(j)}
	}
	if rw.cell(i, sc); sc.Null {
		return 0, false
	}
	switch t.Properties[i].Type.Kind {
	case objects.KindFloat, objects.KindDouble:
		return sc.Float, true
	}
	return float64(sc.Int), true
}
