package s3test

import (
	"context"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Meter is a reverse proxy in front of a Server that records each request
// it forwards, with the bytes of the response body it delivered: what a
// client pointed at Meter's endpoint actually fetched, measured outside
// the client.
type Meter struct {
	srv *Server
	ln  net.Listener
	hs  *http.Server

	mu   sync.Mutex
	reqs []*metered
}

// metered is a request as it is forwarded: its body count grows until
// done is closed.
type metered struct {
	req    Request // without Status and Bytes
	status int     // set before done is closed
	n      atomic.Int64
	done   chan struct{}
}

// Request is one request a Meter forwarded.
type Request struct {
	Method string
	Bucket string
	Key    string // the object key ("" for bucket requests)
	Range  string // the Range header, "" for whole objects
	Status int
	Bytes  int64 // response body bytes delivered to the client
}

// Location is the request's object as s3://bucket/key.
func (r Request) Location() string { return "s3://" + r.Bucket + "/" + r.Key }

// MustMeter starts a Meter in front of s, closed when the test ends.
func MustMeter(tb testing.TB, s *Server) *Meter {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	target, _ := url.Parse(s.Endpoint())
	rp := httputil.NewSingleHostReverseProxy(target) // keeps the Host header, which requests are signed with
	m := &Meter{srv: s, ln: ln}
	m.hs = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bucket, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		rec := &metered{req: Request{Method: r.Method, Bucket: bucket, Key: key, Range: r.Header.Get("Range")}, done: make(chan struct{})}
		m.mu.Lock()
		m.reqs = append(m.reqs, rec)
		m.mu.Unlock()
		cw := &countingWriter{ResponseWriter: w, status: http.StatusOK, n: &rec.n}
		rp.ServeHTTP(cw, r)
		rec.status = cw.status
		close(rec.done)
	})}
	go func() { _ = m.hs.Serve(ln) }()
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = m.hs.Shutdown(ctx)
	})
	return m
}

// Endpoint is the URL clients use instead of the server's.
func (m *Meter) Endpoint() string { return "http://" + m.ln.Addr().String() }

// Props are the server's S3 properties with the Meter's endpoint.
func (m *Meter) Props() map[string]string { return m.srv.propsFor(m.Endpoint()) }

// settle is how long Take waits for a request in flight to end.
const settle = 2 * time.Second

// Take returns the requests received since the last Take. It waits a while
// for the ones in flight (a response a client stopped reading ends when
// the proxy notices); one still running then is returned with Status 0
// and the bytes delivered so far: a response its client left open.
func (m *Meter) Take() []Request {
	m.mu.Lock()
	recs := m.reqs
	m.reqs = nil
	m.mu.Unlock()
	deadline := time.After(settle)
	out := make([]Request, 0, len(recs))
	for _, rec := range recs {
		r := rec.req
		select {
		case <-rec.done:
			r.Status = rec.status
		case <-deadline:
			deadline = closedChan
		}
		r.Bytes = rec.n.Load()
		out = append(out, r)
	}
	return out
}

var closedChan = func() chan time.Time { c := make(chan time.Time); close(c); return c }()

type countingWriter struct {
	http.ResponseWriter
	status int
	n      *atomic.Int64
}

func (c *countingWriter) WriteHeader(code int) {
	c.status = code
	c.ResponseWriter.WriteHeader(code)
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.ResponseWriter.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// Flush lets the proxy stream bodies as they come.
func (c *countingWriter) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
