package api

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/api/serverconfig"
)

// TestStatusWriter_responseController checks that a handler behind
// observe reaches net/http's connection through statusWriter, as a
// websocket handler does: it clears the server's deadlines and hijacks
// the connection, on a server with read and write timeouts.
func TestStatusWriter_responseController(t *testing.T) {
	s := mustAdmitServer(t, 1)
	hijacked := make(chan error, 1)
	h := s.observe(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if err := rc.SetReadDeadline(time.Time{}); err != nil {
			hijacked <- err
			return
		}
		if err := rc.SetWriteDeadline(time.Time{}); err != nil {
			hijacked <- err
			return
		}
		conn, brw, err := rc.Hijack()
		if err != nil {
			hijacked <- err
			return
		}
		defer conn.Close()
		_, _ = brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: test\r\nConnection: Upgrade\r\n\r\nhello")
		hijacked <- brw.Flush()
	}))
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ReadTimeout, srv.Config.WriteTimeout = time.Minute, time.Minute
	srv.Start()
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET /stream HTTP/1.1\r\nHost: x\r\nUpgrade: test\r\nConnection: Upgrade\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	if err := <-hijacked; err != nil {
		t.Fatalf("through statusWriter: %v", err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if got, _ := io.ReadAll(br); string(got) != "hello" {
		t.Fatalf("after the upgrade: %q", got)
	}
}

// TestServer_httpServer checks that the server's defaults bound a silent
// connection: net/http's header deadline runs from the start of reading a
// request (at once on a new connection; TestServer_Serve_silentConnections
// shows it with a short one), so a connection that sends nothing is
// closed within readHeaderTimeout, 10 s, and an idle one within 60 s.
func TestServer_httpServer(t *testing.T) {
	var cfg serverconfig.Server
	if errs := serverconfig.Validate(&cfg, &serverconfig.Auth{}, func(string) bool { return false }); len(errs) > 0 {
		t.Fatal(errs)
	}
	s := mustAdmitServer(t, 1)
	s.cfg = cfg
	srv := s.httpServer()
	if srv.ReadHeaderTimeout != 10*time.Second || srv.IdleTimeout != 60*time.Second || srv.ReadTimeout != 60*time.Second ||
		srv.WriteTimeout <= cfg.RequestTimeout || srv.MaxHeaderBytes != 64<<10 || srv.TLSConfig != nil {
		t.Fatalf("server: header %s, idle %s, read %s, write %s, header bytes %d, TLS %v", srv.ReadHeaderTimeout, srv.IdleTimeout,
			srv.ReadTimeout, srv.WriteTimeout, srv.MaxHeaderBytes, srv.TLSConfig)
	}
}
