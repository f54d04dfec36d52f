package searchbench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The query DSL the backend sends, taken down by a recording proxy
// between the backend server and the cluster while the backend's answers
// are checked, and sent straight to the cluster as the baseline of what
// the API costs. A query's parameters are drawn at random, so the bench
// sends the DSL of the parameters it draws: a template, the DSL of one
// checked request with each parameter's JSON literal made a hole, which
// must give back the DSL of the other checked requests exactly, or the
// query is not measured straight (its DSL varies with more than its
// parameters: the searchAround's keys of the customers found).

// dslRequest is one request the backend sent.
type dslRequest struct {
	method, path string
	body         []byte
}

// recorder is the recording proxy.
type recorder struct {
	srv *http.Server
	url string

	mu   sync.Mutex
	reqs []dslRequest
}

func startRecorder(target string) (*recorder, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	rec := &recorder{url: "http://" + ln.Addr().String()}
	proxy := httputil.NewSingleHostReverseProxy(u)
	rec.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, dslRequest{method: r.Method, path: r.URL.RequestURI(), body: body})
		rec.mu.Unlock()
		proxy.ServeHTTP(w, r)
	})}
	go func() { _ = rec.srv.Serve(ln) }()
	return rec, nil
}

// take returns the requests recorded since the last take.
func (rec *recorder) take() []dslRequest {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	out := rec.reqs
	rec.reqs = nil
	return out
}

func (rec *recorder) close() { _ = rec.srv.Close() }

// searches are the requests of a call that search (the queries' DSL), not
// the ones the server makes of its own (none are expected while it
// serves, but a poll of the alias would not be a query).
func searches(reqs []dslRequest) []dslRequest {
	return slices.DeleteFunc(reqs, func(r dslRequest) bool { return !strings.Contains(r.path, "/_search") })
}

// dslCalls is what the check found of a query on the backend.
type dslCalls struct {
	requests int          // searches the backend sent per call (0: the embedded index answered)
	tmpl     *dslTemplate // nil: not replayable
	why      string       // why not
}

// literals are the JSON literals of a query's parameters in the DSL, in
// a fixed order (one place per parameter; "" for one the query does not
// use).
func literals(p params) []string {
	str := func(s string) string {
		if s == "" {
			return ""
		}
		b, _ := json.Marshal(s)
		return string(b)
	}
	out := []string{str(p.city), "", "", "", "", str(p.prefix), ""}
	if p.lo != 0 || p.hi != 0 {
		out[1], out[2] = strconv.FormatFloat(p.lo, 'f', -1, 64), strconv.FormatFloat(p.hi, 'f', -1, 64)
	}
	if terms := strings.Fields(p.terms); len(terms) == 2 {
		out[3], out[4] = str(terms[0]), str(terms[1])
	}
	if p.visits != 0 {
		out[6] = strconv.Itoa(int(p.visits))
	}
	return out
}

// dslTemplate is the DSL of a call with holes for its parameters.
type dslTemplate struct {
	reqs []templateRequest
}

type templateRequest struct {
	method, path string
	parts        []templatePart
}

// templatePart is literal bytes, or the hole of parameter hole (>= 0).
type templatePart struct {
	text []byte
	hole int
}

// newTemplate makes the template of reqs, the DSL of a call with params p.
func newTemplate(reqs []dslRequest, p params) *dslTemplate {
	lits := literals(p)
	t := &dslTemplate{}
	for _, r := range reqs {
		t.reqs = append(t.reqs, templateRequest{method: r.method, path: r.path, parts: holes(r.body, lits)})
	}
	return t
}

// holes cuts body at every whole occurrence of a literal of lits.
func holes(body []byte, lits []string) []templatePart {
	var out []templatePart
	start := 0
	for i := 0; i < len(body); {
		hole, n := -1, 0
		for k, lit := range lits {
			if lit != "" && bytes.HasPrefix(body[i:], []byte(lit)) && whole(body, i, len(lit)) && len(lit) > n {
				hole, n = k, len(lit)
			}
		}
		if hole < 0 {
			i++
			continue
		}
		if i > start {
			out = append(out, templatePart{text: body[start:i], hole: -1})
		}
		out = append(out, templatePart{hole: hole})
		i += n
		start = i
	}
	if start < len(body) {
		out = append(out, templatePart{text: body[start:], hole: -1})
	}
	return out
}

// whole reports whether body[i:i+n] is a whole token: a string literal
// carries its quotes; a number must not continue a longer one.
func whole(body []byte, i, n int) bool {
	if body[i] == '"' {
		return true
	}
	numeric := func(c byte) bool {
		return c >= '0' && c <= '9' || c == '.' || c == '-' || c == 'e' || c == 'E' || c == '+'
	}
	return (i == 0 || !numeric(body[i-1])) && (i+n == len(body) || !numeric(body[i+n]))
}

// render is the DSL of the call with params p.
func (t *dslTemplate) render(p params) []dslRequest {
	lits := literals(p)
	out := make([]dslRequest, len(t.reqs))
	for i, r := range t.reqs {
		var b []byte
		for _, part := range r.parts {
			if part.hole >= 0 {
				b = append(b, lits[part.hole]...)
			} else {
				b = append(b, part.text...)
			}
		}
		out[i] = dslRequest{method: r.method, path: r.path, body: b}
	}
	return out
}

// matches reports where rendering p differs from reqs ("" where it does
// not).
func (t *dslTemplate) matches(reqs []dslRequest, p params) string {
	got := t.render(p)
	if len(got) != len(reqs) {
		return fmt.Sprintf("%d searches a call, then %d", len(got), len(reqs))
	}
	for i := range got {
		if got[i].method != reqs[i].method || got[i].path != reqs[i].path || !bytes.Equal(got[i].body, reqs[i].body) {
			return fmt.Sprintf("search %d of a call differs beyond the parameters: %s %s %.100s...", i+1, reqs[i].method, reqs[i].path, reqs[i].body)
		}
	}
	return ""
}

// send sends the DSL of a call with params p to the cluster, each request
// after the other, and fails unless each is answered 200.
func (t *dslTemplate) send(ctx context.Context, h *rawHTTP, p params) error {
	for _, r := range t.render(p) {
		var status int
		var head []byte
		if err := h.do(ctx, r.method, r.path, r.body, func(s int, b []byte) {
			status = s
			if s != http.StatusOK {
				head = bytes.Clone(b[:min(len(b), 300)])
			}
		}); err != nil {
			return err
		}
		if status != http.StatusOK {
			return &httpError{status: status, body: string(head)}
		}
	}
	return nil
}

// checkBackend asks the backend server (through the recorder) and the
// embedded server every query a few times with verify's parameters,
// compares their answers, and takes down the DSL of each call.
func (s *openSearchSide) checkBackend(ctx context.Context, qs []query, onto *ontoClient, pg *pgSide, rec *recorder, seed uint64) error {
	s.calls = map[string]*dslCalls{}
	var bad []string
	for i, q := range qs {
		if q.onto == nil {
			continue
		}
		r := rand.New(rand.NewPCG(seed, 1<<40|uint64(i)))
		var ps []params
		var seen [][]dslRequest
		for range verifyRounds {
			p := q.gen(r)
			a, err := q.onto(ctx, onto, p)
			if err != nil {
				return fmt.Errorf("%s on ontoindex (%+v): %w", q.name, p, err)
			}
			rec.take()
			b, err := q.onto(ctx, s.client, p)
			if err != nil {
				return fmt.Errorf("%s on the OpenSearch backend (%+v): %w", q.name, p, err)
			}
			ps, seen = append(ps, p), append(seen, searches(rec.take()))
			if q.agree != nil && pg != nil && len(a.ids) == len(b.ids) {
				n, err := q.agree(ctx, pg, p)
				if err != nil {
					return fmt.Errorf("%s on postgres, rows to agree on (%+v): %w", q.name, p, err)
				}
				n = min(n, len(a.ids))
				a.ids, b.ids = a.ids[:n], b.ids[:n]
			}
			if d := diffNamed(a, b, "ontoindex", "the OpenSearch backend", "the OpenSearch backend's totalCount"); d != "" {
				bad = append(bad, fmt.Sprintf("%s (%+v): %s", q.name, p, d))
			}
		}
		s.calls[q.id] = callsOf(ps, seen)
	}
	if len(bad) > 0 {
		return &MismatchError{Mismatches: bad}
	}
	return nil
}

// callsOf is what the checked calls of a query, with params ps, sent.
func callsOf(ps []params, seen [][]dslRequest) *dslCalls {
	c := &dslCalls{requests: len(seen[0])}
	for _, reqs := range seen[1:] {
		if len(reqs) != c.requests {
			c.why = "the searches of a call vary in number"
			return c
		}
	}
	if c.requests == 0 {
		return c
	}
	t := newTemplate(seen[0], ps[0])
	for k := 1; k < len(seen); k++ {
		if why := t.matches(seen[k], ps[k]); why != "" {
			c.why = why
			return c
		}
	}
	c.tmpl = t
	return c
}
