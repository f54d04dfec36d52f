package opensearchtest

import (
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"testing"
)

// Proxy forwards a loopback port to a cluster's first node while it is
// up: a cluster that a test can make unreachable (Down: connections to
// the port are refused) and bring back (Up) at the same URL, without
// stopping a node.
type Proxy struct {
	addr   string
	target *url.URL
	srv    *http.Server
}

// NewProxy starts a proxy to c, up; it stops when the test ends.
func NewProxy(tb testing.TB, c *Cluster) *Proxy {
	tb.Helper()
	u, err := url.Parse(c.URL())
	if err != nil {
		tb.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &Proxy{addr: ln.Addr().String(), target: u}
	p.serve(ln)
	tb.Cleanup(func() { _ = p.srv.Close() })
	return p
}

// URL is the proxy's URL, for a client of the cluster.
func (p *Proxy) URL() string { return "http://" + p.addr }

func (p *Proxy) serve(ln net.Listener) {
	p.srv = &http.Server{Handler: httputil.NewSingleHostReverseProxy(p.target)}
	go func() { _ = p.srv.Serve(ln) }()
}

// Down closes the port and the connections through it.
func (p *Proxy) Down(tb testing.TB) {
	tb.Helper()
	if err := p.srv.Close(); err != nil {
		tb.Fatal(err)
	}
}

// Up opens the port again.
func (p *Proxy) Up(tb testing.TB) {
	tb.Helper()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		tb.Fatal(err)
	}
	p.serve(ln)
}
