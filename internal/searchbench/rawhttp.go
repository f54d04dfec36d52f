package searchbench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"
)

// rawHTTP is the bench's HTTP/1.1 client: kept-alive connections, one
// request at a time on each, Content-Length or chunked bodies. It does the
// work of a load generator (wrk, hey) and no more, so that on a machine
// whose cores the clients share with the servers, ontoindex's figures
// measure the server rather than net/http's client, as pgx's figures
// measure PostgreSQL rather than the driver.
type rawHTTP struct {
	addr string // host:port
	// maxIdle is how long a connection may wait in idle and still be
	// used: less than the server's idle timeout (server.idleTimeout, 60 s
	// by default), which closes it. Sending on a connection the server is
	// closing ends in EOF, and a POST cannot be sent again; at ten million
	// rows the check of a query on PostgreSQL leaves ontoindex's
	// connections idle for longer than that.
	maxIdle time.Duration
	idle    chan *rawConn
	mu      sync.Mutex
	conns   []*rawConn
}

type rawConn struct {
	c    net.Conn
	r    *bufio.Reader
	wb   []byte    // the request, reused
	rb   []byte    // the response body, reused
	used time.Time // when it went idle
}

// rawMaxIdle is half the server's default idle timeout.
const rawMaxIdle = 30 * time.Second

func newRawHTTP(addr string, clients int) *rawHTTP {
	return &rawHTTP{addr: addr, maxIdle: rawMaxIdle, idle: make(chan *rawConn, clients*2)}
}

func (h *rawHTTP) conn(ctx context.Context) (*rawConn, error) {
	for {
		select {
		case c := <-h.idle:
			if time.Since(c.used) <= h.maxIdle {
				return c, nil
			}
			h.drop(c)
			continue
		default:
		}
		break
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", h.addr)
	if err != nil {
		return nil, err
	}
	rc := &rawConn{c: c, r: bufio.NewReaderSize(c, 64<<10)}
	h.mu.Lock()
	h.conns = append(h.conns, rc)
	h.mu.Unlock()
	return rc, nil
}

func (h *rawHTTP) put(c *rawConn) {
	c.used = time.Now()
	select {
	case h.idle <- c:
	default:
		h.drop(c)
	}
}

// drop closes a connection and forgets it.
func (h *rawHTTP) drop(c *rawConn) {
	_ = c.c.Close()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.conns = slices.DeleteFunc(h.conns, func(x *rawConn) bool { return x == c })
}

func (h *rawHTTP) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range h.conns {
		_ = c.c.Close()
	}
	h.conns = nil
}

// do sends one request and calls read with the status and body, which
// are valid during the call only: the connection reads its next response
// into the same buffer, so that a load generator allocates nothing per
// response. A connection that fails is dropped; the request is not
// retried.
func (h *rawHTTP) do(ctx context.Context, method, path string, body []byte, read func(status int, body []byte)) error {
	c, err := h.conn(ctx)
	if err != nil {
		return err
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = c.c.SetDeadline(dl)
	} else {
		_ = c.c.SetDeadline(time.Time{})
	}
	status, resp, err := c.roundTrip(method, h.addr, path, body)
	if err != nil {
		h.drop(c)
		return err
	}
	read(status, resp)
	h.put(c)
	return nil
}

func (c *rawConn) roundTrip(method, host, path string, body []byte) (int, []byte, error) {
	b := c.wb[:0]
	b = append(b, method...)
	b = append(b, ' ')
	b = append(b, path...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, host...)
	if body != nil {
		b = append(b, "\r\nContent-Type: application/json\r\nContent-Length: "...)
		b = strconv.AppendInt(b, int64(len(body)), 10)
	}
	b = append(b, "\r\n\r\n"...)
	b = append(b, body...)
	c.wb = b
	if _, err := c.c.Write(b); err != nil {
		return 0, nil, err
	}
	line, err := c.r.ReadSlice('\n')
	if err != nil {
		return 0, nil, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.1 ")) {
		return 0, nil, fmt.Errorf("bad status line %q", line)
	}
	status, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, nil, fmt.Errorf("bad status line %q", line)
	}
	length, chunked := -1, false
	for {
		line, err := c.r.ReadSlice('\n')
		if err != nil {
			return 0, nil, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		k, v, _ := bytes.Cut(line, []byte(":"))
		v = bytes.TrimSpace(v)
		switch {
		case bytes.EqualFold(k, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(v)); err != nil {
				return 0, nil, fmt.Errorf("bad Content-Length %q", v)
			}
		case bytes.EqualFold(k, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(v, []byte("chunked"))
		}
	}
	switch {
	case length >= 0:
		c.rb = slices.Grow(c.rb[:0], length)[:length]
		_, err := io.ReadFull(c.r, c.rb)
		return status, c.rb, err
	case chunked:
		resp, err := c.readChunked()
		return status, resp, err
	}
	return 0, nil, errors.New("response without Content-Length or chunked encoding")
}

func (c *rawConn) readChunked() ([]byte, error) {
	out := c.rb[:0]
	defer func() { c.rb = out[:0] }()
	for {
		line, err := c.r.ReadSlice('\n')
		if err != nil {
			return nil, err
		}
		size, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.SplitN(line, []byte(";"), 2)[0])), 16, 64)
		if err != nil {
			return nil, fmt.Errorf("bad chunk size %q", line)
		}
		if size == 0 {
			for { // trailers, then the empty line
				line, err := c.r.ReadSlice('\n')
				if err != nil {
					return nil, err
				}
				if len(bytes.TrimSpace(line)) == 0 {
					return out, nil
				}
			}
		}
		n := len(out)
		out = slices.Grow(out, int(size))[:n+int(size)]
		if _, err := io.ReadFull(c.r, out[n:]); err != nil {
			return nil, err
		}
		if _, err := c.r.Discard(2); err != nil { // CRLF
			return nil, err
		}
	}
}
