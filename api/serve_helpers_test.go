package api_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"testing"

	"github.com/ontoindex/ontoindex/api"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// served is a Server serving on a real listener of 127.0.0.1 with
// net/http's server, as `indexer serve` runs it.
type served struct {
	*testEnv
	api      *api.Server
	addr     string // host:port
	reg      *prometheus.Registry
	requests chan map[string]string // the request log lines, as attributes
}

// mustServe builds the demo env with edit applied to its config and
// serves it on 127.0.0.1 until the test ends.
func mustServe(tb testing.TB, edit ...func(*indexerConfig)) *served {
	tb.Helper()
	return serveEnv(tb, mustEnv(tb, edit...))
}

// serveEnv serves the engine of e with a server of its own, whose request
// log lines and metrics the test reads.
func serveEnv(tb testing.TB, e *testEnv) *served {
	tb.Helper()
	requests := make(chan map[string]string, 10_000)
	reg := prometheus.NewRegistry()
	s, err := api.New(e.ix, api.Options{Logger: slog.New(requestLines{requests}), Registry: reg})
	if err != nil {
		tb.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	tb.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			tb.Errorf("Serve: %v", err)
		}
	})
	return &served{testEnv: e, api: s, addr: ln.Addr().String(), reg: reg, requests: requests}
}

// waitRequest waits for the request log line of path.
func (s *served) waitRequest(tb testing.TB, path string) map[string]string {
	tb.Helper()
	for line := range s.requests {
		if line["path"] == path {
			return line
		}
	}
	tb.Fatal("the request log ended")
	return nil
}

// metric reads a metric: the sum of its series whose labels have the
// values of labelValues (name, value, ...).
func (s *served) metric(tb testing.TB, name string, labelValues ...string) float64 {
	tb.Helper()
	mfs, err := s.reg.Gather()
	if err != nil {
		tb.Fatal(err)
	}
	var sum float64
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if hasLabels(m, labelValues) {
				sum += value(m)
			}
		}
	}
	return sum
}

func hasLabels(m *dto.Metric, labelValues []string) bool {
	for i := 0; i+1 < len(labelValues); i += 2 {
		found := false
		for _, l := range m.GetLabel() {
			found = found || l.GetName() == labelValues[i] && l.GetValue() == labelValues[i+1]
		}
		if !found {
			return false
		}
	}
	return true
}

func value(m *dto.Metric) float64 {
	switch {
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Counter != nil:
		return m.Counter.GetValue()
	}
	return 0
}

// get sends a GET with the app token over client and reads the answer.
func (s *served) get(client *http.Client, scheme, path string) (int, error) {
	req, err := http.NewRequest(http.MethodGet, scheme+"://"+s.addr+path, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+appToken)
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, fmt.Errorf("GET %s: status %d", path, resp.StatusCode)
	}
	return resp.StatusCode, nil
}

// requestLines is a slog handler that passes on the attributes of the
// request log lines.
type requestLines struct{ out chan<- map[string]string }

func (h requestLines) Enabled(context.Context, slog.Level) bool { return true }
func (h requestLines) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h requestLines) WithGroup(string) slog.Handler            { return h }

func (h requestLines) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "request" {
		return nil
	}
	m := map[string]string{}
	r.Attrs(func(a slog.Attr) bool {
		m[a.Key] = a.Value.String()
		return true
	})
	select {
	case h.out <- m:
		return nil
	default:
		return errors.New("request log full")
	}
}

// closedAfter reports, from a goroutine the caller owns, when conn's
// reads end: the server answered or closed it.
func closedAfter(conn net.Conn) (<-chan struct{}, *sync.WaitGroup) {
	closed := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(closed)
		buf := make([]byte, 4096)
		for {
			if _, err := conn.Read(buf); err != nil {
				return
			}
		}
	})
	return closed, &wg
}
