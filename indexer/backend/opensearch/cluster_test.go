package opensearch

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestCluster_unreachable: a cluster that does not listen fails every
// request with an *UnreachableError naming it.
func TestCluster_unreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	_ = l.Close() // nothing listens there now
	c, err := New(Options{Name: "search-east", URLs: []string{url}}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	w := c.Writer(flightType())
	tests := []struct {
		name string
		call func() error
	}{
		{"create index", func() error { return w.CreateIndex(t.Context(), 1) }},
		{"write", func() error { _, err := w.Write(t.Context(), 1, 1, []Change{{Key: []byte("k")}}); return err }},
		{"publish", func() error { return w.Publish(t.Context(), 1) }},
		{"published", func() error { _, _, err := w.Published(t.Context()); return err }},
		{"refresh", func() error { return w.Refresh(t.Context(), 1) }},
		{"drop", func() error { return w.Drop(t.Context(), 1) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			var gone *UnreachableError
			if !errors.As(err, &gone) || gone.Cluster != "search-east" {
				t.Fatalf("err = %v, want an *UnreachableError of search-east", err)
			}
			if msg := err.Error(); !strings.Contains(msg, `opensearch cluster "search-east"`) || !strings.Contains(msg, url) || !strings.Contains(msg, "unreachable") {
				t.Errorf("error %q does not name the cluster, its URL and what is wrong", msg)
			}
		})
	}
}

func TestWriter_names(t *testing.T) {
	c, err := New(Options{Name: "c", URLs: []string{"http://127.0.0.1:1"}, IndexPrefix: "onto-"}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	w := c.Writer(flightType())
	if w.Alias() != "onto-flight" || w.Index(12) != "onto-flight-g12" {
		t.Errorf("alias %s, index %s", w.Alias(), w.Index(12))
	}
	for _, tt := range []struct {
		index string
		gen   uint64
		ok    bool
	}{{"onto-flight-g12", 12, true}, {"onto-flight-g", 0, false}, {"onto-flights-g1", 0, false}, {"onto-flight-gx", 0, false}} {
		if gen, ok := w.generation(tt.index); gen != tt.gen || ok != tt.ok {
			t.Errorf("generation(%s) = %d, %v; want %d, %v", tt.index, gen, ok, tt.gen, tt.ok)
		}
	}
}

// countingNode stands in for a node whose handler is h: a cluster of it,
// and the count of the connections opened to it so far.
func countingNode(t *testing.T, h http.HandlerFunc) (*Cluster, func() int) {
	t.Helper()
	var mu sync.Mutex
	opened := 0
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			mu.Lock()
			opened++
			mu.Unlock()
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	c, err := New(Options{Name: "search-east", URLs: []string{srv.URL}}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c, func() int {
		mu.Lock()
		defer mu.Unlock()
		return opened
	}
}

// getEmpty sends a GET / through the cluster's client and reads its
// answer to the end, so that the connection goes back to the client.
func getEmpty(t *testing.T, c *Cluster) {
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, "/", nil)
	resp, err := c.client.Client.Stream(req)
	if err != nil {
		t.Error(err)
		return
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// emptyAnswer is a node's answer of an empty object.
func emptyAnswer(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{}`))
}

// TestCluster_keepsConnections: requests from more goroutines than
// net/http's default of 2 idle connections a host reuse their connections
// in the next wave instead of opening new ones.
func TestCluster_keepsConnections(t *testing.T) {
	const wave = 8
	arrived := make(chan struct{}, wave)
	release := make(chan struct{})
	c, opened := countingNode(t, func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release // every request of a wave holds its connection until all came
		emptyAnswer(w)
	})
	for range 2 {
		var wg sync.WaitGroup
		for range wave {
			wg.Go(func() { getEmpty(t, c) })
		}
		for range wave {
			<-arrived
		}
		close(release)
		wg.Wait()
		release = make(chan struct{})
		time.Sleep(50 * time.Millisecond) // the transport puts a connection back after the body's end
	}
	if n := opened(); n > wave+2 {
		t.Errorf("two waves of %d requests opened %d connections, want %d (the second reuses the first's)", wave, n, wave)
	}
}

// TestCluster_boundsConnections: more concurrent requests than
// connsPerNode open no more connections to a node than that; the others
// wait for one and are answered once the first are.
func TestCluster_boundsConnections(t *testing.T) {
	const requests = connsPerNode + 20
	var arrived atomic.Int64
	release := make(chan struct{})
	c, opened := countingNode(t, func(w http.ResponseWriter, r *http.Request) {
		arrived.Add(1)
		<-release
		emptyAnswer(w)
	})
	var wg sync.WaitGroup
	for range requests {
		wg.Go(func() { getEmpty(t, c) })
	}
	for deadline := time.Now().Add(10 * time.Second); arrived.Load() < connsPerNode && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // room for any request past the bound to arrive
	if o, a := opened(), arrived.Load(); o != connsPerNode || a != connsPerNode {
		t.Errorf("%d requests at once: %d connections opened, %d requests in the node; want %d of each", requests, o, a, connsPerNode)
	}
	close(release)
	wg.Wait()
	if a := arrived.Load(); a != requests {
		t.Errorf("%d requests answered, want %d", a, requests)
	}
}
