package searchbench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// ontoClient talks to the Ontology API of a running server: JSON over
// kept-alive HTTP/1.1 connections (rawhttp.go).
type ontoClient struct {
	http *rawHTTP
	base string // /api/v2/ontologies/<ontology>
	// deepToken is the page token of the deep paging row on this
	// client's server (prepareDeep): a server's tokens are its own.
	deepToken string
}

// newOntoClient returns a client of server (http://host:port).
func newOntoClient(server string, clients int) *ontoClient {
	return &ontoClient{http: newRawHTTP(strings.TrimPrefix(server, "http://"), clients), base: "/api/v2/ontologies/" + ontology}
}

func (c *ontoClient) close() { c.http.close() }

// Wire shapes (docs/api.md), reduced to what the bench compares.
type (
	// where is a where clause: a value, or the clauses of an and.
	where struct {
		Type  string `json:"type"`
		Field string `json:"field,omitempty"`
		Value any    `json:"value"`
	}
	// objectSet is an object set definition; typed, as a Go client
	// writes it, its encoding costs the load generator a quarter of a
	// map's (5 µs of a union's request on this machine).
	objectSet struct {
		Type       string `json:"type"`
		ObjectType string `json:"objectType,omitempty"`
		// InterfaceType is the interface of an interfaceBase set.
		InterfaceType string      `json:"interfaceType,omitempty"`
		ObjectSet     *objectSet  `json:"objectSet,omitempty"`
		ObjectSets    []objectSet `json:"objectSets,omitempty"`
		Where         *where      `json:"where,omitempty"`
		Link          string      `json:"link,omitempty"`
		// DerivedProperties are the definitions of a withProperties set.
		DerivedProperties map[string]any `json:"derivedProperties,omitempty"`
	}
	orderBy struct {
		OrderType string       `json:"orderType,omitempty"`
		Fields    []orderField `json:"fields"`
	}
	orderField struct {
		Field     string `json:"field"`
		Direction string `json:"direction"`
	}
	// Searches leave out object rids (excludeRid), as the SQL selects
	// the six columns and no more.
	searchRequest struct {
		Where      *where   `json:"where,omitempty"`
		OrderBy    *orderBy `json:"orderBy,omitempty"`
		PageSize   int      `json:"pageSize"`
		PageToken  string   `json:"pageToken,omitempty"`
		ExcludeRid bool     `json:"excludeRid"`
	}
	loadRequest struct {
		ObjectSet  objectSet `json:"objectSet"`
		OrderBy    *orderBy  `json:"orderBy,omitempty"`
		PageSize   int       `json:"pageSize"`
		ExcludeRid bool      `json:"excludeRid"`
	}
	aggregateRequest struct {
		Aggregation []map[string]string `json:"aggregation"`
		GroupBy     []map[string]any    `json:"groupBy"`
		Where       *where              `json:"where,omitempty"`
	}
	// objectResponse and pageResponse are scanned (decodeResponse): the
	// primary keys, the token and the total.
	objectResponse struct {
		PrimaryKey int64
	}
	pageResponse struct {
		Keys          []int64 // of the page's objects, in order
		NextPageToken string
		TotalCount    string
	}
	aggregateResponse struct {
		Data []struct {
			Group   map[string]any `json:"group"`
			Metrics []struct {
				Name  string      `json:"name"`
				Value json.Number `json:"value"`
			} `json:"metrics"`
		} `json:"data"`
	}
)

func eq(field string, v any) *where    { return &where{Type: "eq", Field: field, Value: v} }
func gte(field string, v any) *where   { return &where{Type: "gte", Field: field, Value: v} }
func gt(field string, v any) *where    { return &where{Type: "gt", Field: field, Value: v} }
func lt(field string, v any) *where    { return &where{Type: "lt", Field: field, Value: v} }
func and(ws ...*where) *where          { return &where{Type: "and", Value: ws} }
func text(typ, field, v string) *where { return &where{Type: typ, Field: field, Value: v} }
func baseSet() *objectSet              { return &objectSet{Type: "base", ObjectType: objectType} }
func filterSet(w *where) objectSet     { return objectSet{Type: "filter", ObjectSet: baseSet(), Where: w} }

func order(field, direction string) *orderBy {
	return &orderBy{Fields: []orderField{{Field: field, Direction: direction}}}
}

// search posts a search of Customer.
func (c *ontoClient) search(ctx context.Context, req searchRequest) (pageResponse, error) {
	req.ExcludeRid = true
	var resp pageResponse
	err := c.do(ctx, http.MethodPost, "/objects/"+objectType+"/search", req, &resp)
	return resp, err
}

// loadObjects posts a loadObjects of an object set.
func (c *ontoClient) loadObjects(ctx context.Context, req loadRequest) (pageResponse, error) {
	req.ExcludeRid = true
	var resp pageResponse
	err := c.do(ctx, http.MethodPost, "/objectSets/loadObjects", req, &resp)
	return resp, err
}

// aggregate posts an aggregation of Customer; the result maps the group's
// value (of property group, or "" with no groups) to the count metric.
func (c *ontoClient) aggregate(ctx context.Context, req aggregateRequest, group string) (map[string]int64, error) {
	return c.aggregateAt(ctx, "/objects/"+objectType+"/aggregate", req, group)
}

// aggregateAt posts an aggregation to path (under the ontology), as
// aggregate does.
func (c *ontoClient) aggregateAt(ctx context.Context, path string, req aggregateRequest, group string) (map[string]int64, error) {
	var resp aggregateResponse
	if err := c.do(ctx, http.MethodPost, path, req, &resp); err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, d := range resp.Data {
		key := ""
		if group != "" {
			key = fmt.Sprint(d.Group[group])
		}
		if len(d.Metrics) != 1 {
			return nil, fmt.Errorf("aggregate: %d metrics, want 1", len(d.Metrics))
		}
		n, err := d.Metrics[0].Value.Int64()
		if err != nil {
			return nil, fmt.Errorf("aggregate: count %q: %w", d.Metrics[0].Value, err)
		}
		out[key] = n
	}
	return out, nil
}

// get fetches the Customer with primary key id.
func (c *ontoClient) get(ctx context.Context, id int64) (objectResponse, error) {
	var resp objectResponse
	err := c.do(ctx, http.MethodGet, "/objects/"+objectType+"/"+strconv.FormatInt(id, 10), nil, &resp)
	return resp, err
}

func (c *ontoClient) do(ctx context.Context, method, path string, body, out any) error {
	var b []byte
	if body != nil {
		var err error
		if b, err = json.Marshal(body); err != nil {
			return err
		}
	}
	var answered error // of an answer, not of the exchange
	err := c.http.do(ctx, method, c.base+path, b, func(status int, raw []byte) {
		if status != http.StatusOK {
			answered = &httpError{status: status, body: string(raw[:min(len(raw), 500)])}
		} else if err := decodeResponse(raw, out); err != nil {
			answered = fmt.Errorf("%s %s: decode response: %w", method, path, err)
		}
	})
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	return answered
}

// decodeResponse decodes a response. Pages and objects, which are most of
// the traffic, are scanned for their primary keys instead of decoded with
// encoding/json, whose cost on a 2-core machine would otherwise show up in
// the server's figures: the client's job is to receive every byte and
// read the keys, as the PostgreSQL client receives and scans rows.
func decodeResponse(raw []byte, out any) error {
	switch o := out.(type) {
	case *pageResponse:
		return scanPage(raw, o)
	case *objectResponse:
		var one [1]int64
		keys, err := scanKeys(raw, one[:0])
		if err != nil {
			return err
		}
		if len(keys) != 1 {
			return fmt.Errorf("%d primary keys in an object", len(keys))
		}
		o.PrimaryKey = keys[0]
		return nil
	}
	return json.Unmarshal(raw, out)
}

// The patterns start with "_", which is rare in the bodies: bytes.Index
// skips to candidates by their first byte.
var (
	keyField   = []byte(`_primaryKey":`)
	nameField  = []byte(`_apiName":`)
	tokenField = []byte(`"nextPageToken":"`)
	totalField = []byte(`"totalCount":"`)
)

// scanKeys appends the __primaryKey numbers of a body to keys, in order:
// bare, or JSON strings for longs. A key field cannot occur inside a
// string value: the server escapes quotes.
func scanKeys(raw []byte, keys []int64) ([]int64, error) {
	for i := bytes.Index(raw, keyField); i >= 0; {
		rest := raw[i+len(keyField):]
		end := bytes.IndexAny(rest, ",}")
		if end < 0 {
			break
		}
		v := bytes.Trim(bytes.TrimSpace(rest[:end]), `"`)
		k, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("primary key %q: %w", v, err)
		}
		keys = append(keys, k)
		j := bytes.Index(rest, keyField)
		if j < 0 {
			break
		}
		i += len(keyField) + j
	}
	return keys, nil
}

// scanPage reads the keys, token and total of a page.
func scanPage(raw []byte, p *pageResponse) error {
	if !bytes.HasPrefix(raw, []byte(`{"data":[`)) || !bytes.HasSuffix(bytes.TrimSpace(raw), []byte("}")) {
		return fmt.Errorf("not a page: %.100s", raw)
	}
	n := bytes.Count(raw, nameField)
	keys, err := scanKeys(raw, make([]int64, 0, n))
	if err != nil {
		return err
	}
	if len(keys) != n {
		return fmt.Errorf("%d objects but %d primary keys", n, len(keys))
	}
	p.Keys = keys
	p.NextPageToken, p.TotalCount = "", ""
	if i := bytes.LastIndex(raw, tokenField); i >= 0 {
		rest := raw[i+len(tokenField):]
		p.NextPageToken = string(rest[:bytes.IndexByte(rest, '"')])
	}
	if i := bytes.LastIndex(raw, totalField); i >= 0 {
		rest := raw[i+len(totalField):]
		p.TotalCount = string(rest[:bytes.IndexByte(rest, '"')])
	}
	return nil
}

type httpError struct {
	status int
	body   string
}

func (e *httpError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.status, e.body) }
