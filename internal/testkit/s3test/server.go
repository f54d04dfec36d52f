package s3test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/internal/subprocess"
)

// Options configure Start. The zero value is usable.
type Options struct {
	// AccessKey and SecretKey are the root credentials (defaults: a fixed
	// access key and a random secret, so that tests can look for it).
	AccessKey, SecretKey string
	// Region is the region the server signs for (default us-east-1).
	Region string
	// StartTimeout bounds a start (default 1m).
	StartTimeout time.Duration
}

// Server is a running throwaway S3 server.
type Server struct {
	bin     string
	dir     string // data (the posix backend's root) and the server's log
	port    int
	region  string
	timeout time.Duration

	mu             sync.Mutex
	access, secret string
	proc           *subprocess.Process // nil when not running

	stopOnce sync.Once
	stopErr  error
}

// Start starts a server with an empty backend on a free loopback port. The
// server runs until Shutdown or Stop, whatever happens to ctx afterwards.
// The error wraps ErrNotFound when versitygw is not installed.
func Start(ctx context.Context, o Options) (_ *Server, err error) {
	bin, err := FindBinary()
	if err != nil {
		return nil, err
	}
	if o.AccessKey == "" {
		o.AccessKey = "ontoindex-test"
	}
	if o.SecretKey == "" {
		o.SecretKey = "s3test-secret-" + randomHex(12)
	}
	if o.Region == "" {
		o.Region = "us-east-1"
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = time.Minute
	}
	dir, err := os.MkdirTemp("", "s3test-")
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin, dir: dir, region: o.Region, timeout: o.StartTimeout, access: o.AccessKey, secret: o.SecretKey}
	defer func() {
		if err != nil {
			_ = s.Stop()
		}
	}()
	if err := os.Mkdir(s.root(), 0o755); err != nil {
		return nil, err
	}
	// The port is free when chosen but may be taken before the server
	// binds it; a few attempts make that race harmless.
	for attempt := 1; ; attempt++ {
		if s.port, err = freePort(); err != nil {
			return nil, err
		}
		err = s.start(ctx)
		if err == nil {
			return s, nil
		}
		if !errors.Is(err, errPortTaken) || attempt == 3 {
			return nil, err
		}
	}
}

// Must starts a server for a test and stops it when the test ends. Without
// versitygw it skips the test, except on CI (CI=true), where the tests must
// run: there it fails with how to install it.
func Must(tb testing.TB, o Options) *Server {
	tb.Helper()
	s, err := Start(context.Background(), o)
	if errors.Is(err, ErrNotFound) && os.Getenv("CI") != "true" {
		tb.Skipf("no S3 server: %v", err)
	}
	if err != nil {
		tb.Fatalf("start the S3 server: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Stop(); err != nil {
			tb.Error(err)
		}
	})
	return s
}

var errPortTaken = errors.New("port taken")

func (s *Server) root() string    { return filepath.Join(s.dir, "data") }
func (s *Server) logFile() string { return filepath.Join(s.dir, "versitygw.log") }

// start runs the server on s.port and waits until it answers.
func (s *Server) start(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	logf, err := os.OpenFile(s.logFile(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close() // the child holds its own descriptor
	s.mu.Lock()
	access, secret := s.access, s.secret
	s.mu.Unlock()
	cmd := exec.Command(s.bin, "--port", s.addr(), "--region", s.region, "--quiet", "posix", s.root())
	// The credentials go by environment, not on the command line.
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY_ID="+access, "ROOT_SECRET_ACCESS_KEY="+secret)
	cmd.Stdout, cmd.Stderr = logf, logf
	// A group of its own: a Ctrl-C at the terminal reaches the test,
	// which stops the server.
	proc, err := subprocess.Start(cmd, subprocess.Options{Group: true})
	if err != nil {
		return fmt.Errorf("start versitygw: %w", err)
	}
	s.mu.Lock()
	s.proc = proc
	s.mu.Unlock()
	client := &http.Client{Timeout: time.Second}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-proc.Exited():
			tail := s.logTail()
			if strings.Contains(tail, "address already in use") {
				return fmt.Errorf("versitygw on port %d: %w", s.port, errPortTaken)
			}
			return fmt.Errorf("versitygw exited during startup:\n%s", tail)
		case <-ctx.Done():
			s.kill()
			return fmt.Errorf("versitygw did not answer in time: %w\n%s", ctx.Err(), s.logTail())
		case <-tick.C:
		}
		// Any HTTP answer (an unsigned request is refused) means it serves.
		if resp, err := client.Get(s.Endpoint()); err == nil {
			resp.Body.Close()
			return nil
		}
	}
}

// Shutdown stops the server process and keeps its data, for Restart: the
// storage goes away under its clients. It returns once the process exited.
func (s *Server) Shutdown() error {
	s.mu.Lock()
	proc := s.proc
	s.proc = nil
	s.mu.Unlock()
	if proc != nil {
		_ = proc.Stop(syscall.SIGTERM, 10*time.Second) // how it exited does not matter
	}
	return nil
}

// kill kills the process without waiting for a graceful stop.
func (s *Server) kill() {
	s.mu.Lock()
	proc := s.proc
	s.proc = nil
	s.mu.Unlock()
	if proc != nil {
		proc.Kill()
	}
}

// Restart starts the server again on its port with its data; a running
// server is shut down first.
func (s *Server) Restart(ctx context.Context) error {
	if err := s.Shutdown(); err != nil {
		return err
	}
	return s.start(ctx)
}

// RestartWith restarts the server with other root credentials: a key
// rotation that clients holding the old key see as access denied.
func (s *Server) RestartWith(ctx context.Context, accessKey, secretKey string) error {
	if err := s.Shutdown(); err != nil {
		return err
	}
	s.mu.Lock()
	s.access, s.secret = accessKey, secretKey
	s.mu.Unlock()
	return s.start(ctx)
}

// Stop shuts the server down and removes its data. It may be called more
// than once; later calls return the first result.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		_ = s.Shutdown()
		if err := os.RemoveAll(s.dir); err != nil {
			s.stopErr = fmt.Errorf("remove the S3 server's directory: %w", err)
		}
	})
	return s.stopErr
}

// Endpoint is the server's URL, the s3.endpoint of clients.
func (s *Server) Endpoint() string { return "http://" + s.addr() }

func (s *Server) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// Port is the loopback TCP port the server listens on.
func (s *Server) Port() int { return s.port }

// Region is the region the server signs for.
func (s *Server) Region() string { return s.region }

// Credentials are the root access key and secret the server accepts now.
func (s *Server) Credentials() (accessKey, secretKey string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.access, s.secret
}

// Props are iceberg-go's S3 FileIO properties for this server (io/config.go
// of iceberg-go): with an endpoint set, requests are path-style
// (s3.force-virtual-addressing defaults to false).
func (s *Server) Props() map[string]string { return s.propsFor(s.Endpoint()) }

func (s *Server) propsFor(endpoint string) map[string]string {
	access, secret := s.Credentials()
	return map[string]string{
		"s3.endpoint":          endpoint,
		"s3.region":            s.region,
		"s3.access-key-id":     access,
		"s3.secret-access-key": secret,
	}
}

func (s *Server) logTail() string {
	return subprocess.FileTail(s.logFile(), 2000)
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
