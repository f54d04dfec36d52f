package opensearch

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"

	"github.com/ontoindex/ontoindex/indexer/backend"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// DefaultKeepAlive is a keep-alive for Reader.KeepAlive: how long the
// point in time of a listing lives after each of its pages.
const DefaultKeepAlive = 5 * time.Minute

// Reader answers the queries of one object type from its alias.
type Reader struct {
	c     *Cluster
	typ   *objects.Type
	alias string
	tr    translator
	// KeepAlive, when positive, makes the pages of a listing read one
	// point in time, kept this long after each page. Zero (the default)
	// pages on the alias as it is at each page, as the engine's cursors
	// do: a point in time lives until its keep-alive ends unless the
	// listing reaches its last page, and a cluster holds at most
	// search.max_open_pit_context (300) of them, which clients that read
	// first pages only use up in a keep-alive.
	KeepAlive time.Duration
	// Cursors makes Search return the cursor of every object of a page
	// (Result.Cursors), for a caller that may resume at any of them (a
	// merge of several types' pages).
	Cursors bool
}

// Reader returns the reader of object type t.
func (c *Cluster) Reader(t *objects.Type) *Reader {
	return &Reader{c: c, typ: t, alias: c.Writer(t).Alias(), tr: translator{typ: t}}
}

// Result is one page of a search, in the shape of the embedded engine's
// (index.Result) with keys where it has document numbers.
type Result struct {
	Keys  [][]byte // encoded primary keys of the page, in order
	Next  []byte   // cursor of the next page; nil on the last page
	Total int64    // every match, on every page (0 with NoTotal)
	// Cursors, with Reader.Cursors, hold the cursor of each object:
	// a search resumed with Cursors[j] starts after object j.
	Cursors [][]byte
}

// cursor is what Next holds: the sort values of the page's last object
// (search_after) and the point in time the listing reads.
type cursor struct {
	PIT   string            `json:"p,omitempty"`
	After []json.RawMessage `json:"a"`
}

// cursorAfter is the cursor after a hit of sort values sort (a JSON array
// as the node wrote it) on point in time pit: the bytes of a cursor of
// those values.
func cursorAfter(pit string, sort json.RawMessage) ([]byte, error) {
	return json.Marshal(struct {
		PIT   string          `json:"p,omitempty"`
		After json.RawMessage `json:"a"`
	}{pit, sort})
}

// Search returns one page of a search. Pages go on from the sort values
// of the previous page's last object (search_after), on the alias as it
// is at each page, as the engine's cursors do across builds. With
// KeepAlive set, the first page opens a point in time on the alias,
// which every page of the listing reads, and the last page closes it; a
// cursor whose point in time has expired goes on from the alias.
func (r *Reader) Search(ctx context.Context, q *query.Search) (*Result, error) {
	if q.PageSize < 1 {
		return nil, fmt.Errorf("page size %d: must be positive", q.PageSize)
	}
	if q.Relevance {
		return nil, fmt.Errorf("object type %s: relevance order is not supported by the OpenSearch backend", r.typ.APIName)
	}
	body, err := r.searchBody(q)
	if err != nil {
		return nil, err
	}
	var cur cursor
	if q.After != nil {
		if err := json.Unmarshal(q.After, &cur); err != nil || len(cur.After) != len(body["sort"].([]any)) {
			return nil, fmt.Errorf("opensearch: %w", query.ErrBadCursor)
		}
		body["search_after"] = cur.After
	} else if r.KeepAlive > 0 {
		if cur.PIT, err = r.openPIT(ctx); err != nil {
			return nil, err
		}
	}
	ans, err := r.page(ctx, body, cur.PIT)
	if errors.Is(err, errPITGone) {
		cur.PIT = ""
		ans, err = r.page(ctx, body, "")
	}
	if err != nil {
		return nil, err
	}
	res := &Result{Total: ans.Hits.Total.Value}
	hits := ans.Hits.Hits
	pit := cmp.Or(ans.PIT, cur.PIT)
	if len(hits) > q.PageSize {
		hits = hits[:q.PageSize]
		if res.Next, err = cursorAfter(pit, hits[len(hits)-1].Sort); err != nil {
			return nil, err
		}
	} else if cur.PIT != "" {
		r.closePIT(ctx, cur.PIT)
	}
	res.Keys = make([][]byte, 0, len(hits))
	for _, h := range hits {
		k, err := objects.KeyFromDocID(h.ID)
		if err != nil {
			return nil, fmt.Errorf("opensearch cluster %q: document id %q of %s is no key: %w", r.c.opts.Name, h.ID, r.alias, err)
		}
		res.Keys = append(res.Keys, k)
		if r.Cursors {
			c, err := cursorAfter(pit, h.Sort)
			if err != nil {
				return nil, err
			}
			res.Cursors = append(res.Cursors, c)
		}
	}
	if q.NoTotal {
		res.Total = 0
	}
	return res, nil
}

// searchBody is the body of a page's search, without its position.
func (r *Reader) searchBody(q *query.Search) (map[string]any, error) {
	filter, err := r.tr.filter(q.Filter)
	if err != nil {
		return nil, err
	}
	sort, err := r.sort(q.Sort)
	if err != nil {
		return nil, err
	}
	return map[string]any{
		// A filter context: no scores to compute, as nothing orders by them.
		"query":            map[string]any{"bool": map[string]any{"filter": []any{filter}}},
		"sort":             sort,
		"size":             q.PageSize + 1, // one more says whether a next page exists
		"_source":          false,
		"track_total_hits": !q.NoTotal,
	}, nil
}

// sort is the order of a search: each sort property with nulls last in
// both directions, then the primary key (the key field sorts like the
// encoded key), ascending.
func (r *Reader) sort(sorts []query.Sort) ([]any, error) {
	out := make([]any, 0, len(sorts)+1)
	for _, s := range sorts {
		p, ok := r.tr.property(s.Property)
		if !ok {
			return nil, fmt.Errorf("object type %s has no property %q", r.typ.APIName, s.Property)
		}
		if !p.Sortable() {
			return nil, fmt.Errorf("property %s is not sortable", p.APIName)
		}
		order := "asc"
		if s.Desc {
			order = "desc"
		}
		if k := p.Type.Primitive().Kind; k == objects.KindLong || k == objects.KindInteger {
			// missing _last sorts a null as the type's largest value (the
			// smallest, descending), which a value may hold too: the
			// presence sorts first, so that nulls come after every value.
			out = append(out, map[string]any{"_script": map[string]any{"type": "number", "order": "asc", "script": map[string]any{
				"source": nullLastScript, "params": map[string]any{"field": exactField(p)}}}})
		}
		out = append(out, map[string]any{exactField(p): map[string]any{"order": order, "missing": "_last"}})
	}
	return append(out, map[string]any{keyField: map[string]any{"order": "asc"}}), nil
}

// nullLastScript is 1 for a document without a value of the field, 0
// for one with.
const nullLastScript = "doc[params.field].size() == 0 ? 1 : 0"

// searchAnswer is the part of a search's answer a page reads.
type searchAnswer struct {
	PIT  string `json:"pit_id"`
	Hits struct {
		Total struct {
			Value int64 `json:"value"`
		} `json:"total"`
		Hits []searchHit `json:"hits"`
	} `json:"hits"`
}

// searchHit is one hit of a page. Its sort values stay raw, so that longs
// beyond 2^53 go back in search_after unchanged, and as one array: only a
// cursor reads them, most pages one hit's.
type searchHit struct {
	ID   string          `json:"_id"`
	Sort json.RawMessage `json:"sort"`
}

// wholeResults are the parameters of every search: the cluster fails it
// when a shard could not answer (a node gone, its copies not promoted
// yet) rather than answer with the other shards' hits, totals and
// buckets, which would be a wrong answer that looks right.
func wholeResults() opensearchapi.SearchParams {
	return opensearchapi.SearchParams{AllowPartialSearchResults: new(false)}
}

// pageParams are the parameters of a page's search: whole results, and
// only the fields of the answer a page reads (filter_path), and an error's.
// A hit's _index and _score, which a page does not read, were about 40% of
// its bytes, and decoding the answer over half of the reader's CPU in a
// page's search (BenchmarkHandler_openSearch's profile).
func pageParams() opensearchapi.SearchParams {
	p := wholeResults()
	p.FilterPath = []string{"pit_id", "hits.total.value", "hits.hits._id", "hits.hits.sort", "error"}
	return p
}

// errPITGone is a point in time the cluster no longer has.
var errPITGone = errors.New("point in time gone")

// page runs a search on the point in time pit, or on the alias when
// there is none.
func (r *Reader) page(ctx context.Context, body map[string]any, pit string) (*searchAnswer, error) {
	req := &opensearchapi.SearchReq{Indices: []string{r.alias}, Params: pageParams()}
	if pit != "" {
		req.Indices = nil
		body["pit"] = map[string]any{"id": pit, "keep_alive": fmt.Sprintf("%dms", r.KeepAlive.Milliseconds())}
	} else {
		delete(body, "pit")
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req.Body = bytes.NewReader(raw)
	var ans searchAnswer
	if err := r.do(ctx, "search "+r.alias, req, &ans); err != nil {
		if pit != "" && errorTypeOf(err) == "search_context_missing_exception" {
			return nil, errPITGone
		}
		return nil, err
	}
	return &ans, nil
}

// openPIT opens a point in time on the alias; "" (the listing pages on
// the alias) when the cluster holds as many as it takes.
func (r *Reader) openPIT(ctx context.Context) (string, error) {
	var resp *opensearchapi.PointInTimeCreateResp
	err := backend.Wait(ctx, func() error {
		var err error
		resp, err = r.c.client.PointInTime.Create(ctx, opensearchapi.PointInTimeCreateReq{Indices: []string{r.alias},
			Params: opensearchapi.PointInTimeCreateParams{KeepAlive: r.KeepAlive}})
		return err
	})
	if status(resp) == http.StatusTooManyRequests {
		r.c.log.WarnContext(ctx, "opensearch point in time refused: the listing pages on the alias", "alias", r.alias, "error", err)
		return "", nil
	}
	if err != nil {
		return "", r.c.check(ctx, "open a point in time on "+r.alias, resp, err)
	}
	if resp.Shards.Failed > 0 {
		// The cluster opens a point in time without the shards no copy
		// answered for (allow_partial_pit_creation, which the client
		// cannot turn off): its pages would miss their objects. The
		// listing pages on the alias, whose searches fail instead.
		r.c.log.WarnContext(ctx, "opensearch point in time missed shards: the listing pages on the alias", "alias", r.alias, "failed", resp.Shards.Failed)
		r.closePIT(ctx, resp.PitID)
		return "", nil
	}
	return resp.PitID, nil
}

// closePIT closes a listing's point in time; a failure only logs, since
// the point in time expires by itself.
func (r *Reader) closePIT(ctx context.Context, pit string) {
	var resp *opensearchapi.PointInTimeDeleteResp
	err := backend.Wait(ctx, func() error {
		var err error
		resp, err = r.c.client.PointInTime.Delete(ctx, opensearchapi.PointInTimeDeleteReq{PitID: []string{pit}})
		return err
	})
	if err != nil {
		r.c.log.DebugContext(ctx, "opensearch point in time not closed", "alias", r.alias, "status", status(resp), "error", err)
	}
}

// clusterError is the error of an answer with an error status.
type clusterError struct {
	Status int
	Type   string
	Reason string
}

func (e *clusterError) Error() string {
	return fmt.Sprintf("%d %s: %s", e.Status, e.Type, e.Reason)
}

// errAnswer marks an answer of the cluster that could not be read.
var errAnswer = errors.New("the answer could not be read")

// Failed reports whether err is the cluster's failure to answer a read:
// unreachable, an error of status 500 or more, an answer that could not be
// read. Other errors of a read are refusals: what the backend does not
// support (refused before the cluster sees it), or a request the cluster
// refused (status 4xx).
func Failed(err error) bool {
	var ue *UnreachableError
	var ce *clusterError
	switch {
	case errors.As(err, &ue), errors.Is(err, errAnswer):
		return true
	case errors.As(err, &ce):
		return ce.Status >= 500
	}
	return false
}

// Refused reports whether err is a read the backend refused before
// sending it (what it does not support, doc.go): its message says why, in
// terms of the object type and its properties.
func Refused(err error) bool {
	var ce *clusterError
	return err != nil && !Failed(err) && !errors.As(err, &ce) && !errors.Is(err, query.ErrBadCursor)
}

func errorTypeOf(err error) string {
	var ce *clusterError
	if errors.As(err, &ce) {
		return ce.Type
	}
	return ""
}

// do sends a request and decodes its answer into out.
func (r *Reader) do(ctx context.Context, what string, req interface {
	GetRequest(string) (*http.Request, error)
}, out any) error {
	hreq, err := req.GetRequest(http.MethodPost)
	if err != nil {
		return err
	}
	hreq = hreq.WithContext(ctx)
	if hreq.Body != nil {
		hreq.Header.Set("Content-Type", "application/json")
	}
	// The answer is waited for and read without the request's admission
	// slot (package backend), then decoded with it.
	var resp *http.Response
	var raw []byte
	err = backend.Wait(ctx, func() error {
		var err error
		if resp, err = r.c.client.Client.Stream(hreq); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("%s: %w", what, ctx.Err())
			}
			return &UnreachableError{Cluster: r.c.opts.Name, URLs: r.c.opts.URLs, Err: err}
		}
		defer resp.Body.Close()
		if raw, err = readAnswer(resp); err != nil {
			return fmt.Errorf("opensearch cluster %q: %s: %w: %w", r.c.opts.Name, what, errAnswer, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		var e struct {
			Error struct {
				Type      string `json:"type"`
				Reason    string `json:"reason"`
				RootCause []struct {
					Type   string `json:"type"`
					Reason string `json:"reason"`
				} `json:"root_cause"`
			} `json:"error"`
		}
		_ = json.Unmarshal(raw, &e)
		ce := &clusterError{Status: resp.StatusCode, Type: e.Error.Type, Reason: e.Error.Reason}
		if len(e.Error.RootCause) > 0 {
			ce.Type, ce.Reason = e.Error.RootCause[0].Type, e.Error.RootCause[0].Reason
		}
		if ce.Type == "" {
			ce.Reason = string(raw)
		}
		return fmt.Errorf("opensearch cluster %q: %s: %w", r.c.opts.Name, what, ce)
	}
	// The answers' types hold numbers as integers or raw: no json.Number.
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("opensearch cluster %q: %s: %w: %w", r.c.opts.Name, what, errAnswer, err)
	}
	return nil
}

// readAnswer reads the body of an answer into a buffer of its length,
// when the node says it (it does: the answers are not chunked), up to
// maxAnswerPrealloc: a length beyond that grows as the bytes arrive
// rather than being taken on the node's word.
func readAnswer(resp *http.Response) ([]byte, error) {
	buf := bytes.NewBuffer(make([]byte, 0, min(max(resp.ContentLength, 0), maxAnswerPrealloc)+bytes.MinRead))
	_, err := buf.ReadFrom(resp.Body)
	return buf.Bytes(), err
}

// maxAnswerPrealloc bounds the buffer readAnswer allocates up front.
const maxAnswerPrealloc = 16 << 20
