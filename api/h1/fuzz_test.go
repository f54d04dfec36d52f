package h1_test

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// FuzzServer sends arbitrary bytes to h1 and to net/http's server (the
// same handler), then half-closes, and requires of h1: that it answers
// and closes the connection (no hang, no crash of the process), that
// what it wrote reads as HTTP/1.x responses, and that its first status is
// net/http's when both answered.
func FuzzServer(f *testing.F) {
	for _, seed := range []string{
		"GET /small HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET /small HTTP/1.1\r\nHost: a\r\n\r\nHEAD /large HTTP/1.1\r\nHost: a\r\n\r\n",
		"POST /echo/x HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc",
		"POST /echo/x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
		"POST /partial HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\nhello",
		"GET /small HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
		"OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET /\x00 HTTP/1.1\r\n\r\n",
		"G\r\n\r\n",
	} {
		f.Add([]byte(seed))
	}
	srv := startServers(f, testMux())
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := sendAll(srv.h1, in)
		if err != nil {
			t.Fatalf("h1: %v (input %q)", err, in)
		}
		statuses, err := readStatuses(got)
		if err != nil {
			t.Fatalf("h1 wrote what is not HTTP/1.x responses: %v\ninput %q\noutput %q", err, in, got)
		}
		std, err := sendAll(srv.std, in)
		if err != nil {
			return // net/http did not finish either: nothing to compare
		}
		want, err := readStatuses(std)
		if bytes.Contains(got, []byte("missing required Host header")) {
			return // an empty Host is refused like a missing one (doc.go); net/http takes it
		}
		if err == nil && len(want) > 0 && len(statuses) > 0 && want[0] != statuses[0] {
			t.Fatalf("first status %d, net/http's %d\ninput %q\nh1 %q\nnet/http %q", statuses[0], want[0], in, got, std)
		}
	})
}

// sendAll writes in, half-closes and reads what the server writes until
// it closes; a server that has not closed 5 s later is an error.
func sendAll(addr string, in []byte) ([]byte, error) {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(5 * time.Second))
	go func() {
		_, _ = nc.Write(in)
		_ = nc.(*net.TCPConn).CloseWrite()
	}()
	var out bytes.Buffer
	_, err = io.Copy(&out, nc)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return out.Bytes(), err
	}
	return out.Bytes(), nil // a reset after the answers is a way to close
}

// readStatuses parses out as a sequence of responses (bodies framed by
// their headers; a HEAD's cannot be told, so parsing stops at a
// response whose body does not parse) and returns their statuses.
func readStatuses(out []byte) ([]int, error) {
	br := bufio.NewReader(bytes.NewReader(out))
	var statuses []int
	for {
		if _, err := br.Peek(1); err == io.EOF {
			return statuses, nil
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			if len(statuses) > 0 {
				return statuses, nil // after a HEAD's or an interim response's framing
			}
			return nil, err
		}
		statuses = append(statuses, resp.StatusCode)
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			return statuses, nil
		}
	}
}
