package pgserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/ontoindex/ontoindex/internal/subprocess"
)

// Superuser is the database superuser of the cluster (trust authentication).
const Superuser = "postgres"

// Options configure Start. The zero value is usable.
type Options struct {
	// BinDir holds initdb and postgres (default: FindBinDir("")).
	BinDir string
	// Parent is the directory the cluster's directory is created in
	// (default: os.TempDir()). When the server runs as another user
	// (RunAs), that user must be able to reach it.
	Parent string
	// RunAs is the OS user PostgreSQL runs as when this process is root
	// (default "postgres"); ignored otherwise.
	RunAs string
	// Settings are server settings, passed as -c name=value (for example
	// max_connections or shared_buffers).
	Settings map[string]string
	// StartTimeout bounds initdb and startup together (default 2m).
	StartTimeout time.Duration
	// Logger receives debug events (default: discarded).
	Logger *slog.Logger
}

// Server is a running throwaway PostgreSQL server.
type Server struct {
	dir      string
	binDir   string
	version  string
	port     int
	log      *slog.Logger
	runAs    *osUser
	settings map[string]string

	proc *subprocess.Process // the postmaster; nil when not running

	stopOnce sync.Once
	stopErr  error
}

// errPortTaken means another process bound the chosen port first.
var errPortTaken = errors.New("port taken")

// Start initializes a cluster in a new directory under o.Parent and starts
// a server on a free loopback port. The server runs until Stop, whatever
// happens to ctx afterwards; ctx bounds only the start. The error wraps
// ErrNotFound when PostgreSQL is not installed.
func Start(ctx context.Context, o Options) (_ *Server, err error) {
	binDir, err := FindBinDir(o.BinDir)
	if err != nil {
		return nil, err
	}
	timeout := o.StartTimeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	version, err := serverVersion(ctx, binDir)
	if err != nil {
		return nil, err
	}
	runAs, err := runAsUser(o.RunAs)
	if err != nil {
		return nil, err
	}
	parent := o.Parent
	if parent == "" {
		parent = os.TempDir()
	}
	dir, err := os.MkdirTemp(parent, "pgserver-")
	if err != nil {
		return nil, fmt.Errorf("cluster directory: %w", err)
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Server{dir: dir, binDir: binDir, version: version, log: log, runAs: runAs, settings: o.Settings}
	defer func() {
		if err != nil {
			_ = s.Stop()
		}
	}()
	if err := handTo(dir, runAs); err != nil {
		return nil, err
	}
	if err := s.initdb(ctx, runAs); err != nil {
		return nil, err
	}
	// The port is free when chosen but may be taken before postgres binds
	// it; a few attempts make that race harmless.
	for attempt := 1; ; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		err = s.start(ctx, runAs, port, o.Settings)
		if err == nil {
			log.Debug("pgserver: started", "version", version, "port", port, "dir", dir)
			return s, nil
		}
		if !errors.Is(err, errPortTaken) || attempt == 3 {
			return nil, err
		}
	}
}

func (s *Server) initdb(ctx context.Context, runAs *osUser) error {
	cmd := exec.CommandContext(ctx, filepath.Join(s.binDir, "initdb"), "-D", s.DataDir(), "-U", Superuser,
		"--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync")
	cmd.Env = childEnv()
	cmd.SysProcAttr = procAttr(runAs)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %w\n%s", err, out)
	}
	return nil
}

func (s *Server) start(ctx context.Context, runAs *osUser, port int, settings map[string]string) error {
	logf, err := os.Create(s.LogFile()) // one attempt per log, for the messages below
	if err != nil {
		return fmt.Errorf("server log: %w", err)
	}
	defer logf.Close() // the child holds its own descriptor
	args := []string{"-D", s.DataDir(), "-p", strconv.Itoa(port), "-k", s.dir, "-c", "listen_addresses=127.0.0.1"}
	for _, k := range slices.Sorted(maps.Keys(settings)) {
		args = append(args, "-c", k+"="+settings[k])
	}
	cmd := exec.Command(filepath.Join(s.binDir, "postgres"), args...)
	cmd.Env = childEnv()
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = procAttr(runAs)
	// A group of its own: a Ctrl-C at the terminal reaches this process,
	// which stops the server in order, and a kill reaches the backends.
	proc, err := subprocess.Start(cmd, subprocess.Options{Group: true})
	if err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	s.proc, s.port = proc, port

	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-proc.Exited():
			tail := s.logTail()
			s.proc = nil
			if strings.Contains(tail, "Address already in use") {
				return fmt.Errorf("postgres on port %d: %w", port, errPortTaken)
			}
			return fmt.Errorf("postgres exited during startup (%v):\n%s", proc.Err(), tail)
		case <-ctx.Done():
			return fmt.Errorf("postgres did not accept connections in time: %w\n%s", ctx.Err(), s.logTail())
		case <-tick.C:
		}
		if s.ping(ctx) == nil {
			return nil
		}
	}
}

func (s *Server) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		return err
	}
	return conn.Close(ctx)
}

// Stop shuts the server down and removes its directory. It may be called
// more than once; later calls return the first result.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		if s.proc != nil {
			s.shutdown()
		}
		if err := os.RemoveAll(s.dir); err != nil {
			s.stopErr = fmt.Errorf("remove cluster directory: %w", err)
		}
	})
	return s.stopErr
}

// Shutdown stops the server and keeps its cluster, for Restart: the
// database goes away under its clients. It returns once the postmaster
// exited.
func (s *Server) Shutdown() error {
	if s.proc == nil {
		return nil
	}
	s.shutdown()
	s.proc = nil
	return nil
}

// Restart starts the server again on its port with its cluster, as a
// database restart does; a running server is shut down first. It returns
// once the server accepts connections.
func (s *Server) Restart(ctx context.Context) error {
	if err := s.Shutdown(); err != nil {
		return err
	}
	return s.start(ctx, s.runAs, s.port, s.settings)
}

// shutdown asks for an immediate shutdown (SIGQUIT: no checkpoint, as
// the cluster is deleted next) and kills the server and its backends if
// that takes too long.
func (s *Server) shutdown() {
	err := s.proc.Stop(syscall.SIGQUIT, 10*time.Second)
	s.log.Debug("pgserver: stopped", "port", s.port, "error", err)
}

// URL is a connection string for database (use "postgres" for the one
// every cluster has) as the superuser, over loopback TCP.
func (s *Server) URL(database string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", Superuser, s.port, url.PathEscape(database))
}

// Port is the loopback TCP port the server listens on.
func (s *Server) Port() int { return s.port }

// SocketDir is the directory of the server's unix socket (libpq's host
// when it starts with a slash).
func (s *Server) SocketDir() string { return s.dir }

// DataDir is the cluster's data directory.
func (s *Server) DataDir() string { return filepath.Join(s.dir, "data") }

// LogFile is the file the server logs to.
func (s *Server) LogFile() string { return filepath.Join(s.dir, "postgres.log") }

// Version is the server version ("15.18").
func (s *Server) Version() string { return s.version }

// PID is the process id of the postmaster (its backends are its children).
func (s *Server) PID() int {
	if s.proc == nil {
		return 0
	}
	return s.proc.PID()
}

func (s *Server) logTail() string {
	return subprocess.FileTail(s.LogFile(), 2000)
}

// childEnv is this process's environment with the C locale, so that the
// server's messages are English whatever the caller's locale.
func childEnv() []string {
	return append(os.Environ(), "LC_ALL=C", "LANG=C")
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
