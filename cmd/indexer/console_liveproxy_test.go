package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// subscriptionsPath is the prefix of the live updates endpoint.
const subscriptionsPath = "/api/v2/ontologySubscriptions/"

// liveProxy is a reverse proxy (net/http/httputil, which passes websocket
// upgrades through) in front of `indexer serve`, for the console tests of
// what a browser meets on a network: a server without the live endpoint
// (an older one: the proxy answers 404 there) and connections that drop.
type liveProxy struct {
	base     string       // the proxy's URL
	missing  atomic.Bool  // answer 404 on the live endpoint
	attempts atomic.Int64 // requests to the live endpoint

	mu        sync.Mutex
	protocols []string              // the Sec-WebSocket-Protocol of each request to it
	upgraded  map[net.Conn]struct{} // browser connections handed to a websocket
}

func newLiveProxy(t *testing.T, target string) *liveProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &liveProxy{upgraded: map[net.Conn]struct{}{}}
	// The Director of NewSingleHostReverseProxy keeps the Host header, so
	// the browser's Origin matches the Host the server sees, as it does
	// without the proxy.
	rp := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, subscriptionsPath) {
			p.attempts.Add(1)
			p.mu.Lock()
			p.protocols = append(p.protocols, r.Header.Get("Sec-WebSocket-Protocol"))
			p.mu.Unlock()
			if p.missing.Load() {
				http.NotFound(w, r)
				return
			}
		}
		rp.ServeHTTP(w, r)
	}))
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		if s == http.StateHijacked { // the proxy took it over for a websocket
			p.mu.Lock()
			p.upgraded[c] = struct{}{}
			p.mu.Unlock()
		}
	}
	srv.Start()
	t.Cleanup(func() {
		p.drop(t) // the upgraded connections are the handlers' until they close
		srv.Close()
	})
	p.base = srv.URL
	return p
}

// drop closes every websocket connection of the browser, as a network
// that fails does.
func (p *liveProxy) drop(t *testing.T) int {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.upgraded)
	for c := range p.upgraded {
		_ = c.Close()
		delete(p.upgraded, c)
	}
	return n
}

// offered returns the sub-protocols the browser offered, one per request.
func (p *liveProxy) offered() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string{}, p.protocols...)
}
