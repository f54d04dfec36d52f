package api_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/api"
)

// These tests hold connections open the way slow or hostile clients do,
// on a real listener with short timeouts set through the config, and show
// that the server closes them and keeps answering others. They wait for
// events (a connection closed, an answer), never for a duration; the
// timeouts only make the waits short.

// mustDial opens a TCP connection to s, closed when the test ends.
func mustDial(tb testing.TB, s *served) net.Conn {
	tb.Helper()
	conn, err := net.Dial("tcp", s.addr)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = conn.Close() })
	return conn
}

// readsEnd waits for the server to close conn (EOF or reset), failing if
// the test's own safety deadline passes first.
func readsEnd(tb testing.TB, conn net.Conn) {
	tb.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(time.Minute)) // a bound for a broken server, far above the config's
	_, err := io.Copy(io.Discard, conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		tb.Fatal("the server kept the connection open")
	}
}

func TestServer_Serve_silentConnections(t *testing.T) {
	s := mustServe(t, func(c *indexerConfig) {
		c.Server.ReadHeaderTimeout = 200 * time.Millisecond
		c.Server.IdleTimeout = 200 * time.Millisecond
	})
	t.Run("a connection that never sends a byte", func(t *testing.T) {
		readsEnd(t, mustDial(t, s))
	})
	t.Run("an idle kept-alive connection", func(t *testing.T) {
		conn := mustDial(t, s)
		if _, err := fmt.Fprintf(conn, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Close {
			t.Fatalf("status %d, close %v: want a kept-alive 200", resp.StatusCode, resp.Close)
		}
		readsEnd(t, conn)
	})
}

// dribble writes b one byte a second until it is written or stop closes;
// it returns how many bytes it wrote.
func dribble(conn net.Conn, b []byte, stop <-chan struct{}) int {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for i := range b {
		if _, err := conn.Write(b[i : i+1]); err != nil {
			return i
		}
		select {
		case <-stop:
			return i + 1
		case <-tick.C:
		}
	}
	return len(b)
}

func TestServer_Serve_dribbledHeaders(t *testing.T) {
	s := mustServe(t, func(c *indexerConfig) { c.Server.ReadHeaderTimeout = 2 * time.Second })
	conn := mustDial(t, s)
	closed, wg := closedAfter(conn)
	defer wg.Wait()
	head := "GET " + ontologyPath + "/objects/Employee/10 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + appToken + "\r\n\r\n"
	sent := dribble(conn, []byte(head), closed)
	if sent == len(head) {
		t.Fatalf("the server waited for all %d bytes of headers sent one a second", sent)
	}
	<-closed
}

func TestServer_Serve_dribbledBody(t *testing.T) {
	s := mustServe(t, func(c *indexerConfig) {
		c.Server.MaxConcurrentRequests = 1
		c.Server.ReadHeaderTimeout = time.Second
		c.Server.ReadTimeout = 4 * time.Second
	})
	body := `{"pageSize": 10, "where": {"type": "eq", "field": "id", "value": 1}}`
	path := ontologyPath + "/objects/Employee/search"
	conn := mustDial(t, s)
	closed, wg := closedAfter(conn)
	defer wg.Wait()
	if _, err := fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		path, appToken, len(body), body[:1]); err != nil {
		t.Fatal(err)
	}
	// Once the request is in the handlers, another client is answered
	// while it waits for its body: it holds no slot.
	for s.metric(t, api.MetricHTTPInFlight) < 1 {
		time.Sleep(time.Millisecond)
	}
	for range 5 {
		if _, err := s.get(http.DefaultClient, "http", ontologyPath+"/objects/Employee/10"); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-closed:
		t.Fatal("the other client was answered only once the dribbling one was cut: a request waiting for its body held the slot")
	default:
	}
	sent := 1 + dribble(conn, []byte(body[1:]), closed)
	if sent == len(body) {
		t.Fatalf("the server waited for all %d bytes of a body sent one a second", sent)
	}
	<-closed
	if line := s.waitRequest(t, path); line["status"] == "200" {
		t.Fatalf("the cut request was answered: %v", line)
	}
}

func TestServer_Serve_unreadResponses(t *testing.T) {
	s := mustServe(t, func(c *indexerConfig) {
		c.Server.MaxConcurrentRequests = 1
		c.Server.RequestTimeout = 2 * time.Second
		c.Server.WriteTimeout = 20 * time.Second
	})
	// One client sends many requests on one connection (HTTP/1.1
	// pipelining) and reads none of the answers: more bytes than the
	// kernel's buffers hold, so that the server blocks writing to it.
	page := ontologyPath + "/objects/Employee?pageSize=1000"
	size := len(s.do(t, http.MethodGet, page, appToken, nil).body)
	n := (128 << 20) / size
	conn := mustDial(t, s)
	var writer sync.WaitGroup
	defer writer.Wait()
	defer conn.Close() // before the writer is waited for
	writer.Go(func() {
		req := "GET " + page + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + appToken + "\r\n\r\n"
		_, _ = io.Copy(conn, strings.NewReader(strings.Repeat(req, n)))
	})
	// Others are answered while the server is stuck writing to it: once
	// the count of its requests stops moving across many answers to
	// others, it is stuck, and it holds no slot.
	completed := func() float64 {
		return s.metric(t, api.MetricHTTPRequests, "route", "/api/v2/ontologies/{ontology}/objects/{objectType}")
	}
	still := 0
	for range 100_000 {
		before := completed()
		if _, err := s.get(http.DefaultClient, "http", ontologyPath+"/objects/Employee/10"); err != nil {
			t.Fatalf("another client was refused while one did not read: %v", err)
		}
		if completed() == before {
			still++
		} else {
			still = 0
		}
		if still == 50 {
			if s.metric(t, api.MetricHTTPInFlight) < 1 {
				t.Fatal("no request is in flight: the unread answers were all written")
			}
			return
		}
	}
	t.Fatalf("the server never blocked writing %d answers of %d bytes to a client that reads none", n, size)
}
