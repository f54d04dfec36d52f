package api

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// mustAdmitServer is a server with n slots and only what admit uses.
func mustAdmitServer(tb testing.TB, n int) *Server {
	tb.Helper()
	hm, err := newHTTPMetrics(prometheus.NewRegistry())
	if err != nil {
		tb.Fatal(err)
	}
	return &Server{slots: make(chan struct{}, n), hm: hm, log: slog.New(slog.DiscardHandler)}
}

// waitQueued waits until n requests have had to wait for a slot.
func waitQueued(tb testing.TB, s *Server, n float64) {
	tb.Helper()
	for testutil.ToFloat64(s.hm.queued) < n {
		time.Sleep(time.Millisecond)
	}
}

func TestServer_admit(t *testing.T) {
	t.Run("at most n at once, the others wait", func(t *testing.T) {
		s := mustAdmitServer(t, 2)
		var mu sync.Mutex
		running, most := 0, 0
		var order []int
		release := make(chan struct{})
		h := s.admit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			running++
			most = max(most, running)
			i, _ := strconv.Atoi(r.URL.Query().Get("i"))
			order = append(order, i)
			mu.Unlock()
			<-release
			mu.Lock()
			running--
			mu.Unlock()
		}))
		var wg sync.WaitGroup
		for i := range 6 {
			wg.Go(func() {
				req := httptest.NewRequest(http.MethodGet, "/?i="+strconv.Itoa(i), nil)
				h.ServeHTTP(httptest.NewRecorder(), req)
			})
			if i >= 2 {
				waitQueued(t, s, float64(i-1)) // request i waits
			} else {
				for {
					mu.Lock()
					n := running
					mu.Unlock()
					if n == i+1 {
						break
					}
					time.Sleep(time.Millisecond)
				}
			}
		}
		for range 6 {
			release <- struct{}{}
		}
		wg.Wait()
		if most != 2 {
			t.Fatalf("%d requests ran at once, want 2", most)
		}
		slices.Sort(order)
		if !slices.Equal(order, []int{0, 1, 2, 3, 4, 5}) {
			t.Fatalf("requests that ran: %v, want each of 0..5 once", order)
		}
	})
	t.Run("a request that waits past its deadline is a RequestTimeout", func(t *testing.T) {
		s := mustAdmitServer(t, 1)
		hold, held := make(chan struct{}), make(chan struct{})
		ran := 0
		h := s.admit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ran++
			if r.URL.Path == "/hold" {
				close(held)
				<-hold
			}
			w.WriteHeader(http.StatusNoContent)
		}))
		first := httptest.NewRecorder()
		done := make(chan struct{})
		go func() {
			defer close(done)
			h.ServeHTTP(first, httptest.NewRequest(http.MethodGet, "/hold", nil))
		}()
		<-held
		ctx, cancel := withRequestDeadline(t.Context(), 20*time.Millisecond)
		defer cancel()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/late", nil).WithContext(ctx))
		var body conjureError
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != http.StatusInternalServerError || body.ErrorName != string(wire.NameRequestTimeout) {
			t.Fatalf("status %d, body %s (%v)", rec.Code, rec.Body, err)
		}
		close(hold)
		<-done
		if first.Code != http.StatusNoContent || ran != 1 {
			t.Fatalf("the held request: status %d; handler ran %d times, want 1", first.Code, ran)
		}
		// The slot is free again.
		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/next", nil))
		if rec.Code != http.StatusNoContent {
			t.Fatalf("after the slot was freed: status %d", rec.Code)
		}
	})
	t.Run("no bound", func(t *testing.T) {
		s := &Server{} // maxConcurrentRequests -1: no slots
		var mu sync.Mutex
		in := 0
		all := make(chan struct{})
		h := s.admit(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
			mu.Lock()
			if in++; in == 3 {
				close(all)
			}
			mu.Unlock()
			<-all // returns only once all three run at the same time
		}))
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(func() { h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil)) })
		}
		wg.Wait()
	})
}
