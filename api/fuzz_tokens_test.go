package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/api"
)

// pagedRequest is a request that pages, and the body or query that asks
// for a page token.
type pagedRequest struct {
	method, path string
	body         func(tok string) []byte // nil for a GET with ?pageToken=
}

func (p pagedRequest) do(h http.Handler, tok string) *httptest.ResponseRecorder {
	path := p.path
	var body []byte
	if p.body != nil {
		body = p.body(tok)
	} else if tok != "" {
		path += "&pageToken=" + url.QueryEscape(tok)
	}
	req := httptest.NewRequest(p.method, path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+appToken)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// jsonBody returns a body function: fields with the token set.
func jsonBody(fields map[string]any) func(string) []byte {
	return func(tok string) []byte {
		m := map[string]any{}
		for k, v := range fields {
			m[k] = v
		}
		if tok != "" {
			m["pageToken"] = tok
		}
		b, _ := json.Marshal(m)
		return b
	}
}

// pagedRequests page in every order the engine's cursors encode: by key,
// by a string, a number, a date, a timestamp, a boolean and a decimal,
// descending, by a composite key, and the object type list.
func pagedRequests() []pagedRequest {
	o := ontologyPath
	sorted := func(typ string, fields ...string) pagedRequest {
		return pagedRequest{http.MethodPost, o + "/objects/" + typ + "/search", jsonBody(map[string]any{"pageSize": 2, "orderBy": orderBody(fields...)["orderBy"]})}
	}
	return []pagedRequest{
		{http.MethodGet, o + "/objects/Employee?pageSize=2", nil},
		{http.MethodGet, o + "/objects/Assignment?pageSize=2", nil},
		{http.MethodGet, o + "/objectTypes?pageSize=1", nil},
		sorted("Employee", "name"),
		sorted("Employee", "age:desc", "salary"),
		sorted("Employee", "hired", "updated:desc"),
		sorted("Employee", "active", "rating"),
		sorted("Assignment", "hours:desc"),
		{http.MethodPost, o + "/objectSets/loadObjects", jsonBody(map[string]any{"pageSize": 2,
			"objectSet": map[string]any{"type": "filter", "objectSet": base("Employee"), "where": map[string]any{"type": "gt", "field": "age", "value": 30}}})},
	}
}

// firstTokens returns the nextPageToken of the first page of each request.
func firstTokens(tb testing.TB, h http.Handler, reqs []pagedRequest) []string {
	tb.Helper()
	toks := make([]string, len(reqs))
	for i, p := range reqs {
		rec := p.do(h, "")
		var m map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil || rec.Code != http.StatusOK {
			tb.Fatalf("%s %s: %d %s", p.method, p.path, rec.Code, rec.Body)
		}
		tok, ok := m["nextPageToken"].(string)
		if !ok {
			tb.Fatalf("%s %s: no nextPageToken: %s", p.method, p.path, rec.Body)
		}
		toks[i] = tok
	}
	return toks
}

// FuzzPageToken sends arbitrary page tokens to every paged request: each
// is a page (the token was one of its own), a 400 InvalidPageToken, or a
// 400 ListingSnapshotExpired (a token that names a snapshot listing no
// longer held).
func FuzzPageToken(f *testing.F) {
	e := mustFuzzEnv(f)
	h := e.api.Handler()
	reqs := pagedRequests()
	toks := firstTokens(f, h, reqs)
	for i, tok := range toks {
		f.Add(uint8(i), tok)
		f.Add(uint8(i+1), tok) // another request's token
		f.Add(uint8(i), tok[:len(tok)/2])
	}
	f.Add(uint8(0), "AAAAAAAAAAAAAA")
	f.Add(uint8(0), "not a token")
	f.Fuzz(func(t *testing.T, which uint8, tok string) {
		defer watchdog(tok)()
		p := reqs[int(which)%len(reqs)]
		rec := p.do(h, tok)
		checkPage(t, tok, rec)
	})
}

// FuzzSearchCursor sends page tokens of the right request (their
// fingerprint matches) that carry arbitrary cursors, so that the engine
// decodes them: each is a page or a 400 InvalidPageToken.
func FuzzSearchCursor(f *testing.F) {
	e := mustFuzzEnv(f)
	h := e.api.Handler()
	reqs := pagedRequests()
	toks := firstTokens(f, h, reqs)
	for i, tok := range toks {
		// The real cursors are the seeds, whole and cut.
		vals, ok := api.TokenValues(tok)
		if !ok {
			f.Fatalf("token %q does not decode", tok)
		}
		for _, v := range vals {
			f.Add(uint8(i), []byte(v))
			f.Add(uint8(i), []byte(v[:len(v)/2]))
			f.Add(uint8(i), append([]byte(v), 0xff, 0))
		}
	}
	f.Add(uint8(0), []byte{})
	f.Fuzz(func(t *testing.T, which uint8, cursor []byte) {
		i := int(which) % len(reqs)
		defer watchdog(cursor)()
		tok, ok := api.WithCursor(toks[i], string(cursor))
		if !ok {
			t.Fatal("WithCursor refused a real token")
		}
		checkPage(t, tok, reqs[i].do(h, tok))
	})
}

// watchdog crashes the fuzz worker when one input runs for a minute (the
// fuzzer then keeps the input as a failure, as it does a panic): the
// engine must answer every request, and a loop that never ends would
// otherwise stall the fuzzer without a report. Stop it with the
// function it returns.
func watchdog(input any) (stop func()) {
	t := time.AfterFunc(time.Minute, func() { panic(fmt.Sprintf("no answer after a minute for input %q", input)) })
	return func() { t.Stop() }
}

// checkPage fails unless a response is a page or a 400 InvalidPageToken
// in the Conjure shape.
func checkPage(t *testing.T, tok string, rec *httptest.ResponseRecorder) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		t.Fatalf("token %q: response is not JSON: %d %s", tok, rec.Code, rec.Body)
	}
	switch {
	case rec.Code == http.StatusOK:
		if _, ok := m["data"]; !ok {
			t.Fatalf("token %q: 200 without data: %s", tok, rec.Body)
		}
	case rec.Code == http.StatusBadRequest && m["errorCode"] == "INVALID_ARGUMENT" &&
		(m["errorName"] == "InvalidPageToken" || m["errorName"] == "ListingSnapshotExpired"): // a listing id no listing holds
		if _, ok := m["errorInstanceId"]; !ok {
			t.Fatalf("token %q: not a Conjure error: %s", tok, rec.Body)
		}
	default:
		t.Fatalf("token %q: status %d: %s", tok, rec.Code, rec.Body)
	}
}
