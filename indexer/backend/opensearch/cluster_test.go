package opensearch

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/indexer/config"
)

// TestOptionsFrom: a backend's keys reach the cluster's options, with the
// config's defaults where a key is unset and its CA file read.
func TestOptionsFrom(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ca.pem"), []byte("PEM"), 0o600); err != nil {
		t.Fatal(err)
	}
	const base = `
catalogs: {w: {type: hadoop, warehouse: ./wh}}
objectTypes: [{apiName: Flight, table: w.ops.flights, backend: cluster}]
backends:
  cluster:
    type: opensearch
    urls: [https://127.0.0.1:9200]
`
	t.Run("defaults", func(t *testing.T) {
		o := mustOptionsFrom(t, base, dir)
		if o.Name != "cluster" || o.IndexPrefix != config.DefaultIndexPrefix || o.Shards != config.DefaultShards ||
			o.Replicas != config.DefaultReplicas || o.ConnectionsPerNode != config.DefaultConnectionsPerNode || o.CACert != nil {
			t.Errorf("options = %+v, want the defaults", o)
		}
	})
	t.Run("every key", func(t *testing.T) {
		o := mustOptionsFrom(t, base+"    indexPrefix: onto-\n    shards: 3\n    replicas: 0\n    connectionsPerNode: 9\n    caFile: ca.pem\n", dir)
		if o.IndexPrefix != "onto-" || o.Shards != 3 || o.Replicas != 0 || o.ConnectionsPerNode != 9 || string(o.CACert) != "PEM" {
			t.Errorf("options = %+v", o)
		}
	})
	t.Run("a missing CA file", func(t *testing.T) {
		cfg, err := config.Parse([]byte(base+"    caFile: nowhere.pem\n"), dir)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := OptionsFrom(cfg, "cluster"); err == nil || !strings.Contains(err.Error(), "backends.cluster.caFile") {
			t.Errorf("err = %v, want one naming backends.cluster.caFile", err)
		}
	})
}

func mustOptionsFrom(tb testing.TB, yaml, dir string) Options {
	tb.Helper()
	cfg, err := config.Parse([]byte(yaml), dir)
	if err != nil {
		tb.Fatal(err)
	}
	o, err := OptionsFrom(cfg, "cluster")
	if err != nil {
		tb.Fatal(err)
	}
	return o
}

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

// countingNode stands in for a node whose handler is h: a cluster of it
// with at most conns connections a node (0: the default), and the count of
// the connections opened to it so far.
func countingNode(t *testing.T, conns int, h http.HandlerFunc) (*Cluster, func() int) {
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
	c, err := New(Options{Name: "search-east", URLs: []string{srv.URL}, ConnectionsPerNode: conns}, slog.New(slog.DiscardHandler))
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
	c, opened := countingNode(t, 0, func(w http.ResponseWriter, r *http.Request) {
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

// TestCluster_boundsConnections: more concurrent requests than the
// connections a node may have open no more connections to it than that;
// the others wait for one and are answered once the first are.
func TestCluster_boundsConnections(t *testing.T) {
	for _, tt := range []struct {
		name          string
		conns, expect int
	}{
		{"default", 0, config.DefaultConnectionsPerNode},
		{"configured", 5, 5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			requests := tt.expect + 20
			var arrived atomic.Int64
			release := make(chan struct{})
			c, opened := countingNode(t, tt.conns, func(w http.ResponseWriter, r *http.Request) {
				arrived.Add(1)
				<-release
				emptyAnswer(w)
			})
			var wg sync.WaitGroup
			for range requests {
				wg.Go(func() { getEmpty(t, c) })
			}
			for deadline := time.Now().Add(10 * time.Second); arrived.Load() < int64(tt.expect) && time.Now().Before(deadline); {
				time.Sleep(5 * time.Millisecond)
			}
			time.Sleep(100 * time.Millisecond) // room for any request past the bound to arrive
			if o, a := opened(), arrived.Load(); o != tt.expect || a != int64(tt.expect) {
				t.Errorf("%d requests at once: %d connections opened, %d requests in the node; want %d of each", requests, o, a, tt.expect)
			}
			close(release)
			wg.Wait()
			if a := arrived.Load(); a != int64(requests) {
				t.Errorf("%d requests answered, want %d", a, requests)
			}
		})
	}
}
