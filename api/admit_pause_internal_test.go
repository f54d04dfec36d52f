package api

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/indexer/backend"
)

// serveAdmitted serves a request of ctx through s.admit(h) on a
// goroutine, with the request's info in its context as guard puts it; the
// channel closes when it is done.
func serveAdmitted(ctx context.Context, s *Server, h http.HandlerFunc) <-chan struct{} {
	done := make(chan struct{})
	req := httptest.NewRequestWithContext(context.WithValue(ctx, keyRequestInfo, &requestInfo{}), http.MethodGet, "/", nil)
	go func() {
		defer close(done)
		s.admit(h).ServeHTTP(httptest.NewRecorder(), req)
	}()
	return done
}

// TestServer_pause: a request gives its slot back while it waits on a
// search backend (backend.Wait), so that another runs meanwhile, and takes
// one again before it goes on; without pauses (no type has a backend) the
// other waits for it.
func TestServer_pause(t *testing.T) {
	for _, pauses := range []bool{true, false} {
		t.Run(map[bool]string{true: "a backend", false: "no backend"}[pauses], func(t *testing.T) {
			s := mustAdmitServer(t, 1)
			s.pauses = pauses
			waiting, answer := make(chan struct{}), make(chan struct{})
			first := serveAdmitted(context.Background(), s, func(w http.ResponseWriter, r *http.Request) {
				err := backend.Wait(r.Context(), func() error {
					close(waiting)
					<-answer
					return nil
				})
				if err != nil {
					t.Error(err)
				}
			})
			<-waiting
			second := serveAdmitted(context.Background(), s, func(w http.ResponseWriter, r *http.Request) {})
			select {
			case <-second:
				if !pauses {
					t.Fatal("the second request ran while the first held the one slot")
				}
			case <-time.After(200 * time.Millisecond):
				if pauses {
					t.Fatal("the second request did not run while the first waited on the backend")
				}
			}
			close(answer)
			<-first
			<-second
			if n := len(s.slots); n != 0 {
				t.Errorf("%d slots held after both, want 0", n)
			}
		})
	}
	t.Run("the wait ends with a slot", func(t *testing.T) {
		s := mustAdmitServer(t, 1)
		s.pauses = true
		waiting, answer, third := make(chan struct{}), make(chan struct{}), make(chan struct{})
		resumed := make(chan struct{})
		first := serveAdmitted(context.Background(), s, func(w http.ResponseWriter, r *http.Request) {
			_ = backend.Wait(r.Context(), func() error {
				close(waiting)
				<-answer
				return nil
			})
			close(resumed)
		})
		<-waiting
		// Another request takes the slot and holds it: the first's answer
		// arrives, but it goes on only once the slot is free.
		holding, release := make(chan struct{}), make(chan struct{})
		other := serveAdmitted(context.Background(), s, func(w http.ResponseWriter, r *http.Request) {
			close(holding)
			<-release
			close(third)
		})
		<-holding
		close(answer)
		select {
		case <-resumed:
			t.Fatal("the first went on while another request held the one slot")
		case <-time.After(200 * time.Millisecond):
		}
		close(release)
		<-other
		<-first
		select {
		case <-third:
		default:
			t.Fatal("the first went on before the other gave the slot back")
		}
	})
	t.Run("a request gone while it waits for a slot again", func(t *testing.T) {
		s := mustAdmitServer(t, 1)
		s.pauses = true
		waiting, answer := make(chan struct{}), make(chan struct{})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var err error
		first := serveAdmitted(ctx, s, func(w http.ResponseWriter, r *http.Request) {
			err = backend.Wait(r.Context(), func() error {
				close(waiting)
				<-answer
				return nil
			})
		})
		<-waiting
		holding, release := make(chan struct{}), make(chan struct{})
		other := serveAdmitted(context.Background(), s, func(w http.ResponseWriter, r *http.Request) {
			close(holding)
			<-release
		})
		<-holding
		close(answer)
		waitQueued(t, s, 1) // the first, for a slot again
		cancel()
		<-first
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Wait: %v, want the request's cancellation", err)
		}
		close(release)
		<-other
		if n := len(s.slots); n != 0 {
			t.Errorf("%d slots held after both, want 0", n)
		}
	})
}
