package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// POST /objectSets/loadLinks lists, for each object of a set, the objects
// it links to through each named link type: one LinksFromObject per source
// object (and page) with at least one link. The order is stable: by source
// key, then by link in the order the request names them, then by target
// key. A page holds at most pageSize links and is read source by source,
// so its cost follows the page: a source's targets are one lookup (a
// foreign key), a search of the foreign key's value (the reverse side),
// or a search of the source's join rows and one of the keys they name
// (many to many), each in chunks bounded by what is left of the page. A
// page reads at most sourcesPerLink × pageSize sources; a set whose
// sources have few links gets shorter pages, each with its nextPageToken.

// sourcesPerLink bounds the sources a page reads, per link of its size.
const sourcesPerLink = 4

// loadObjectSetLinksRequest is LoadObjectSetLinksRequestV2. pageSize is
// ontoindex's own (2.57.0's request has none; its default is
// server.defaultPageSize).
type loadObjectSetLinksRequest struct {
	ObjectSet           json.RawMessage `json:"objectSet"`
	Links               []string        `json:"links"`
	PageToken           string          `json:"pageToken"`
	PageSize            json.RawMessage `json:"pageSize"`
	IncludeComputeUsage json.RawMessage `json:"includeComputeUsage"`
}

// linkWalk is one link type of the request, resolved.
type linkWalk struct {
	side   objects.LinkSide
	target *indexer.View
	table  *indexer.View // the join rows of a many-to-many link
	render *renderer     // a target: its key, title and rid
}

// loadObjectSetLinks is POST /objectSets/loadLinks:
// LoadObjectSetLinksResponseV2.
func (s *Server) loadObjectSetLinks(r *http.Request) (any, error) {
	if err := s.checkOntology(r); err != nil {
		return nil, err
	}
	var req loadObjectSetLinksRequest
	if err := s.readBody(r, &req); err != nil {
		return nil, err
	}
	size, err := s.bodyPageSize(req.PageSize)
	if err != nil {
		return nil, err
	}
	if len(req.Links) == 0 {
		return nil, wire.Err(wire.NameMalformedRequestBody, map[string]any{"reason": "links must name at least one link type"})
	}
	d, f, err := s.decodeSingleSet(r, req.ObjectSet, "loadLinks", nil)
	if err != nil {
		return nil, err
	}
	defer d.release()
	if d.view == nil { // an empty set without a type links to nothing
		return rawJSON(`{"data":[]}`), nil
	}
	var links []string // each once, in the order named
	for _, name := range req.Links {
		if !slices.Contains(links, name) {
			links = append(links, name)
		}
	}
	walks := make([]linkWalk, len(links))
	for i, name := range links {
		if walks[i], err = d.linkWalk(d.view, name); err != nil {
			return nil, err
		}
	}
	fp := wire.Fingerprint("links", d.view.Type().APIName, compact(req.ObjectSet), strings.Join(links, "\x00"))
	var at linksCursor
	if req.PageToken != "" {
		if at, err = parseLinksCursor(req.PageToken, fp, len(walks)); err != nil {
			return nil, err
		}
	}
	w := &linksWriter{size: size, b: []byte(`{"data":[`)}
	next, err := s.walkLinks(r.Context(), d.view, f, walks, at, w)
	if errors.Is(err, query.ErrBadCursor) {
		return nil, wire.InvalidToken(req.PageToken)
	}
	if err != nil {
		return nil, err
	}
	w.close()
	if next != nil {
		w.b = appendString(append(w.b, `,"nextPageToken":`...), next.token(fp))
	}
	return rawJSON(append(w.b, '}')), nil
}

// linkWalk resolves a link of the source view's type as SearchAround
// does: a side the principal may follow, whose keys fit its types.
func (d *setDecoder) linkWalk(sv *indexer.View, name string) (linkWalk, error) {
	typ := sv.Type().APIName
	l, ok := d.s.linkSide(d.r, typ, name)
	if !ok {
		return linkWalk{}, wire.Err(wire.NameLinkTypeNotFound, map[string]any{"objectType": typ, "linkType": name})
	}
	w := linkWalk{side: l}
	var err error
	if w.target, err = d.open(l.Target, false); err != nil {
		return linkWalk{}, err
	}
	var tableType *objects.Type
	if l.Table != "" {
		if w.table, err = d.open(l.Table, true); err != nil {
			return linkWalk{}, err
		}
		tableType = w.table.Type()
	}
	if err := objects.CheckLink(&l, sv.Type(), w.target.Type(), tableType); err != nil {
		return linkWalk{}, wire.Err(wire.NameLinkTypeNotResolvable, map[string]any{"objectType": typ, "linkType": name, "reason": err.Error()})
	}
	w.render = d.s.locator(w.target.Type())
	return w, nil
}

// locator renders an object as a LinksFromObject names it: __apiName,
// __primaryKey, __title, __rid and its primary key properties.
func (s *Server) locator(t *objects.Type) *renderer {
	sel := selection{}
	for _, k := range t.PrimaryKey {
		sel[k] = true
	}
	return s.renderer(t, sel, false)
}

// walkLinks writes the links from position at until the page is full, and
// returns where the next page starts (nil after the last).
func (s *Server) walkLinks(ctx context.Context, sv *indexer.View, f *query.Filter, walks []linkWalk, at linksCursor, w *linksWriter) (*linksCursor, error) {
	src := s.locator(sv.Type())
	budget := sourcesPerLink * w.size
	for {
		batch, err := sv.Search(ctx, &query.Search{Filter: f, PageSize: w.size, After: at.batch, Limits: s.limits()})
		if err != nil {
			return nil, fmt.Errorf("sources of %s: %w", sv.Type().APIName, err)
		}
		j := 0
		if at.source != nil {
			j, _ = sort.Find(batch.Len(), func(i int) int { return bytes.Compare(at.source, batch.Key(i)) })
		}
		for ; j < batch.Len(); j++ {
			if !bytes.Equal(batch.Key(j), at.source) { // a new source, or the one resumed at is gone
				at.source, at.link, at.target = batch.Key(j), 0, nil
				if budget == 0 {
					return &at, nil
				}
				budget--
			}
			w.source(src, batch, j)
			for ; at.link < len(walks); at.link++ {
				if w.full() {
					return &at, nil
				}
				more, err := s.targets(ctx, sv, batch, j, walks[at.link], at.target, w)
				if err != nil {
					return nil, err
				}
				if at.target = more; more != nil {
					return &at, nil
				}
			}
			w.endSource()
		}
		if batch.Next == nil {
			return nil, nil
		}
		at = linksCursor{batch: batch.Next}
	}
}

// targets writes the targets of source j of a batch through one link,
// after the cursor after, at most what the page has room for; it returns
// the cursor of the rest when some are left. The cursor is the target
// search's (the reverse of a foreign key) or the join rows' (many to
// many): a join table's key is (source key, target key), so the join rows
// of one source come in target key order.
func (s *Server) targets(ctx context.Context, sv *indexer.View, batch *indexer.Page, j int, lw linkWalk, after []byte, w *linksWriter) ([]byte, error) {
	l, tv := &lw.side, lw.target
	switch {
	case l.Table == "" && !l.Many: // the source holds the target's key
		fk := pageValue(sv.Type(), batch, j, l.SourceProperty)
		if fk == nil {
			return nil, nil
		}
		key, err := objects.AppendKey(nil, fk)
		if err != nil {
			return nil, nil // a value no key can have links to nothing
		}
		one, err := tv.Lookup(key)
		if err != nil {
			return nil, fmt.Errorf("link %s: %w", l.APIName, err)
		}
		if one.Len() > 0 {
			w.link(l.APIName, lw.render, one, 0)
		}
		return nil, nil
	case l.Table == "": // the target holds the source's key
		where := &query.Filter{Op: query.OpIn, Property: l.TargetProperty, Values: []any{pageValue(sv.Type(), batch, j, sv.Type().PrimaryKey[0])}}
		return s.chunks(ctx, tv, where, after, w, func(page *indexer.Page) error {
			for k := range page.Len() {
				w.link(l.APIName, lw.render, page, k)
			}
			return nil
		})
	}
	// Many to many: a chunk of the source's join rows, then the targets
	// they name that exist.
	rows := &query.Filter{Op: query.OpIn, Property: l.SourceProperty, Values: []any{pageValue(sv.Type(), batch, j, sv.Type().PrimaryKey[0])}}
	return s.chunks(ctx, lw.table, rows, after, w, func(joins *indexer.Page) error {
		keys := make([]any, 0, joins.Len())
		for k := range joins.Len() {
			if v := pageValue(lw.table.Type(), joins, k, l.TargetProperty); v != nil {
				keys = append(keys, v)
			}
		}
		if len(keys) == 0 { // an empty OpIn would match everything
			return nil
		}
		where := &query.Filter{Op: query.OpIn, Property: tv.Type().PrimaryKey[0], Values: keys}
		page, err := tv.Search(ctx, &query.Search{Filter: where, PageSize: len(keys), Limits: s.limits()})
		if err != nil {
			return err
		}
		for k := range page.Len() {
			w.link(l.APIName, lw.render, page, k)
		}
		return nil
	})
}

// firstChunk is the page size of a source's first search of targets or
// join rows. Chunks grow from it fourfold up to what the page has room
// for: most sources have a few links, and the engine allocates for the
// page size it is asked.
const firstChunk = 8

// chunks reads what where matches in v, in key order after the cursor
// after, in chunks no larger than the page's room, and hands each to fn,
// which writes at most one link per object, until the page is full or
// nothing is left; it returns the cursor of the rest, if any.
func (s *Server) chunks(ctx context.Context, v *indexer.View, where *query.Filter, after []byte, w *linksWriter, fn func(*indexer.Page) error) ([]byte, error) {
	for chunk := firstChunk; ; chunk *= 4 {
		page, err := v.Search(ctx, &query.Search{Filter: where, PageSize: min(chunk, w.room()), After: after, Limits: s.limits()})
		if err != nil {
			return nil, fmt.Errorf("links from %s: %w", v.Type().APIName, err)
		}
		if err := fn(page); err != nil {
			return nil, fmt.Errorf("links from %s: %w", v.Type().APIName, err)
		}
		if page.Next == nil {
			return nil, nil
		}
		if after = page.Next; w.full() {
			return after, nil
		}
	}
}

// pageValue is the value of a scalar property of object j of a page.
func pageValue(t *objects.Type, p *indexer.Page, j int, property string) any {
	return pageValueAt(t, p, j, t.PropertyIndex(property))
}

// pageValueAt is pageValue of the property at index i of t (nil for -1).
func pageValueAt(t *objects.Type, p *indexer.Page, j, i int) any {
	if i < 0 {
		return nil
	}
	rw := row{t: t, p: p, j: j}
	if !p.FromIndex() {
		rw = row{t: t, o: p.Object(j)}
	}
	var sc objects.Scalar
	if list := rw.cell(i, &sc); list != nil {
		return nil // keys are scalars (objects.CheckLink)
	}
	return sc.Value(t.Properties[i].Type.Kind)
}
