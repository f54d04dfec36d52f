package h1_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"log"
	"maps"
	"net"
	"net/http"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/api/h1"
)

// maxHeaderBytes is both servers' MaxHeaderBytes in the differential
// tests. net/http reads up to 4 KiB past it before it answers 431.
const maxHeaderBytes = 4096

// chunkingThreshold is net/http's bufferBeforeChunkingSize: a response
// that it sends chunked although no larger than this must be chunked by
// h1 too. A larger one h1 may buffer whole and send with its length.
const chunkingThreshold = 2048

// ioTimeout bounds every exchange with a server, so that a server that
// hangs fails the test instead of stalling it.
const ioTimeout = 10 * time.Second

// servers are the addresses of a net/http server (the reference) and an
// h1 server that serve the same handler.
type servers struct{ std, h1 string }

func listen(tb testing.TB) net.Listener {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	return ln
}

// startServers serves h through both servers until the test ends.
func startServers(tb testing.TB, h http.Handler) servers {
	tb.Helper()
	std := &http.Server{Handler: h, MaxHeaderBytes: maxHeaderBytes, ErrorLog: log.New(io.Discard, "", 0)}
	hs := &h1.Server{Handler: h, MaxHeaderBytes: maxHeaderBytes}
	return servers{std: serveUntilCleanup(tb, std), h1: serveUntilCleanup(tb, hs)}
}

// serveUntilCleanup runs srv on a fresh listener and returns its
// address; the test's cleanup closes srv and waits for Serve to return.
func serveUntilCleanup(tb testing.TB, srv interface {
	Serve(net.Listener) error
	Close() error
}) string {
	tb.Helper()
	ln := listen(tb)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	tb.Cleanup(func() {
		srv.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			tb.Errorf("Serve returned %v, want http.ErrServerClosed", err)
		}
	})
	return ln.Addr().String()
}

// reply is what a client read of one response.
type reply struct {
	err        string // why no response could be read; "" when one was
	proto      string
	status     int
	statusLine string
	header     http.Header // without Date; without Content-Length unless framing is "none"
	close      bool        // Connection: close, or HTTP/1.0 without keep-alive (ReadResponse drops the header)
	framing    string      // "length N", "chunked", "close" (until EOF) or "none" (no body)
	body       []byte
	bodyErr    string
}

// errKind names a read error: the ways a peer can go away are one kind.
func errKind(err error) string {
	var ne net.Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "connection closed"
	}
	return err.Error()
}

// client is one raw TCP connection to a server.
type client struct {
	nc net.Conn
	br *bufio.Reader
}

func dial(tb testing.TB, addr string) *client {
	tb.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(ioTimeout))
	return &client{nc: nc, br: bufio.NewReader(nc)}
}

// send writes s in the background, so that a server that answers before
// it read the whole request cannot deadlock the client; the channel is
// closed when the write ends (errors are those of a closed connection).
func (c *client) send(s string) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		io.WriteString(c.nc, s)
	}()
	return done
}

// read reads one response to a request of the given method.
func (c *client) read(method string) reply {
	resp, err := http.ReadResponse(c.br, &http.Request{Method: method})
	if err != nil {
		return reply{err: errKind(err)}
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	r := reply{
		proto: resp.Proto, status: resp.StatusCode, statusLine: resp.Status,
		header: resp.Header.Clone(), close: resp.Close, body: body, bodyErr: errKind(err),
	}
	r.header.Del("Date")
	switch {
	case method == http.MethodHead || resp.StatusCode/100 == 1 ||
		resp.StatusCode == http.StatusNoContent || resp.StatusCode == http.StatusNotModified:
		r.framing = "none"
	case slices.Contains(resp.TransferEncoding, "chunked"):
		r.framing = "chunked"
	case resp.ContentLength >= 0:
		r.framing = "length " + strconv.FormatInt(resp.ContentLength, 10)
		r.header.Del("Content-Length")
	default:
		r.framing = "close"
	}
	return r
}

// step is a part of an exchange: bytes to write, then responses to read.
type step struct {
	send string
	// cont, when set, is written after an interim response (100
	// Continue) was read: the body of an Expect: 100-continue request.
	cont    string
	methods []string // the method of each request answered after the writes
}

// outcome is what a client saw of an exchange: every response, then
// whether the server kept the connection open for one more request.
type outcome struct {
	replies []reply
	conn    string // "open", "closed" or "hung"
}

const probeRequest = "GET /small HTTP/1.1\r\nHost: probe.example\r\n\r\n"

// exchange runs steps on one connection to addr. The connection is found
// open when it answers a probe request after the last step.
func exchange(tb testing.TB, addr string, steps []step) outcome {
	tb.Helper()
	c := dial(tb, addr)
	var out outcome
	for _, st := range steps {
		written := c.send(st.send)
		if st.cont != "" {
			r := c.read(http.MethodPost)
			out.replies = append(out.replies, r)
			if r.err != "" {
				out.conn = "closed"
				return out
			}
			<-written
			written = c.send(st.cont)
		}
		for _, m := range st.methods {
			r := c.read(m)
			out.replies = append(out.replies, r)
			if r.err != "" {
				out.conn = "closed"
				if r.err == "timeout" {
					out.conn = "hung"
				}
				return out
			}
		}
		<-written
	}
	written := c.send(probeRequest)
	switch r := c.read(http.MethodGet); {
	case r.err == "" && r.status == http.StatusOK:
		out.conn = "open"
	case r.err == "timeout":
		out.conn = "hung"
	default:
		out.conn = "closed"
	}
	<-written
	return out
}

// compareReply reports how h1's reply differs from net/http's. Where the
// server itself refused the request (serverError), the connection closes
// after it, so the framing of the body and its text are its own; its
// status, type and Connection header are not.
func compareReply(t testing.TB, i int, std, got reply, serverError bool) {
	t.Helper()
	if std.err != "" || got.err != "" {
		if std.err != got.err {
			t.Errorf("response %d: net/http: %s; h1: %s (h1 status %d)", i, orOK(std.err), orOK(got.err), got.status)
		}
		return
	}
	if got.status != std.status || got.proto != std.proto {
		t.Errorf("response %d: status line %s %q, net/http sent %s %q", i, got.proto, got.statusLine, std.proto, std.statusLine)
	}
	if got.close != std.close {
		t.Errorf("response %d: says the connection closes: %t, net/http: %t", i, got.close, std.close)
	}
	if serverError {
		if got.header.Get("Content-Type") != std.header.Get("Content-Type") {
			t.Errorf("response %d: Content-Type %q, net/http sent %q", i, got.header.Get("Content-Type"), std.header.Get("Content-Type"))
		}
		if !bytes.HasPrefix(got.body, []byte(strconv.Itoa(std.status))) {
			t.Errorf("response %d: body %q does not start with the status (net/http: %q)", i, got.body, std.body)
		}
		return
	}
	if got.statusLine != std.statusLine {
		t.Errorf("response %d: status %q, net/http sent %q", i, got.statusLine, std.statusLine)
	}
	if !maps.EqualFunc(got.header, std.header, slices.Equal) {
		t.Errorf("response %d: headers differ:\n h1:       %v\n net/http: %v", i, got.header, std.header)
	}
	if got.framing != std.framing {
		// Only a body net/http chunks past its 2 KiB buffer may come
		// with its length from h1, whose buffer is larger.
		lengthOK := got.framing == "length "+strconv.Itoa(len(got.body)) && got.bodyErr == ""
		if !(std.framing == "chunked" && len(std.body) > chunkingThreshold && lengthOK) {
			t.Errorf("response %d: framing %q, net/http's %q (body %d bytes)", i, got.framing, std.framing, len(std.body))
		}
	}
	if !bytes.Equal(got.body, std.body) {
		t.Errorf("response %d: body (%d bytes) %q\nnet/http's (%d bytes) %q", i, len(got.body), clip(got.body), len(std.body), clip(std.body))
	}
	if got.bodyErr != std.bodyErr {
		t.Errorf("response %d: body read: %s; net/http's: %s", i, orOK(got.bodyErr), orOK(std.bodyErr))
	}
}

func compareOutcome(t testing.TB, std, got outcome, serverError bool) {
	t.Helper()
	for i := range min(len(std.replies), len(got.replies)) {
		compareReply(t, i, std.replies[i], got.replies[i], serverError)
	}
	if len(got.replies) != len(std.replies) {
		t.Errorf("h1 gave %d responses, net/http %d", len(got.replies), len(std.replies))
	}
	if got.conn != std.conn {
		t.Errorf("connection after the exchange: h1 %s, net/http %s", got.conn, std.conn)
	}
}

func orOK(s string) string {
	if s == "" {
		return "ok"
	}
	return s
}

func clip(b []byte) []byte {
	if len(b) > 200 {
		return append(b[:200:200], "..."...)
	}
	return b
}
