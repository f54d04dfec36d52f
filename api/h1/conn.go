package h1

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/net/http/httpguts"
)

// A connection is idle while it waits for a request, active from the
// request's first byte to the end of its response, and closed after.
// Shutdown closes only idle connections: the transitions are compare-
// and-swaps, so that a request whose first byte was seen is answered.
const (
	stateIdle int32 = iota
	stateActive
	stateClosed
)

// The sizes of a connection's buffers.
const (
	readBufferSize  = 4 << 10
	writeBufferSize = 4 << 10
)

// conn is one client connection, served by one goroutine.
type conn struct {
	srv        *Server
	nc         net.Conn
	lr         limitedReader
	br         *bufio.Reader
	bw         *bufio.Writer
	remoteAddr string
	ctx        context.Context // ends when the connection does, or at Close
	cancel     context.CancelFunc
	state      atomic.Int32
	deadline   bool // a read deadline is set
	lastMethod string
	// linger: the connection closes with request bytes unread, which the
	// kernel would answer with a reset that can destroy the response
	// before the client reads it; see closeWrite.
	linger bool
	resp   response
}

func newConn(s *Server, nc net.Conn) *conn {
	c := &conn{srv: s, nc: nc, remoteAddr: nc.RemoteAddr().String()}
	// The value net/http's server puts there too (its ServerContextKey
	// holds an *http.Server, which this is not).
	ctx := context.WithValue(s.base, http.LocalAddrContextKey, nc.LocalAddr())
	c.ctx, c.cancel = context.WithCancel(ctx)
	c.lr = limitedReader{r: nc, remain: math.MaxInt64}
	c.br = bufio.NewReaderSize(&c.lr, readBufferSize)
	c.bw = bufio.NewWriterSize(nc, writeBufferSize)
	return c
}

// serve answers the connection's requests in turn until one asks to
// close, the client goes or the server stops.
func (c *conn) serve() {
	defer func() {
		if c.linger {
			c.closeWrite()
		}
		c.close()
		c.cancel()
		c.srv.untrack(c)
	}()
	for {
		if !c.awaitRequest() {
			return
		}
		req, err := c.readRequest()
		if err != nil {
			c.refuse(err)
			return
		}
		if !c.handle(req) || !c.toIdle() {
			return
		}
	}
}

// awaitRequest waits for the first byte of the next request (at most
// IdleTimeout) and makes the connection active.
func (c *conn) awaitRequest() bool {
	if c.br.Buffered() == 0 {
		if d := c.srv.IdleTimeout; d > 0 {
			c.setReadDeadline(time.Now().Add(d))
		} else {
			c.setReadDeadline(time.Time{})
		}
		if _, err := c.br.Peek(1); err != nil {
			return false
		}
	}
	return c.state.CompareAndSwap(stateIdle, stateActive)
}

// toIdle makes an active connection idle after a response, or closes it
// when the server stopped meanwhile.
func (c *conn) toIdle() bool {
	c.state.Store(stateIdle)
	if c.srv.isClosing() {
		c.closeIfIdle()
		return false
	}
	return true
}

// closeIfIdle closes the connection when it waits for a request.
func (c *conn) closeIfIdle() {
	if c.state.CompareAndSwap(stateIdle, stateClosed) {
		_ = c.nc.Close()
	}
}

// lingerTime bounds the wait of closeWrite for the client to close.
const lingerTime = 500 * time.Millisecond

// closeWrite ends the connection's sending side and reads away what the
// client still sends until it closes or lingerTime passes, as net/http
// does before closing a connection whose request was not read whole: a
// close with unread bytes resets the connection, and the client may lose
// the response it has not read yet.
func (c *conn) closeWrite() {
	cw, ok := c.nc.(interface{ CloseWrite() error })
	if !ok || cw.CloseWrite() != nil {
		return
	}
	_ = c.nc.SetReadDeadline(time.Now().Add(lingerTime))
	_, _ = io.Copy(io.Discard, c.nc)
}

func (c *conn) close() {
	c.state.Store(stateClosed)
	_ = c.nc.Close()
}

func (c *conn) setReadDeadline(t time.Time) {
	if t.IsZero() && !c.deadline {
		return
	}
	c.deadline = !t.IsZero()
	_ = c.nc.SetReadDeadline(t)
}

// errHeaderTooLarge is a request whose line and headers exceed
// MaxHeaderBytes.
var errHeaderTooLarge = errors.New("request headers too large")

// badRequest is a request the server answers with a 4xx or 5xx and
// closes after.
type badRequest struct {
	status int
	reason string
}

func (e *badRequest) Error() string { return e.reason }

// readRequest reads a request's line and headers, within
// ReadHeaderTimeout and MaxHeaderBytes, and checks what net/http's
// server checks beyond http.ReadRequest.
func (c *conn) readRequest() (*http.Request, error) {
	if d := c.srv.ReadHeaderTimeout; d > 0 {
		c.setReadDeadline(time.Now().Add(d))
	}
	// The slack is net/http's: the bufio buffer may read past the end of
	// the headers.
	c.lr.remain = c.srv.maxHeaderBytes() + readBufferSize
	if c.lastMethod == http.MethodPost {
		// RFC 7230, section 3.5: old clients end a POST body with a CRLF
		// that its length does not count; net/http skips it too.
		peek, _ := c.br.Peek(4)
		_, _ = c.br.Discard(leadingCRLF(peek))
	}
	req, err := http.ReadRequest(c.br)
	hit := c.lr.remain <= 0
	c.lr.remain = math.MaxInt64
	c.setReadDeadline(time.Time{})
	if err != nil {
		if hit {
			return nil, errHeaderTooLarge
		}
		return nil, err
	}
	if req.ProtoMajor != 1 {
		return nil, &badRequest{http.StatusHTTPVersionNotSupported, "unsupported protocol version"}
	}
	// http.ReadRequest moved the Host header to req.Host (or took the
	// host of an absolute request target).
	if req.Host == "" && req.ProtoAtLeast(1, 1) && req.Method != http.MethodConnect {
		return nil, &badRequest{http.StatusBadRequest, "missing required Host header"}
	}
	if req.Host != "" && !httpguts.ValidHostHeader(req.Host) {
		return nil, &badRequest{http.StatusBadRequest, "malformed Host header"}
	}
	for k, vv := range req.Header {
		if !httpguts.ValidHeaderFieldName(k) {
			return nil, &badRequest{http.StatusBadRequest, "invalid header name"}
		}
		for _, v := range vv {
			if !httpguts.ValidHeaderFieldValue(v) {
				return nil, &badRequest{http.StatusBadRequest, "invalid header value"}
			}
		}
	}
	req.RemoteAddr = c.remoteAddr
	c.lastMethod = req.Method
	return req, nil
}

func leadingCRLF(b []byte) int {
	n := 0
	for n < len(b) && (b[n] == '\r' || b[n] == '\n') {
		n++
	}
	return n
}

// refuse answers a request that could not be read, as net/http does: a
// client that went away or stalled gets nothing; a request too large, of
// an unknown transfer coding or malformed gets its status.
func (c *conn) refuse(err error) {
	var ne net.Error
	var br *badRequest
	switch {
	case errors.Is(err, errHeaderTooLarge):
		c.writeStatus(http.StatusRequestHeaderFieldsTooLarge, "")
		c.linger = true
	case err == io.EOF || errors.As(err, &ne):
		// nothing to answer
	case strings.HasPrefix(err.Error(), "unsupported transfer encoding"):
		// http.ReadRequest's error for a coding it does not read; its
		// type is not exported.
		c.writeStatus(http.StatusNotImplemented, "Unsupported transfer encoding")
	case errors.As(err, &br):
		c.writeStatus(br.status, br.reason)
	default:
		c.writeStatus(http.StatusBadRequest, "")
	}
}

// writeStatus writes a plain response that closes the connection.
func (c *conn) writeStatus(status int, reason string) {
	text := fmt.Sprintf("%d %s", status, http.StatusText(status))
	if reason != "" {
		text += ": " + reason
	}
	fmt.Fprintf(c.bw, "HTTP/1.1 %s\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n%s", text, text)
	_ = c.bw.Flush()
}

// handle serves one request; it reports whether the connection stays
// open for the next.
func (c *conn) handle(req *http.Request) (keep bool) {
	ctx := &requestCtx{parent: c.ctx}
	defer ctx.end()
	// Into the request http.ReadRequest made, which its body fills the
	// trailers of.
	*req = *req.WithContext(ctx)
	w := &c.resp
	w.reset(c, req)
	if !w.expect() {
		return false
	}
	defer func() {
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler {
				c.srv.logError("panic serving "+c.remoteAddr, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			}
			keep = false
		}
	}()
	h := c.srv.Handler
	if isOptionsStar(req) {
		h = http.HandlerFunc(optionsStar)
	}
	h.ServeHTTP(w, req)
	return w.finish()
}

// optionsStar answers OPTIONS *, as net/http's server does.
func optionsStar(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Length", "0")
	if r.ContentLength != 0 {
		_, _ = io.Copy(io.Discard, http.MaxBytesReader(w, r.Body, 4<<10))
	}
}

// limitedReader reads from r until remain bytes were read: the bound of
// a request's headers, lifted once they are read.
type limitedReader struct {
	r      io.Reader
	remain int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.remain <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > l.remain {
		p = p[:l.remain]
	}
	n, err := l.r.Read(p)
	l.remain -= int64(n)
	return n, err
}
