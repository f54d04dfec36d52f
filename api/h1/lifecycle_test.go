package h1_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/api/h1"
)

// waitBound bounds every wait for something the server must do; it is
// generous, and never the thing asserted.
const waitBound = 10 * time.Second

// lifecycle is what net/http's Server and h1's have in common.
type lifecycle interface {
	Serve(net.Listener) error
	Shutdown(context.Context) error
	Close() error
}

type serverOptions struct {
	idleTimeout, readHeaderTimeout time.Duration
	errorLog                       io.Writer // nil: discard
}

// impls are the servers each lifecycle test runs against: net/http, the
// reference, then h1.
var impls = []struct {
	name string
	new  func(http.Handler, serverOptions) lifecycle
}{
	{"net-http", func(h http.Handler, o serverOptions) lifecycle {
		w := o.errorLog
		if w == nil {
			w = io.Discard
		}
		return &http.Server{Handler: h, IdleTimeout: o.idleTimeout, ReadHeaderTimeout: o.readHeaderTimeout, ErrorLog: log.New(w, "", 0)}
	}},
	{"h1", func(h http.Handler, o serverOptions) lifecycle {
		s := &h1.Server{Handler: h, IdleTimeout: o.idleTimeout, ReadHeaderTimeout: o.readHeaderTimeout}
		if o.errorLog != nil {
			s.ErrorLog = slog.New(slog.NewTextHandler(o.errorLog, nil))
		}
		return s
	}},
}

// forEachImpl runs test once per server implementation.
func forEachImpl(t *testing.T, test func(t *testing.T, newServer func(http.Handler, serverOptions) lifecycle)) {
	t.Helper()
	for _, impl := range impls {
		t.Run(impl.name, func(t *testing.T) {
			t.Parallel()
			test(t, impl.new)
		})
	}
}

// running is a server serving on a loopback listener.
type running struct {
	srv    lifecycle
	addr   string
	served chan error // Serve's result
}

func start(t *testing.T, srv lifecycle) *running {
	t.Helper()
	ln := listen(t)
	r := &running{srv: srv, addr: ln.Addr().String(), served: make(chan error, 1)}
	go func() { r.served <- srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })
	return r
}

// waitServe waits for Serve to return http.ErrServerClosed.
func (r *running) waitServe(t *testing.T) {
	t.Helper()
	select {
	case err := <-r.served:
		if !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve returned %v, want http.ErrServerClosed", err)
		}
	case <-time.After(waitBound):
		t.Fatal("Serve did not return")
	}
}

// refusesConnections reports whether nothing listens on addr any more.
func refusesConnections(addr string) bool {
	c, err := net.Dial("tcp", addr)
	if err == nil {
		c.Close()
	}
	return err != nil
}

// getOn sends a GET on c and reads its response whole.
func getOn(t *testing.T, c *client, path string) (*http.Response, string) {
	t.Helper()
	io.WriteString(c.nc, "GET "+path+" HTTP/1.1\r\nHost: example.com\r\n\r\n")
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: body: %v", path, err)
	}
	return resp, string(body)
}

// closedAfter waits for the server to close c and returns what it sent
// before.
func closedAfter(t *testing.T, c *client) string {
	t.Helper()
	c.nc.SetReadDeadline(time.Now().Add(waitBound))
	rest, err := io.ReadAll(c.br)
	if kind := errKind(err); kind != "" && kind != "connection closed" {
		t.Fatalf("connection not closed: %v", err)
	}
	return string(rest)
}

// assertClosed asserts that the server closes c without sending more.
func assertClosed(t *testing.T, c *client) {
	t.Helper()
	if rest := closedAfter(t, c); rest != "" {
		t.Errorf("the server sent %q before closing", rest)
	}
}

func okHandler(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }

func TestServer_ServeClosed(t *testing.T) {
	stops := map[string]func(lifecycle) error{
		"Shutdown": func(s lifecycle) error { return s.Shutdown(context.Background()) },
		"Close":    lifecycle.Close,
	}
	for name, stop := range stops {
		t.Run(name, func(t *testing.T) {
			forEachImpl(t, func(t *testing.T, newServer func(http.Handler, serverOptions) lifecycle) {
				r := start(t, newServer(http.HandlerFunc(okHandler), serverOptions{}))
				if _, body := getOn(t, dial(t, r.addr), "/"); body != "ok" {
					t.Fatalf("body %q", body)
				}
				if err := stop(r.srv); err != nil {
					t.Errorf("%s: %v", name, err)
				}
				r.waitServe(t)
				if !refusesConnections(r.addr) {
					t.Error("a connection was accepted after " + name)
				}
				ln := listen(t)
				if err := r.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
					t.Errorf("Serve after %s returned %v, want http.ErrServerClosed", name, err)
				}
				if !refusesConnections(ln.Addr().String()) {
					t.Errorf("Serve after %s left its listener open", name)
				}
			})
		})
	}
}

// blockingHandler answers once release is closed; entered receives each
// request's context when its handler starts.
type blockingHandler struct {
	entered chan context.Context
	release chan struct{}
	finish  func() // closes release; the test's cleanup calls it too
}

func newBlockingHandler(t *testing.T) *blockingHandler {
	h := &blockingHandler{entered: make(chan context.Context, 1), release: make(chan struct{})}
	h.finish = sync.OnceFunc(func() { close(h.release) })
	t.Cleanup(h.finish)
	return h
}

func (h *blockingHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.entered <- r.Context()
	select {
	case <-h.release:
		w.Header().Set("Content-Length", "8")
		io.WriteString(w, "finished")
	case <-r.Context().Done():
	}
}

// awaitEntered sends a GET on a new connection and waits for its handler.
func (h *blockingHandler) awaitEntered(t *testing.T, addr string) (*client, context.Context) {
	t.Helper()
	c := dial(t, addr)
	io.WriteString(c.nc, "GET /slow HTTP/1.1\r\nHost: example.com\r\n\r\n")
	select {
	case ctx := <-h.entered:
		return c, ctx
	case <-time.After(waitBound):
		t.Fatal("the handler was not called")
		return nil, nil
	}
}

func TestServer_ShutdownWaits(t *testing.T) {
	forEachImpl(t, func(t *testing.T, newServer func(http.Handler, serverOptions) lifecycle) {
		h := newBlockingHandler(t)
		r := start(t, newServer(h, serverOptions{}))
		c, _ := h.awaitEntered(t, r.addr)

		shut := make(chan error, 1)
		go func() { shut <- r.srv.Shutdown(context.Background()) }()
		// Shutdown has begun once the listener is closed.
		for deadline := time.Now().Add(waitBound); !refusesConnections(r.addr); {
			if time.Now().After(deadline) {
				t.Fatal("the listener is still open after Shutdown began")
			}
			time.Sleep(time.Millisecond)
		}
		select {
		case err := <-shut:
			t.Fatalf("Shutdown returned %v while a request was in flight", err)
		default:
		}

		h.finish()
		resp, err := http.ReadResponse(c.br, nil)
		if err != nil {
			t.Fatalf("the in-flight request got no response: %v", err)
		}
		body, err := io.ReadAll(resp.Body)
		if err != nil || string(body) != "finished" {
			t.Errorf("body %q, %v; want \"finished\"", body, err)
		}
		if !resp.Close {
			t.Error("the response does not say Connection: close")
		}
		assertClosed(t, c)
		select {
		case err := <-shut:
			if err != nil {
				t.Errorf("Shutdown: %v", err)
			}
		case <-time.After(waitBound):
			t.Fatal("Shutdown did not return after the request finished")
		}
		r.waitServe(t)
	})
}

func TestServer_ShutdownClosesIdle(t *testing.T) {
	forEachImpl(t, func(t *testing.T, newServer func(http.Handler, serverOptions) lifecycle) {
		r := start(t, newServer(http.HandlerFunc(okHandler), serverOptions{}))
		idle := dial(t, r.addr)
		if resp, _ := getOn(t, idle, "/"); resp.Close {
			t.Fatal("the connection is not kept alive")
		}
		ctx, cancel := context.WithTimeout(t.Context(), waitBound)
		defer cancel()
		if err := r.srv.Shutdown(ctx); err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
		assertClosed(t, idle)
		r.waitServe(t)
	})
}

func TestServer_ShutdownContextEnds(t *testing.T) {
	forEachImpl(t, func(t *testing.T, newServer func(http.Handler, serverOptions) lifecycle) {
		h := newBlockingHandler(t)
		r := start(t, newServer(h, serverOptions{}))
		c, reqCtx := h.awaitEntered(t, r.addr)

		ctx, cancel := context.WithDeadline(t.Context(), time.Now().Add(-time.Second))
		defer cancel()
		if err := r.srv.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Shutdown with an expired context returned %v, want %v", err, context.DeadlineExceeded)
		}
		r.waitServe(t)
		if err := r.srv.Close(); err != nil {
			t.Errorf("Close after Shutdown: %v", err)
		}
		assertClosed(t, c) // no response: the handler is still blocked
		select {
		case <-reqCtx.Done():
		case <-time.After(waitBound):
			t.Error("the request's context did not end when the server closed")
		}
	})
}

func TestServer_IdleTimeout(t *testing.T) {
	forEachImpl(t, func(t *testing.T, newServer func(http.Handler, serverOptions) lifecycle) {
		r := start(t, newServer(http.HandlerFunc(okHandler), serverOptions{idleTimeout: 100 * time.Millisecond}))
		c := dial(t, r.addr)
		getOn(t, c, "/")
		getOn(t, c, "/") // the timeout restarts after each request
		assertClosed(t, c)
	})
}

func TestServer_ReadHeaderTimeout(t *testing.T) {
	cases := []struct{ name, before string }{
		{"first request", ""},
		{"after a kept-alive request", "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			forEachImpl(t, func(t *testing.T, newServer func(http.Handler, serverOptions) lifecycle) {
				r := start(t, newServer(http.HandlerFunc(okHandler), serverOptions{readHeaderTimeout: 100 * time.Millisecond}))
				c := dial(t, r.addr)
				if tc.before != "" {
					getOn(t, c, "/")
				}
				io.WriteString(c.nc, "GET /sta") // and stall
				// net/http answers what it read, a malformed request
				// line, with a 400.
				if rest := closedAfter(t, c); rest != "" && !strings.HasPrefix(rest, "HTTP/1.1 400 ") {
					t.Errorf("the server sent %q before closing", rest)
				}
			})
		})
	}
}

func TestServer_requestContext(t *testing.T) {
	forEachImpl(t, func(t *testing.T, newServer func(http.Handler, serverOptions) lifecycle) {
		ctxs := make(chan [2]context.Context, 1) // the request's, one derived from it
		r := start(t, newServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if err := r.Context().Err(); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
			}
			derived, cancel := context.WithCancel(r.Context())
			t.Cleanup(cancel)
			ctxs <- [2]context.Context{r.Context(), derived}
		}), serverOptions{}))
		c := dial(t, r.addr)
		if resp, body := getOn(t, c, "/"); resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d: %s", resp.StatusCode, body)
		}
		got := <-ctxs
		for i, name := range []string{"request's", "derived"} {
			select {
			case <-got[i].Done():
			case <-time.After(waitBound):
				t.Fatalf("the %s context did not end after the handler returned", name)
			}
			if context.Cause(got[i]) == nil {
				t.Errorf("the %s context ended, but context.Cause is nil (Err: %v)", name, got[i].Err())
			}
		}
		// The next request on the connection gets a live context again.
		if resp, body := getOn(t, c, "/"); resp.StatusCode != http.StatusOK {
			t.Errorf("second request: status %d: %s", resp.StatusCode, body)
		}
		<-ctxs
	})
}

// syncBuffer is a log destination safe for the server's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestServer_handlerPanic(t *testing.T) {
	cases := []struct {
		name   string
		value  any
		logged bool
	}{
		{"value", "a-distinctive-panic-value", true},
		{"ErrAbortHandler", http.ErrAbortHandler, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			forEachImpl(t, func(t *testing.T, newServer func(http.Handler, serverOptions) lifecycle) {
				var logBuf syncBuffer
				r := start(t, newServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.URL.Path == "/panic" {
						io.WriteString(w, "never sent")
						panic(tc.value)
					}
					okHandler(w, r)
				}), serverOptions{errorLog: &logBuf}))
				c := dial(t, r.addr)
				io.WriteString(c.nc, "GET /panic HTTP/1.1\r\nHost: example.com\r\n\r\n")
				assertClosed(t, c)
				logged := logBuf.String()
				if tc.logged && !strings.Contains(logged, "a-distinctive-panic-value") {
					t.Errorf("the panic is not in the error log: %q", logged)
				}
				if !tc.logged && logged != "" {
					t.Errorf("an aborted handler was logged: %q", logged)
				}
				// The server goes on serving other connections.
				if _, body := getOn(t, dial(t, r.addr), "/"); body != "ok" {
					t.Errorf("after the panic: body %q", body)
				}
			})
		})
	}
}
