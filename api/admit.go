package api

import (
	"bytes"
	"context"
	"io"
	"net/http"

	"github.com/ontoindex/ontoindex/indexer/backend"
)

// Admission: the requests of the ontology API that run at once are bounded
// by server.maxConcurrentRequests; the others wait for a slot (the
// runtime wakes a channel's waiting senders first in, first out), each for
// at most its request deadline, or until its client leaves (net/http
// cancels the request's context when the connection closes, HTTP/2 when
// the stream is reset; a running query sees it at its next check and
// stops). Without a bound, 200 clients on two cores are 200 goroutines
// the runtime time-slices with the few of the builds, which then get a
// 200th of the machine: a commit waited seconds to be served. With the
// bound, a build competes with a few requests, and the requests are served
// in turn instead of all slowly at once. The ops endpoints (status,
// health, metrics) are not bounded, so that probes answer under load.
//
// A slot is held only while a request computes: its body is read before
// it takes one (bounded by server.maxBodyBytes, and by readTimeout on the
// connection), and its response is rendered into memory and the slot given
// back when the response starts (statusWriter), before a byte goes to the
// client. So slow bodies and unread responses hold a connection and a
// goroutine each, which the server's read and write timeouts bound, and
// never a slot others need. Nor does a request while it waits for a search
// backend's answer (package backend): a cluster's requests are mostly
// waits, and holding slots through them would keep the cluster to
// maxConcurrentRequests requests at once, a few per processor of this
// server, whatever the cluster could take.

// admit runs next once a slot is free.
func (s *Server) admit(next http.Handler) http.Handler {
	if s.slots == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = readAhead(r.Body)
		}
		if err := s.takeSlot(r.Context()); err != nil { // the deadline, or the client left
			s.writeError(w, r, err)
			return
		}
		info := requestInfoFrom(r.Context()) // guard sets it
		if info == nil {
			defer func() { <-s.slots }()
			next.ServeHTTP(w, r)
			return
		}
		info.slot = s.slots
		defer info.leave() // if the response never started
		if s.pauses {
			r = r.WithContext(backend.WithPause(r.Context(), s.pause(info)))
		}
		next.ServeHTTP(w, r)
	})
}

// pause gives the request's slot back while it waits on a search backend,
// from the first of its waits to the last (they may overlap), and takes
// one again after, as rejoin does.
func (s *Server) pause(info *requestInfo) backend.Pause {
	return func() func(context.Context) error {
		info.waiting.Lock()
		if info.waits++; info.waits == 1 {
			info.leave()
		}
		info.waiting.Unlock()
		return func(ctx context.Context) error {
			info.waiting.Lock()
			defer info.waiting.Unlock()
			if info.waits--; info.waits > 0 {
				return nil
			}
			return s.rejoin(ctx, info)
		}
	}
}

// rejoin takes an admission slot again for a request that gave its own
// back (leave) while it waited for something other requests hold: a
// derived evaluation's weight (derived_budget.go). Waiting so holds no
// slot, so that gets and searches go on beside requests that wait; it
// waits like admit, at most as long as ctx lives.
func (s *Server) rejoin(ctx context.Context, info *requestInfo) error {
	if s.slots == nil || info.slot != nil {
		return nil
	}
	if err := s.takeSlot(ctx); err != nil {
		return err
	}
	info.slot = s.slots
	return nil
}

// takeSlot waits for a free slot, at most as long as ctx lives, counting
// the requests that wait.
func (s *Server) takeSlot(ctx context.Context) error {
	select {
	case s.slots <- struct{}{}:
		return nil
	default:
	}
	s.hm.queued.Inc()
	select {
	case s.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// leave gives back the request's admission slot, if it holds one.
func (info *requestInfo) leave() {
	if info.slot != nil {
		<-info.slot
		info.slot = nil
	}
}

// readAhead reads a body to its end into memory, and returns a body that
// gives the handler the same bytes and the same error (a body over
// server.maxBodyBytes, a client that stopped sending), at its end.
func readAhead(body io.ReadCloser) io.ReadCloser {
	b, err := io.ReadAll(body)
	return &readBody{Reader: bytes.NewReader(b), err: err, body: body}
}

type readBody struct {
	*bytes.Reader
	err  error // nil: io.EOF at the end
	body io.ReadCloser
}

func (b *readBody) Read(p []byte) (int, error) {
	n, err := b.Reader.Read(p)
	if err == io.EOF && b.err != nil {
		err = b.err
	}
	return n, err
}

func (b *readBody) Close() error { return b.body.Close() }
