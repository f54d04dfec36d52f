package soak

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ontoindex/ontoindex/indexer/daemon"
)

const ontology = "soak"

// client speaks the server's API with a bearer token, as applications do.
type client struct {
	hc    *http.Client
	base  string
	token string
	admin string // the admin token, for rebuilds
	// resent counts the requests the HTTP client sent a second time, on a
	// new connection, because the kept-alive one it picked was closed
	// (see do).
	resent atomic.Int64
}

// httpError is an answer with a status other than the one expected.
type httpError struct {
	Method, Path string
	Status       int
	Body         string
}

func (e *httpError) Error() string {
	return fmt.Sprintf("%s %s: HTTP %d: %s", e.Method, e.Path, e.Status, e.Body)
}

// do sends a request and decodes a 2xx JSON answer into out (UseNumber).
func (c *client) do(ctx context.Context, method, path, token string, body any, out any) error {
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
	req.Header.Set("Authorization", "Bearer "+token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
		// The POSTs with a body are the API's reads (search, loadObjects,
		// aggregate): idempotent, as the header tells net/http, which then
		// sends one again on a new connection when the kept-alive one it
		// picked turns out closed, as it does for GETs and as browsers do
		// for every method. HTTP/1.1 cannot rule that race out; resent
		// counts it, so that a server that closes connections shows.
		req.Header.Set("Idempotency-Key", "read")
	}
	// Whether the request went on a kept-alive connection tells a server
	// that closed it apart from one that never read the request.
	var reused, got bool
	conns := 0
	req = req.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(ci httptrace.GotConnInfo) {
		reused, got = ci.Reused, true
		if conns++; conns == 2 {
			c.resent.Add(1)
		}
	}}))
	start := time.Now()
	resp, err := c.hc.Do(req)
	if err != nil {
		conn := "no connection"
		switch {
		case got && reused:
			conn = "a kept-alive connection"
		case got:
			conn = "a new connection"
		}
		return fmt.Errorf("%s %s (on %s, after %s): %w", method, path, conn, time.Since(start).Round(time.Millisecond), err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: read body: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return &httpError{Method: method, Path: path, Status: resp.StatusCode, Body: strings.TrimSpace(string(b[:min(len(b), 500)]))}
	}
	if out == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("%s %s: decode: %w", method, path, err)
	}
	return nil
}

func apiPath(format string, args ...any) string {
	return "/api/v2/ontologies/" + ontology + fmt.Sprintf(format, args...)
}

// page is one page of objects, canonical (see canonObject).
type page struct {
	Objects []map[string]string
	Total   int64
	Next    string
}

type rawPage struct {
	Data          []map[string]any `json:"data"`
	NextPageToken string           `json:"nextPageToken"`
	TotalCount    json.Number      `json:"totalCount"`
}

func (r *rawPage) page() (page, error) {
	p := page{Next: r.NextPageToken}
	if r.TotalCount != "" {
		n, err := strconv.ParseInt(string(r.TotalCount), 10, 64)
		if err != nil {
			return p, fmt.Errorf("totalCount %q: %w", r.TotalCount, err)
		}
		p.Total = n
	}
	for _, o := range r.Data {
		p.Objects = append(p.Objects, canonObject(o))
	}
	return p, nil
}

// doubles are the properties of type double: their values are compared
// as floats, every other number as an integer.
var doubles = map[string]bool{"val": true}

// canonObject is a served object's properties (not the __ fields) in
// canonical form: strings as they are, longs (JSON strings) and integers
// as digits, doubles in Go's shortest form.
func canonObject(o map[string]any) map[string]string {
	out := make(map[string]string, len(o))
	for k, v := range o {
		if strings.HasPrefix(k, "__") {
			continue
		}
		out[k] = canonValue(k, v)
	}
	return out
}

func canonValue(prop string, v any) string {
	switch x := v.(type) {
	case string:
		if doubles[prop] {
			if f, err := strconv.ParseFloat(x, 64); err == nil {
				return canonFloat(f)
			}
		}
		return x
	case json.Number:
		if doubles[prop] {
			if f, err := strconv.ParseFloat(string(x), 64); err == nil {
				return canonFloat(f)
			}
		}
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return canonInt(i)
		}
		return string(x)
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}

// listAll reads every object of a type, page by page.
func (c *client) listAll(ctx context.Context, typ string) ([]map[string]string, error) {
	return c.pages(ctx, apiPath("/objects/%s?pageSize=10000", typ))
}

// links reads every object linked to one object, page by page.
func (c *client) links(ctx context.Context, typ, pk, link string) ([]map[string]string, error) {
	return c.pages(ctx, apiPath("/objects/%s/%s/links/%s?pageSize=10000", typ, url.PathEscape(pk), link))
}

func (c *client) pages(ctx context.Context, path string) ([]map[string]string, error) {
	var all []map[string]string
	token := ""
	for {
		p := path
		if token != "" {
			p += "&pageToken=" + url.QueryEscape(token)
		}
		var r rawPage
		if err := c.do(ctx, http.MethodGet, p, c.token, nil, &r); err != nil {
			return nil, err
		}
		pg, err := r.page()
		if err != nil {
			return nil, err
		}
		all = append(all, pg.Objects...)
		if pg.Next == "" {
			return all, nil
		}
		token = pg.Next
	}
}

// get reads one object; found is false on 404 ObjectNotFound (or
// LinkedObjectNotFound for a path of links).
func (c *client) get(ctx context.Context, path string) (map[string]string, bool, error) {
	var o map[string]any
	err := c.do(ctx, http.MethodGet, path, c.token, nil, &o)
	if he, ok := err.(*httpError); ok && he.Status == http.StatusNotFound && strings.Contains(he.Body, "NotFound") {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return canonObject(o), true, nil
}

// post sends a search or loadObjects request and returns its page.
func (c *client) post(ctx context.Context, path string, body any) (page, error) {
	var r rawPage
	if err := c.do(ctx, http.MethodPost, path, c.token, body, &r); err != nil {
		return page{}, err
	}
	return r.page()
}

// aggregation is an aggregate answer: per group (the groupBy values
// joined by "|", "" without groups), the metrics by name.
type aggregation map[string]map[string]string

func (c *client) aggregate(ctx context.Context, path string, body any) (aggregation, error) {
	var r struct {
		Data []struct {
			Group   map[string]any `json:"group"`
			Metrics []struct {
				Name  string `json:"name"`
				Value any    `json:"value"`
			} `json:"metrics"`
		} `json:"data"`
	}
	if err := c.do(ctx, http.MethodPost, path, c.token, body, &r); err != nil {
		return nil, err
	}
	out := aggregation{}
	for _, d := range r.Data {
		var g []string
		for _, k := range slices.Sorted(maps.Keys(d.Group)) {
			g = append(g, canonValue(k, d.Group[k]))
		}
		ms := map[string]string{}
		for _, m := range d.Metrics {
			ms[m.Name] = canonValue(m.Name, m.Value)
		}
		out[strings.Join(g, "|")] = ms
	}
	return out, nil
}

// status is GET /api/indexer/v1/status/{typ}.
func (c *client) status(ctx context.Context, typ string) (daemon.TypeStatus, error) {
	var st daemon.TypeStatus
	err := c.do(ctx, http.MethodGet, "/api/indexer/v1/status/"+typ, c.token, nil, &st)
	return st, err
}

// reload asks the server to reload its config file.
func (c *client) reload(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, "/api/indexer/v1/reload", c.admin, nil, nil)
}

// rebuild asks for a full rebuild of typ into a new generation.
func (c *client) rebuild(ctx context.Context, typ string) error {
	return c.do(ctx, http.MethodPost, "/api/indexer/v1/objectTypes/"+typ+"/rebuild", c.admin, nil, nil)
}
