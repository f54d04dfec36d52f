package api

import (
	"net/http"
)

// Admission: the requests of the ontology API that run at once are bounded
// by server.maxConcurrentRequests; the others wait for a slot (the
// runtime wakes a channel's waiting senders first in, first out), each for
// at most its request deadline. Without a bound, 200 clients on two cores
// are 200 goroutines the runtime time-slices with the few of the builds,
// which then get a 200th of the machine: a commit waited seconds to be
// served. With the bound, a build competes with a few requests, and the
// requests are served in turn instead of all slowly at once. The ops
// endpoints (status, health, metrics) are not bounded, so that probes
// answer under load.

// admit runs next once a slot is free.
func (s *Server) admit(next http.Handler) http.Handler {
	if s.slots == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case s.slots <- struct{}{}:
		default:
			s.hm.queued.Inc()
			select {
			case s.slots <- struct{}{}:
			case <-r.Context().Done(): // the deadline, or the client left
				s.writeError(w, r, r.Context().Err())
				return
			}
		}
		defer func() { <-s.slots }()
		next.ServeHTTP(w, r)
	})
}
