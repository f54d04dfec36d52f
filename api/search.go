package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// sortField is one orderBy field.
type sortField struct {
	prop      objects.Property
	desc      bool
	relevance bool // orderType relevance: by score (search_relevance.go)
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
	if ob.OrderType == orderRelevance {
		return relevanceOrder(ob)
	}
	if ob.OrderType != "" && ob.OrderType != "fields" {
		return nil, wire.Err(wire.NameInvalidOrderType, map[string]any{"orderType": ob.OrderType, "reason": "orderType is fields or relevance"})
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
				return nil, wire.Err(wire.NameInvalidFields, map[string]any{"properties": []string{part},
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
		return sortField{}, wire.PropertiesNotFound(t, []string{name})
	}
	if !p.Sortable() {
		return sortField{}, wire.Err(wire.NamePropertiesNotSortable, map[string]any{"properties": []string{name},
			"reason": fmt.Sprintf("property %s has search role %s and type %s; sorting needs a searchable property that is not an array", name, p.Search, p.Type)})
	}
	switch strings.ToLower(dir) {
	case "", "asc":
		return sortField{prop: p}, nil
	case "desc":
		return sortField{prop: p, desc: true}, nil
	}
	return sortField{}, wire.InvalidSortOrder(name, dir)
}

func checkSortFields(fs []sortField) error {
	seen := map[string]bool{}
	for _, f := range fs {
		if seen[f.prop.APIName] {
			return wire.Err(wire.NameDuplicateOrderBy, map[string]any{"properties": []string{f.prop.APIName}})
		}
		seen[f.prop.APIName] = true
	}
	return nil
}

func (f sortField) String() string {
	if f.relevance {
		return orderRelevance
	}
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
		return nil, wire.PropertiesNotFound(t, missing)
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
		n, err := wire.DecodePropertyIdentifier("selectV2", r)
		if err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	return names, nil
}

// searchSpec is one page request over one view.
type searchSpec struct {
	where      *query.Filter
	sort       []sortField
	pageSize   int
	pageToken  string
	fp         [8]byte
	sel        selection
	excludeRID bool
}

// runSearch returns one page from the engine: ordered by the sort fields
// (nulls last) and then by primary key, continuing after the position a
// page token holds.
func (s *Server) runSearch(ctx context.Context, v *indexer.View, spec searchSpec) (*objectPage, error) {
	t := v.Type()
	q := &query.Search{Filter: spec.where, PageSize: spec.pageSize, Limits: s.limits()}
	for _, f := range spec.sort {
		if f.relevance {
			q.Relevance = true
			continue
		}
		q.Sort = append(q.Sort, query.Sort{Property: f.prop.APIName, Desc: f.desc})
	}
	if spec.pageToken != "" {
		tok, err := wire.DecodeToken(spec.pageToken, wire.TokSearch, spec.fp)
		if err != nil {
			return nil, err
		}
		if len(tok.Values) != 1 || tok.Values[0] == "" {
			return nil, wire.InvalidToken(spec.pageToken)
		}
		q.After = []byte(tok.Values[0])
	}
	res, err := v.Search(ctx, q)
	if err != nil {
		if errors.Is(err, query.ErrBadCursor) {
			return nil, wire.InvalidToken(spec.pageToken)
		}
		return nil, fmt.Errorf("search %s: %w", t.APIName, err)
	}
	page := &objectPage{r: s.renderer(t, spec.sel, spec.excludeRID), page: res, total: res.Total}
	if res.Next != nil {
		page.next = wire.Token{Kind: wire.TokSearch, FP: spec.fp, Values: []string{string(res.Next)}}.Encode()
	}
	return page, nil
}

// limits are the engine limits of the server config.
func (s *Server) limits() query.Limits {
	return query.Limits{MaxTerms: s.cfg.MaxQueryTerms, MaxGroups: s.cfg.MaxAggregationGroups}
}
