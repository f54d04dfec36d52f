package searchbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestPercentileMs(t *testing.T) {
	ms := func(xs ...int) []time.Duration {
		var out []time.Duration
		for _, x := range xs {
			out = append(out, time.Duration(x)*time.Millisecond)
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = 100 - i
	}
	tests := []struct {
		name string
		lat  []time.Duration
		p    int
		want float64
	}{
		{"none", nil, 50, 0},
		{"one", ms(7), 99, 7},
		{"median of odd", ms(3, 1, 2), 50, 2},
		{"median of even is the lower", ms(4, 1, 3, 2), 50, 2},
		{"p99 of 100", ms(hundred...), 99, 99},
		{"p50 of 100", ms(hundred...), 50, 50},
		{"p99 of 3 is the max", ms(1, 2, 3), 99, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := percentileMs(tt.lat, tt.p); got != tt.want {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestLoad_sameStreams checks that two runs draw the same parameters,
// which is what makes the two systems comparable.
func TestLoad_sameStreams(t *testing.T) {
	draws := func() []uint64 {
		var got []uint64 // one client: no other goroutine appends
		c := func(ctx context.Context, r *rand.Rand) error {
			got = append(got, r.Uint64())
			return nil
		}
		if _, err := loop(context.Background(), 1, 20*time.Millisecond, 9, 3, c); err != nil {
			t.Fatal(err)
		}
		return got
	}
	a, b := draws(), draws()
	n := min(len(a), len(b))
	if n == 0 || !slices.Equal(a[:n], b[:n]) {
		t.Fatalf("parameter streams differ: %v vs %v", a[:min(n, 5)], b[:min(n, 5)])
	}
}

func TestLoad_errors(t *testing.T) {
	c := func(ctx context.Context, r *rand.Rand) error {
		if r.IntN(2) == 0 {
			return errors.New("boom")
		}
		return nil
	}
	p, err := load(context.Background(), 2, 10*time.Millisecond, 50*time.Millisecond, 1, 1, side{call: c, cpu: func() float64 { return procCPUSeconds(os.Getpid()) }})
	if err != nil {
		t.Fatal(err)
	}
	st := p.stats()
	if st.Errors == 0 || st.FirstError != "boom" || st.Requests == 0 || st.QPS <= 0 {
		t.Fatalf("%+v", st)
	}
}

func TestLoad_canceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := func(ctx context.Context, r *rand.Rand) error { return ctx.Err() }
	if _, err := load(ctx, 2, 0, time.Second, 1, 1, side{call: c}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
}

// TestRawHTTP checks the bench's HTTP client against a real net/http
// server: kept-alive requests, bodies with a length and chunked ones.
func TestRawHTTP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path == "/chunked" {
			w.(http.Flusher).Flush() // forces chunked encoding
		}
		fmt.Fprintf(w, "%s %s %s", r.Method, r.URL.Path, body)
	}))
	defer srv.Close()
	c := newRawHTTP(strings.TrimPrefix(srv.URL, "http://"), 2)
	defer c.close()
	for i := range 5 {
		for _, path := range []string{"/plain", "/chunked"} {
			status, body, err := doString(c, http.MethodPost, path, []byte(fmt.Sprint(i)))
			if err != nil || status != 200 || body != fmt.Sprintf("POST %s %d", path, i) {
				t.Fatalf("%s: %d %q %v", path, status, body, err)
			}
		}
	}
	if status, body, err := doString(c, http.MethodGet, "/get", nil); err != nil || body != "GET /get " || status != 200 {
		t.Fatalf("get: %d %q %v", status, body, err)
	}
}

// TestRawHTTP_idle checks that a connection left idle longer than
// maxIdle is not used again: the server (idle timeout 100 ms, as
// server.idleTimeout) has closed it, and a POST sent on it would end in
// EOF. Both requests must succeed on the second connection dialed.
func TestRawHTTP_idle(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "ok")
	}))
	srv.Config.IdleTimeout = 100 * time.Millisecond
	srv.Start()
	defer srv.Close()
	c := newRawHTTP(strings.TrimPrefix(srv.URL, "http://"), 2)
	c.maxIdle = 50 * time.Millisecond
	defer c.close()
	for i := range 2 {
		if status, body, err := doString(c, http.MethodPost, "/q", []byte("{}")); err != nil || status != 200 || body != "ok" {
			t.Fatalf("request %d: %d %q %v", i, status, body, err)
		}
		time.Sleep(300 * time.Millisecond) // past the server's idle timeout
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.conns) != 1 {
		t.Errorf("%d connections kept, want 1 (the stale one dropped)", len(c.conns))
	}
}

// doString is one request of c, its body copied out of the connection's
// buffer.
func doString(c *rawHTTP, method, path string, body []byte) (status int, resp string, err error) {
	err = c.do(context.Background(), method, path, body, func(st int, b []byte) {
		status, resp = st, string(b)
	})
	return status, resp, err
}
