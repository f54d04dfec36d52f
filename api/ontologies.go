package api

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/go-chi/chi/v5"
	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/objects"
)

// Resource identifiers; object rids are wire.ObjectRIDPrefix's.
const (
	objectTypeRIDPrefix = "ri.ontoindex.main.object-type."
	propertyRIDPrefix   = "ri.ontoindex.main.property."
)

type ontologyV2 struct {
	APIName     string `json:"apiName"`
	DisplayName string `json:"displayName"`
	Description string `json:"description"`
	RID         string `json:"rid"`
}

func (s *Server) ontology() ontologyV2 {
	o := s.engine.Config().Ontology
	return ontologyV2{APIName: o.APIName, DisplayName: o.DisplayName, Description: o.Description, RID: o.RID}
}

func (s *Server) listOntologies(r *http.Request) (any, error) {
	return map[string]any{"data": []ontologyV2{s.ontology()}}, nil
}

func (s *Server) getOntology(r *http.Request) (any, error) {
	if err := s.checkOntology(r); err != nil {
		return nil, err
	}
	return s.ontology(), nil
}

// pathParam returns a path parameter, percent-decoded once: chi routes on
// the escaped path when the request has one, and then returns escaped
// segments.
func pathParam(r *http.Request, name string) string {
	v := chi.URLParam(r, name)
	if r.URL.RawPath != "" {
		if u, err := url.PathUnescape(v); err == nil {
			return u
		}
	}
	return v
}

// checkOntology checks the {ontology} path parameter: the configured
// ontology's apiName or rid.
func (s *Server) checkOntology(r *http.Request) error {
	name := pathParam(r, "ontology")
	o := s.engine.Config().Ontology
	if name == o.APIName || name == o.RID {
		return nil
	}
	return wire.Err(wire.NameOntologyNotFound, map[string]any{"apiName": name, "ontologyRid": name})
}

// isObjectType reports whether the engine serves name as an object type:
// it also indexes the link tables of many-to-many links, which are not.
func (s *Server) isObjectType(name string) bool {
	_, ok := s.engine.Config().TypeSpec(name)
	return ok && slices.Contains(s.engine.Types(), name)
}

// visibleTypes lists the object types the request's principal may see.
func (s *Server) visibleTypes(r *http.Request) []string {
	p := PrincipalFrom(r.Context())
	var out []string
	for _, name := range s.engine.Types() {
		if p != nil && p.CanSee(name) && s.isObjectType(name) {
			out = append(out, name)
		}
	}
	return out
}

// typeName checks an object type name: configured and visible to the
// principal, else ObjectTypeNotFound.
func (s *Server) typeName(r *http.Request, name string) (string, error) {
	p := PrincipalFrom(r.Context())
	if p != nil && p.CanSee(name) && s.isObjectType(name) {
		return name, nil
	}
	return "", wire.Err(wire.NameObjectTypeNotFound, map[string]any{"objectType": name, "objectTypeRid": objectTypeRIDPrefix + name})
}

func (s *Server) listObjectTypes(r *http.Request) (any, error) {
	if err := s.checkOntology(r); err != nil {
		return nil, err
	}
	q := r.URL.Query()
	size, err := s.pageSize(q.Get("pageSize"))
	if err != nil {
		return nil, err
	}
	names := s.visibleTypes(r)
	start := 0
	if tok := q.Get("pageToken"); tok != "" {
		after, err := wire.DecodeNameToken(tok)
		if err != nil {
			return nil, err
		}
		start = len(names)
		for i, n := range names {
			if n == after {
				start = i + 1
				break
			}
		}
	}
	end := min(start+size, len(names))
	data := make([]objectTypeV2, 0, end-start)
	for _, name := range names[start:end] {
		t, err := s.engine.ObjectType(r.Context(), name)
		if err != nil {
			return nil, err
		}
		data = append(data, s.renderType(t))
	}
	resp := map[string]any{"data": data}
	if end < len(names) {
		resp["nextPageToken"] = wire.EncodeNameToken(names[end-1])
	}
	return resp, nil
}

func (s *Server) getObjectType(r *http.Request) (any, error) {
	t, err := s.pathObjectType(r)
	if err != nil {
		return nil, err
	}
	return s.renderType(t), nil
}

type objectTypeV2 struct {
	APIName           string                `json:"apiName"`
	DisplayName       string                `json:"displayName"`
	PluralDisplayName string                `json:"pluralDisplayName"`
	Status            string                `json:"status"`
	Description       string                `json:"description,omitempty"`
	Icon              icon                  `json:"icon"`
	PrimaryKey        string                `json:"primaryKey"`
	TitleProperty     string                `json:"titleProperty"`
	Properties        map[string]propertyV2 `json:"properties"`
	RID               string                `json:"rid"`
	Visibility        string                `json:"visibility"`
	// PrimaryKeyProperties lists every primary key property, in key order
	// (an ontoindex extension: Foundry has single-property keys only, and
	// primaryKey names the first one).
	PrimaryKeyProperties []string `json:"primaryKeyProperties"`
}

type icon struct {
	Type  string `json:"type"`
	Color string `json:"color"`
	Name  string `json:"name"`
}

type propertyV2 struct {
	Description string         `json:"description,omitempty"`
	DisplayName string         `json:"displayName,omitempty"`
	DataType    map[string]any `json:"dataType"`
	RID         string         `json:"rid"`
	TypeClasses []any          `json:"typeClasses"`
	// Searchable, Sortable are ontoindex extensions: what where and orderBy
	// accept for the property.
	SearchRole string `json:"searchRole"`
}

func (s *Server) renderType(t *objects.Type) objectTypeV2 {
	props := make(map[string]propertyV2, len(t.Properties))
	for i, p := range t.Properties {
		if p.Hidden() {
			continue // a struct's field: in its struct's dataType
		}
		props[p.APIName] = propertyV2{
			Description: p.Description,
			DisplayName: p.DisplayName,
			DataType:    propertyDataType(t, i),
			RID:         propertyRIDPrefix + t.APIName + "." + p.APIName,
			TypeClasses: []any{},
			SearchRole:  string(p.Search),
		}
	}
	return objectTypeV2{
		APIName:              t.APIName,
		DisplayName:          t.DisplayName,
		PluralDisplayName:    t.PluralDisplayName,
		Status:               "ACTIVE",
		Description:          t.Description,
		Icon:                 icon{Type: "blueprint", Color: "#4C90F0", Name: "cube"},
		PrimaryKey:           t.PrimaryKey[0],
		TitleProperty:        t.TitleProperty,
		Properties:           props,
		RID:                  objectTypeRIDPrefix + t.APIName,
		Visibility:           "NORMAL",
		PrimaryKeyProperties: t.PrimaryKey,
	}
}

// dataType renders a property type as an ObjectPropertyType. Types Foundry
// has no name for are strings on the wire (uuid, time).
func dataType(dt objects.DataType) map[string]any {
	switch dt.Kind {
	case objects.KindBoolean:
		return map[string]any{"type": "boolean"}
	case objects.KindInteger:
		return map[string]any{"type": "integer"}
	case objects.KindLong:
		return map[string]any{"type": "long"}
	case objects.KindFloat:
		return map[string]any{"type": "float"}
	case objects.KindDouble:
		return map[string]any{"type": "double"}
	case objects.KindDecimal:
		return map[string]any{"type": "decimal", "precision": dt.Precision, "scale": dt.Scale}
	case objects.KindDate:
		return map[string]any{"type": "date"}
	case objects.KindTimestamp, objects.KindTimestampTZ:
		return map[string]any{"type": "timestamp"}
	case objects.KindGeoPoint:
		return map[string]any{"type": "geopoint"}
	case objects.KindGeoShape:
		return map[string]any{"type": "geoshape"}
	case objects.KindVector:
		return vectorDataType(dt)
	case objects.KindList:
		sub := map[string]any{"type": "string"}
		if dt.Elem != nil {
			sub = dataType(*dt.Elem)
		}
		return map[string]any{"type": "array", "subType": sub, "reducers": []any{}}
	}
	return map[string]any{"type": "string"}
}

// pageSize parses a pageSize parameter: empty is the default, else
// 1..server.maxPageSize.
func (s *Server) pageSize(raw string) (int, error) {
	if raw == "" {
		return s.cfg.DefaultPageSize, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil {
		return 0, s.invalidPageSize(raw)
	}
	return s.checkPageSize(n)
}

// bodyPageSize parses the pageSize of a body: absent or null is the
// default, else an integral JSON number (2.0 is 2) in
// 1..server.maxPageSize. It is read here, not by encoding/json into an
// int, so that any other value is InvalidPageSize naming the range, not a
// malformed body ("must be a number, not number 1e30").
func (s *Server) bodyPageSize(raw json.RawMessage) (int, error) {
	if wire.IsNull(raw) {
		return s.cfg.DefaultPageSize, nil
	}
	var num json.Number
	if err := json.Unmarshal(raw, &num); err != nil || wire.JSONKind(raw) != "number" {
		return 0, s.invalidPageSize(wire.Truncate(string(raw)))
	}
	if n, err := strconv.Atoi(num.String()); err == nil {
		return s.checkPageSize(n)
	}
	if f, err := num.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) <= float64(s.cfg.MaxPageSize) {
		return s.checkPageSize(int(f))
	}
	return 0, s.invalidPageSize(num.String())
}

func (s *Server) checkPageSize(n int) (int, error) {
	if n < 1 || n > s.cfg.MaxPageSize {
		return 0, s.invalidPageSize(n)
	}
	return n, nil
}

func (s *Server) invalidPageSize(v any) *wire.Error {
	return wire.Err(wire.NameInvalidPageSize, map[string]any{"pageSize": v,
		"reason": fmt.Sprintf("pageSize must be an integer from 1 to %d (server.maxPageSize), not %v", s.cfg.MaxPageSize, v)})
}
