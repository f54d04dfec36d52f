package h1

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Server serves HTTP/1.1 with Handler. Its zero value, with a Handler,
// is ready to serve; its fields must not change once Serve is called.
type Server struct {
	Handler http.Handler
	// ReadHeaderTimeout bounds the reading of a request's line and
	// headers, from the arrival of its first byte (0: no bound).
	ReadHeaderTimeout time.Duration
	// IdleTimeout bounds the wait of a kept-alive connection for its next
	// request (0: no bound).
	IdleTimeout time.Duration
	// MaxHeaderBytes bounds a request's line and headers (0:
	// http.DefaultMaxHeaderBytes); a request over it is answered 431.
	MaxHeaderBytes int
	// ErrorLog receives handler panics and failed accepts (errors), and a
	// handler's misuse of its ResponseWriter (warnings); nil: none.
	ErrorLog *slog.Logger

	mu      sync.Mutex
	started bool
	closing atomic.Bool // Shutdown or Close was called; set under mu
	lns     map[net.Listener]struct{}
	conns   map[*conn]struct{}
	drained chan struct{} // closed when closing and no connection is left
	base    context.Context
	cancel  context.CancelFunc // of base: Close ends every request's context
	date    dateCache
}

// init sets up the server's state; s.mu is held.
func (s *Server) init() {
	if s.started {
		return
	}
	s.started = true
	s.lns = map[net.Listener]struct{}{}
	s.conns = map[*conn]struct{}{}
	s.drained = make(chan struct{})
	s.base, s.cancel = context.WithCancel(context.Background())
}

// Serve accepts connections on ln and serves each in a goroutine of its
// own until Shutdown or Close, then returns http.ErrServerClosed. It
// closes ln. An accept that fails with an error other than a closed
// listener is retried after a pause that grows to a second, as net/http
// does (a process out of file descriptors recovers when some close).
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	s.init()
	if s.closing.Load() {
		s.mu.Unlock()
		_ = ln.Close()
		return http.ErrServerClosed
	}
	s.lns[ln] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.lns, ln)
		s.mu.Unlock()
		_ = ln.Close()
	}()
	var pause time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if s.isClosing() {
				return http.ErrServerClosed
			}
			if errors.Is(err, net.ErrClosed) {
				return err
			}
			pause = min(max(2*pause, 5*time.Millisecond), time.Second)
			s.logError("accept failed; retrying", "err", err, "retryIn", pause)
			time.Sleep(pause)
			continue
		}
		pause = 0
		c := newConn(s, nc)
		if !s.track(c) {
			_ = nc.Close()
			return http.ErrServerClosed
		}
		go c.serve()
	}
}

// track adds a connection, unless the server is closing.
func (s *Server) track(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing.Load() {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

// untrack removes a connection that ended.
func (s *Server) untrack(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.conns, c)
	if s.closing.Load() && len(s.conns) == 0 {
		s.closeDrained()
	}
}

// closeDrained closes s.drained once; s.mu is held.
func (s *Server) closeDrained() {
	select {
	case <-s.drained:
	default:
		close(s.drained)
	}
}

// isClosing is read by every response (it then says Connection: close).
func (s *Server) isClosing() bool { return s.closing.Load() }

// stop marks the server closing, closes its listeners and returns its
// connections.
func (s *Server) stop() []*conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	s.closing.Store(true)
	for ln := range s.lns {
		_ = ln.Close()
	}
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	if len(s.conns) == 0 {
		s.closeDrained()
	}
	return conns
}

// Shutdown stops the server gracefully: it closes the listeners and the
// idle connections, and waits until every request being served has been
// answered (each of those connections closes after its response, which
// says Connection: close). It returns ctx's error when ctx ends first;
// Close then ends what is left.
func (s *Server) Shutdown(ctx context.Context) error {
	for _, c := range s.stop() {
		c.closeIfIdle()
	}
	select {
	case <-s.drained:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops the server at once: it closes the listeners and every
// connection, and ends the contexts of the requests being served.
func (s *Server) Close() error {
	conns := s.stop()
	s.cancel()
	for _, c := range conns {
		c.close()
	}
	return nil
}

// logWarn reports a handler's misuse of its ResponseWriter.
func (s *Server) logWarn(msg string, args ...any) {
	if s.ErrorLog != nil {
		s.ErrorLog.Warn(msg, args...)
	}
}

func (s *Server) logError(msg string, args ...any) {
	if s.ErrorLog != nil {
		s.ErrorLog.Error(msg, args...)
	}
}

func (s *Server) maxHeaderBytes() int64 {
	if s.MaxHeaderBytes > 0 {
		return int64(s.MaxHeaderBytes)
	}
	return http.DefaultMaxHeaderBytes
}
