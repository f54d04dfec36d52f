package pgserver

import (
	"context"
	"errors"
	"os"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
)

// mustStart starts a server for the test, or skips it when PostgreSQL is
// not installed (CI installs it: there, absence fails the test).
func mustStart(tb testing.TB, o Options) *Server {
	tb.Helper()
	s, err := Start(context.Background(), o)
	if errors.Is(err, ErrNotFound) && os.Getenv("CI") != "true" {
		tb.Skip(err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := s.Stop(); err != nil {
			tb.Error(err)
		}
	})
	return s
}

func TestStart(t *testing.T) {
	ctx := context.Background()
	s := mustStart(t, Options{Settings: map[string]string{"max_connections": "20"}})
	conn, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var version, maxConns string
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version'), current_setting('max_connections')").Scan(&version, &maxConns); err != nil {
		t.Fatal(err)
	}
	if version[:len(s.Version())] != s.Version() || maxConns != "20" {
		t.Fatalf("server_version %q (want %q), max_connections %q", version, s.Version(), maxConns)
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE other"); err != nil {
		t.Fatal(err)
	}
	other, err := pgx.Connect(ctx, s.URL("other"))
	if err != nil {
		t.Fatal(err)
	}
	other.Close(ctx)
	if s.PID() == 0 || s.Port() == 0 {
		t.Fatalf("pid %d port %d", s.PID(), s.Port())
	}
	if _, err := os.Stat(s.SocketDir()); err != nil {
		t.Fatal(err)
	}
}

func TestStop(t *testing.T) {
	s := mustStart(t, Options{})
	pid, dir := s.PID(), s.SocketDir()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); err != nil {
		t.Fatalf("second stop: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("cluster directory left behind: %v", err)
	}
	if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); !os.IsNotExist(err) {
		t.Fatalf("postmaster %d still runs", pid)
	}
}

func TestServer_Restart(t *testing.T) {
	ctx := context.Background()
	s := mustStart(t, Options{})
	conn, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	port := s.Port()
	if err := s.Shutdown(); err != nil {
		t.Fatal(err)
	}
	if c, err := pgx.Connect(ctx, s.URL("postgres")); err == nil {
		c.Close(ctx)
		t.Fatal("connected to a server that was shut down")
	}
	if err := s.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	conn, err = pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT n FROM kept").Scan(&n); err != nil || n != 7 || s.Port() != port {
		t.Fatalf("after restart: n=%d err=%v port %d (was %d)", n, err, s.Port(), port)
	}
}

func TestStart_twoServers(t *testing.T) {
	a, b := mustStart(t, Options{}), mustStart(t, Options{})
	if a.Port() == b.Port() || a.SocketDir() == b.SocketDir() {
		t.Fatalf("servers share port %d or directory %s", a.Port(), a.SocketDir())
	}
}

func TestFindBinDir(t *testing.T) {
	empty := t.TempDir()
	if _, err := FindBinDir(empty); !errors.Is(err, ErrNotFound) {
		t.Fatalf("empty dir: %v, want ErrNotFound", err)
	}
	if _, err := Start(context.Background(), Options{BinDir: empty}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("start from an empty dir: %v, want ErrNotFound", err)
	}
}
