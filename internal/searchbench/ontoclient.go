package searchbench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// ontoClient talks to the Ontology API of a running server, as an
// application would: JSON over keep-alive HTTP connections.
type ontoClient struct {
	http *http.Client
	base string // http://host:port/api/v2/ontologies/<ontology>
}

func newOntoClient(server string, clients int) *ontoClient {
	tr := &http.Transport{
		MaxIdleConns:        2 * clients,
		MaxIdleConnsPerHost: clients, // one kept-alive connection per client
		IdleConnTimeout:     5 * time.Minute,
		DisableCompression:  true,
	}
	return &ontoClient{http: &http.Client{Transport: tr}, base: server + "/api/v2/ontologies/" + ontology}
}

func (c *ontoClient) close() { c.http.CloseIdleConnections() }

// Wire shapes (api/README.md), reduced to what the bench compares.
type (
	where   map[string]any
	orderBy struct {
		Fields []orderField `json:"fields"`
	}
	orderField struct {
		Field     string `json:"field"`
		Direction string `json:"direction"`
	}
	searchRequest struct {
		Where     where    `json:"where,omitempty"`
		OrderBy   *orderBy `json:"orderBy,omitempty"`
		PageSize  int      `json:"pageSize"`
		PageToken string   `json:"pageToken,omitempty"`
	}
	loadRequest struct {
		ObjectSet any      `json:"objectSet"`
		OrderBy   *orderBy `json:"orderBy,omitempty"`
		PageSize  int      `json:"pageSize"`
	}
	aggregateRequest struct {
		Aggregation []map[string]string `json:"aggregation"`
		GroupBy     []map[string]string `json:"groupBy"`
		Where       where               `json:"where,omitempty"`
	}
	objectResponse struct {
		PrimaryKey json.Number `json:"__primaryKey"`
	}
	pageResponse struct {
		Data          []objectResponse `json:"data"`
		NextPageToken string           `json:"nextPageToken"`
		TotalCount    string           `json:"totalCount"`
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

func eq(field string, v any) where  { return where{"type": "eq", "field": field, "value": v} }
func gte(field string, v any) where { return where{"type": "gte", "field": field, "value": v} }
func gt(field string, v any) where  { return where{"type": "gt", "field": field, "value": v} }
func lt(field string, v any) where  { return where{"type": "lt", "field": field, "value": v} }
func and(ws ...where) where         { return where{"type": "and", "value": ws} }
func text(typ, field, v string) where {
	return where{"type": typ, "field": field, "value": v}
}

func order(field, direction string) *orderBy {
	return &orderBy{Fields: []orderField{{Field: field, Direction: direction}}}
}

// search posts a search of Customer.
func (c *ontoClient) search(ctx context.Context, req searchRequest) (pageResponse, error) {
	var resp pageResponse
	err := c.do(ctx, http.MethodPost, "/objects/"+objectType+"/search", req, &resp)
	return resp, err
}

// loadObjects posts a loadObjects of an object set.
func (c *ontoClient) loadObjects(ctx context.Context, req loadRequest) (pageResponse, error) {
	var resp pageResponse
	err := c.do(ctx, http.MethodPost, "/objectSets/loadObjects", req, &resp)
	return resp, err
}

// aggregate posts an aggregation of Customer; the result maps the group's
// value (of property group, or "" with no groups) to the count metric.
func (c *ontoClient) aggregate(ctx context.Context, req aggregateRequest, group string) (map[string]int64, error) {
	var resp aggregateResponse
	if err := c.do(ctx, http.MethodPost, "/objects/"+objectType+"/aggregate", req, &resp); err != nil {
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
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return &httpError{status: resp.StatusCode, body: string(raw[:min(len(raw), 500)])}
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s %s: decode response: %w", method, path, err)
	}
	return nil
}

type httpError struct {
	status int
	body   string
}

func (e *httpError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.status, e.body) }

// ids returns the primary keys of a page.
func ids(p pageResponse) ([]int64, error) {
	out := make([]int64, len(p.Data))
	for i, o := range p.Data {
		n, err := o.PrimaryKey.Int64()
		if err != nil {
			return nil, fmt.Errorf("primary key %q: %w", o.PrimaryKey, err)
		}
		out[i] = n
	}
	return out, nil
}
