package api

import (
	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// SearchAround follows a link from the objects f matches in type typ: it
// reads the keys the set holds (its foreign keys, or its primary keys) and
// returns the filter on the link's target type that matches the objects
// holding them, through the join rows of a many-to-many link. Each type is
// read at the version its view serves: links are resolved at query time,
// so an edit of either table moves links after that table's build.
func (d *setDecoder) SearchAround(f *query.Filter, typ, link string) (*query.Filter, string, error) {
	l, sv, tv, err := d.resolveLink(typ, link)
	if err != nil {
		return nil, "", err
	}
	ctx, limits := d.r.Context(), d.s.limits()
	srcKey := sv.Type().PrimaryKey[0]
	tgtKey := tv.Type().PrimaryKey[0]
	var (
		vals query.ValueSet
		prop string // of the target, that holds one of vals
	)
	switch {
	case l.Table != "": // many to many: source keys -> join rows -> target keys
		keys, err := sv.Distinct(ctx, f, limits, srcKey)
		if err != nil {
			return nil, "", err
		}
		if keys.Len() > 0 {
			rows := &query.Filter{Op: query.OpIn, Property: l.SourceProperty, Set: keys}
			if vals, err = d.views[l.Table].Distinct(ctx, rows, limits, l.TargetProperty); err != nil {
				return nil, "", err
			}
		}
		prop = tgtKey
	case l.Many: // the target holds the source's primary key
		if vals, err = sv.Distinct(ctx, f, limits, srcKey); err != nil {
			return nil, "", err
		}
		prop = l.TargetProperty
	default: // the source holds the target's primary key
		if vals, err = sv.Distinct(ctx, f, limits, l.SourceProperty); err != nil {
			return nil, "", err
		}
		prop = tgtKey
	}
	if vals == nil || vals.Len() == 0 {
		// An empty OpIn would match everything.
		return &query.Filter{Op: query.OpNone}, l.Target, nil
	}
	return &query.Filter{Op: query.OpIn, Property: prop, Set: vals}, l.Target, nil
}

// resolveLink is link of typ, checked against the views of its source,
// target and join table, which it opens.
func (d *setDecoder) resolveLink(typ, link string) (l objects.LinkSide, source, target *indexer.View, err error) {
	l, ok := d.s.linkSide(d.r, typ, link)
	if !ok {
		return l, nil, nil, wire.Err(wire.NameLinkTypeNotFound, map[string]any{"objectType": typ, "linkType": link})
	}
	if source, err = d.open(typ, false); err != nil {
		return l, nil, nil, err
	}
	if target, err = d.open(l.Target, false); err != nil {
		return l, nil, nil, err
	}
	var tableType *objects.Type
	if l.Table != "" {
		jv, err := d.open(l.Table, true)
		if err != nil {
			return l, nil, nil, err
		}
		tableType = jv.Type()
	}
	if err := objects.CheckLink(&l, source.Type(), target.Type(), tableType); err != nil {
		return l, nil, nil, wire.Err(wire.NameLinkTypeNotResolvable, map[string]any{"objectType": typ, "linkType": link, "reason": err.Error()})
	}
	return l, source, target, nil
}

// Link is a link of typ as a derived property follows it.
func (d *setDecoder) Link(typ, link string) (wire.LinkInfo, error) {
	l, _, _, err := d.resolveLink(typ, link)
	if err != nil {
		return wire.LinkInfo{}, err
	}
	return wire.LinkInfo{Target: l.Target, One: !l.Many && l.Table == ""}, nil
}
