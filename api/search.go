package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/objects"
)

// sortField is one orderBy field.
type sortField struct {
	prop objects.Property
	desc bool
}

// orderByV2 is SearchOrderByV2.
type orderByV2 struct {
	OrderType string `json:"orderType"`
	Fields    []struct {
		Field     string `json:"field"`
		Direction string `json:"direction"`
	} `json:"fields"`
}

// sortFields checks an orderBy of a search body.
func sortFields(t *objects.Type, ob *orderByV2) ([]sortField, error) {
	if ob == nil {
		return nil, nil
	}
	if ob.OrderType != "" && ob.OrderType != "fields" {
		return nil, apiErr("InvalidOrderType", map[string]any{"orderType": ob.OrderType, "reason": "only orderType fields is supported"})
	}
	var out []sortField
	for _, f := range ob.Fields {
		sf, err := sortFieldOf(t, f.Field, f.Direction)
		if err != nil {
			return nil, err
		}
		out = append(out, sf)
	}
	return out, checkSortFields(out)
}

// parseOrderBy parses the orderBy query parameter of list:
// properties.<p>[:asc|:desc] or p.<p>[:asc|:desc], comma-separated.
func parseOrderBy(t *objects.Type, raw string) ([]sortField, error) {
	if raw == "" {
		return nil, nil
	}
	var out []sortField
	for _, part := range strings.Split(raw, ",") {
		part = strings.TrimSpace(part)
		name, dir, _ := strings.Cut(part, ":")
		var ok bool
		if name, ok = strings.CutPrefix(name, "properties."); !ok {
			if name, ok = strings.CutPrefix(name, "p."); !ok {
				return nil, apiErr("InvalidFields", map[string]any{"properties": []string{part},
					"reason": "orderBy fields read properties.<apiName>[:asc|:desc] or p.<apiName>[:asc|:desc]"})
			}
		}
		sf, err := sortFieldOf(t, name, dir)
		if err != nil {
			return nil, err
		}
		out = append(out, sf)
	}
	return out, checkSortFields(out)
}

func sortFieldOf(t *objects.Type, name, dir string) (sortField, error) {
	p, ok := t.Property(name)
	if !ok {
		return sortField{}, apiErr("PropertiesNotFound", map[string]any{"objectType": t.APIName, "properties": []string{name}})
	}
	if !p.Sortable() {
		return sortField{}, apiErr("PropertiesNotSortable", map[string]any{"properties": []string{name},
			"reason": fmt.Sprintf("property %s has search role %s and type %s; sorting needs a searchable property that is not an array", name, p.Search, p.Type)})
	}
	switch strings.ToLower(dir) {
	case "", "asc":
		return sortField{prop: p}, nil
	case "desc":
		return sortField{prop: p, desc: true}, nil
	}
	return sortField{}, apiErr("InvalidSortOrder", map[string]any{"invalidSortOrder": dir})
}

func checkSortFields(fs []sortField) error {
	seen := map[string]bool{}
	for _, f := range fs {
		if seen[f.prop.APIName] {
			return apiErr("DuplicateOrderBy", map[string]any{"properties": []string{f.prop.APIName}})
		}
		seen[f.prop.APIName] = true
	}
	return nil
}

func (f sortField) String() string {
	if f.desc {
		return f.prop.APIName + ":desc"
	}
	return f.prop.APIName + ":asc"
}

// selection is the set of properties a response carries.
type selection map[string]bool // nil: all

// parseSelect checks select (repeated, or comma-delimited) against t.
func parseSelect(t *objects.Type, names []string) (selection, error) {
	var sel selection
	var missing []string
	for _, n := range names {
		for _, name := range strings.Split(n, ",") {
			name = strings.TrimSpace(name)
			if name == "" {
				continue
			}
			if _, ok := t.Property(name); !ok {
				missing = append(missing, name)
				continue
			}
			if sel == nil {
				sel = selection{}
			}
			sel[name] = true
		}
	}
	if len(missing) > 0 {
		return nil, apiErr("PropertiesNotFound", map[string]any{"objectType": t.APIName, "properties": missing})
	}
	if sel != nil {
		for _, k := range t.PrimaryKey {
			sel[k] = true
		}
	}
	return sel, nil
}

// orderAndSelect decodes the orderBy and select/selectV2 of a search or
// object-set load.
func orderAndSelect(t *objects.Type, ob *orderByV2, sel []string, selV2 []json.RawMessage) ([]sortField, selection, error) {
	order, err := sortFields(t, ob)
	if err != nil {
		return nil, nil, err
	}
	v2, err := parseSelectV2(selV2)
	if err != nil {
		return nil, nil, err
	}
	s, err := parseSelect(t, append(sel, v2...))
	if err != nil {
		return nil, nil, err
	}
	return order, s, nil
}

// parseSelectV2 reads selectV2 property identifiers.
func parseSelectV2(raw []json.RawMessage) ([]string, error) {
	var names []string
	for _, r := range raw {
		n, err := decodePropertyIdentifier("selectV2", r)
		if err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	return names, nil
}

// objectRID is the rid of an object: its type and search document id.
func objectRID(t *objects.Type, key []byte) string {
	return objectRIDPrefix + t.APIName + "." + objects.DocID(key)
}

// render is an object on the wire: the selected non-null properties,
// __apiName, __primaryKey, __title, and __rid unless excluded.
func render(t *objects.Type, key []byte, o *objects.Object, sel selection, excludeRID bool) map[string]any {
	m := t.JSON(o)
	if sel != nil {
		for _, p := range t.Properties {
			if !sel[p.APIName] {
				delete(m, p.APIName)
			}
		}
	}
	if !excludeRID {
		m["__rid"] = objectRID(t, key)
	}
	return m
}

// searchSpec is one page request over one view.
type searchSpec struct {
	where      *cond
	sort       []sortField
	pageSize   int
	pageToken  string
	fp         [8]byte
	sel        selection
	excludeRID bool
}

// objectPage is ListObjectsResponseV2, SearchObjectsResponseV2 and
// LoadObjectSetResponseV2.
type objectPage struct {
	Data          []map[string]any `json:"data"`
	NextPageToken string           `json:"nextPageToken,omitempty"`
	TotalCount    string           `json:"totalCount"`
}

func matchesAll(c *cond) bool {
	return c == nil || c.op == opMatchAll || (c.op == opAnd && len(c.kids) == 0)
}

// runSearch returns one page. Requests without filter and order read the
// store in primary-key order; the others search the index, sorted by the
// order fields (nulls last) and then by document id, which is the
// primary-key order, and continue after the last page's sort values.
func (s *Server) runSearch(ctx context.Context, v *indexer.View, spec searchSpec) (*objectPage, error) {
	t := v.Type()
	if matchesAll(spec.where) && len(spec.sort) == 0 {
		return s.scanPage(v, spec)
	}
	q, err := (&compiler{idx: v.Index(), maxTerms: s.cfg.MaxQueryTerms}).compile(spec.where)
	if err != nil {
		return nil, err
	}
	req := bleve.NewSearchRequestOptions(q, spec.pageSize+1, 0, false)
	req.Score = "none"
	order := make(search.SortOrder, 0, len(spec.sort)+1)
	for _, f := range spec.sort {
		// Sort fields hold one order-preserving term per document.
		order = append(order, &search.SortField{Field: indexer.SortField(f.prop), Desc: f.desc, Missing: search.SortFieldMissingLast, Type: search.SortFieldAsString})
	}
	order = append(order, &search.SortDocID{})
	req.SortByCustom(order)
	if spec.pageToken != "" {
		tok, err := decodeToken(spec.pageToken, tokSearch, spec.fp)
		if err != nil {
			return nil, err
		}
		if len(tok.values) != len(order) {
			return nil, invalidToken(spec.pageToken)
		}
		req.SearchAfter = tok.values
	}
	res, err := v.Index().SearchInContext(s.searchContext(ctx), req)
	if err != nil {
		return nil, fmt.Errorf("search %s: %w", t.APIName, err)
	}
	page := &objectPage{Data: []map[string]any{}, TotalCount: fmt.Sprint(res.Total)}
	hits := res.Hits
	if len(hits) > spec.pageSize {
		hits = hits[:spec.pageSize]
		page.NextPageToken = pageToken{kind: tokSearch, fp: spec.fp, values: hits[len(hits)-1].Sort}.encode()
	}
	keys := make([][]byte, len(hits))
	for i, h := range hits {
		if keys[i], err = objects.KeyFromDocID(h.ID); err != nil {
			return nil, fmt.Errorf("search %s: document id %q: %w", t.APIName, h.ID, err)
		}
	}
	objs, err := v.GetMany(keys)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", t.APIName, err)
	}
	for i, o := range objs {
		if o != nil { // removed by a build that has not reached the index yet
			page.Data = append(page.Data, render(t, keys[i], o, spec.sel, spec.excludeRID))
		}
	}
	return page, nil
}

// searchContext carries the term expansion limit to bleve.
func (s *Server) searchContext(ctx context.Context) context.Context {
	return context.WithValue(ctx, search.MaxTermSearchersKey, s.cfg.MaxQueryTerms)
}

// scanPage reads a page of the store in primary-key order.
func (s *Server) scanPage(v *indexer.View, spec searchSpec) (*objectPage, error) {
	t := v.Type()
	var after []byte
	if spec.pageToken != "" {
		tok, err := decodeToken(spec.pageToken, tokScan, spec.fp)
		if err != nil {
			return nil, err
		}
		if len(tok.values) != 1 || tok.values[0] == "" {
			return nil, invalidToken(spec.pageToken)
		}
		after = []byte(tok.values[0])
	}
	total, err := v.Count()
	if err != nil {
		return nil, fmt.Errorf("count %s: %w", t.APIName, err)
	}
	page := &objectPage{Data: []map[string]any{}, TotalCount: fmt.Sprint(total)}
	var last []byte
	more := false
	err = v.Scan(after, func(key []byte, o *objects.Object) bool {
		if len(page.Data) == spec.pageSize {
			more = true
			return false
		}
		page.Data = append(page.Data, render(t, key, o, spec.sel, spec.excludeRID))
		last = bytes.Clone(key)
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", t.APIName, err)
	}
	if more {
		page.NextPageToken = pageToken{kind: tokScan, fp: spec.fp, values: []string{string(last)}}.encode()
	}
	return page, nil
}

// forEachMatch calls fn with the key of every object c matches, in no
// particular order, streaming the index without sorting or collecting.
func (s *Server) forEachMatch(ctx context.Context, v *indexer.View, c *cond, fn func(key []byte) error) error {
	q, err := (&compiler{idx: v.Index(), maxTerms: s.cfg.MaxQueryTerms}).compile(c)
	if err != nil {
		return err
	}
	return streamQuery(s.searchContext(ctx), v.Index(), q, fn)
}

func streamQuery(ctx context.Context, idx bleve.Index, q query.Query, fn func(key []byte) error) (err error) {
	adv, err := idx.Advanced()
	if err != nil {
		return err
	}
	reader, err := adv.Reader()
	if err != nil {
		return fmt.Errorf("open index reader: %w", err)
	}
	defer func() {
		if cerr := reader.Close(); err == nil {
			err = cerr
		}
	}()
	ctx = search.ContextWithTermSearchersCounter(ctx)
	sr, err := q.Searcher(ctx, reader, idx.Mapping(), search.SearcherOptions{Score: "none"})
	if err != nil {
		return err
	}
	defer func() {
		if cerr := sr.Close(); err == nil {
			err = cerr
		}
	}()
	sctx := &search.SearchContext{DocumentMatchPool: search.NewDocumentMatchPool(sr.DocumentMatchPoolSize(), 0)}
	for n := 0; ; n++ {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		dm, err := sr.Next(sctx)
		if err != nil {
			return err
		}
		if dm == nil {
			return nil
		}
		id, err := reader.ExternalID(dm.IndexInternalID)
		if err != nil {
			return err
		}
		sctx.DocumentMatchPool.Put(dm)
		key, err := objects.KeyFromDocID(id)
		if err != nil {
			return fmt.Errorf("document id %q: %w", id, err)
		}
		if err := fn(key); err != nil {
			return err
		}
	}
}
