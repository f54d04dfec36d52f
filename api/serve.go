package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"

	"github.com/ontoindex/ontoindex/api/serverconfig"
)

// TLS reports whether the server serves HTTPS (server.tls).
func (s *Server) TLS() bool { return s.certs != nil }

// httpServer is the standard library's server with the connection limits
// of the server section: a connection that sends nothing is closed after
// readHeaderTimeout (net/http starts a request's header deadline when it
// starts reading the request: at once for a new connection, after the
// TLS handshake, which readHeaderTimeout bounds too), an idle kept-alive
// one after idleTimeout; a body must arrive within readTimeout and a
// response be written within writeTimeout.
func (s *Server) httpServer() *http.Server {
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		ReadTimeout:       s.cfg.ReadTimeout,
		WriteTimeout:      s.cfg.WriteTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		MaxHeaderBytes:    s.cfg.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelInfo),
	}
	if s.certs != nil {
		srv.TLSConfig = s.certs.serverConfig()
	}
	return srv
}

// Serve serves on ln until ctx is done, then shuts down gracefully: it
// stops accepting, waits up to server.shutdownTimeout for running requests
// and returns. Without configured tokens it refuses a listener that is not
// on a loopback address. With server.tls it serves HTTPS, HTTP/2 to the
// clients that offer it. Serve closes ln.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	loopback := serverconfig.LoopbackAddr(ln.Addr().String())
	if s.auth.anonymous() && !loopback {
		_ = ln.Close()
		return fmt.Errorf("refusing to serve on %s: no auth.tokens are configured, and anonymous access is only allowed on a loopback address (127.0.0.1, ::1, localhost)", ln.Addr())
	}
	if !loopback && s.certs == nil {
		s.log.Warn("serving cleartext HTTP on a non-loopback address: bearer tokens travel in clear text to anyone on the network path; set server.tls.certFile and server.tls.keyFile to serve HTTPS, or put a TLS proxy in front and listen on a loopback address",
			"listen", ln.Addr().String())
	}
	srv := s.httpServer()
	// The subscriptions' hub lives as long as the server: it closes the
	// websockets, which Shutdown does not wait for, once Serve returns.
	hubCtx, stopHub := context.WithCancel(context.Background())
	waitHub := s.stream.start(hubCtx)
	// So do the snapshots of listings, which it releases when it returns.
	var listings sync.WaitGroup
	listings.Go(func() { s.listings.run(hubCtx) })
	defer func() {
		stopHub()
		waitHub()
		listings.Wait()
	}()
	errc := make(chan error, 1)
	go func() {
		if srv.TLSConfig != nil {
			errc <- srv.ServeTLS(ln, "", "")
			return
		}
		errc <- srv.Serve(ln)
	}()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	if err != nil {
		_ = srv.Close()
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// ListenAndServe listens on addr (server.listen when empty) and serves
// until ctx is done.
func (s *Server) ListenAndServe(ctx context.Context, addr string) error {
	if addr == "" {
		addr = s.cfg.Listen
	}
	if s.auth.anonymous() && !serverconfig.LoopbackAddr(addr) {
		return fmt.Errorf("refusing to listen on %s: no auth.tokens are configured, and anonymous access is only allowed on a loopback address (127.0.0.1, ::1, localhost)", addr)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	return s.Serve(ctx, ln)
}

// ReloadCertificates reads the files of server.tls again (Reload does it
// too); the new ones serve new connections. On an error, naming the file,
// the server keeps the ones it has. Without server.tls it does nothing.
func (s *Server) ReloadCertificates() error {
	if s.certs == nil {
		return nil
	}
	return s.certs.reload()
}
