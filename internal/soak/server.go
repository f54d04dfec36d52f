package soak

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"time"

	"github.com/ontoindex/ontoindex/internal/subprocess"
)

// server is one `indexer serve` child process. Its stderr goes to a log
// file of the run (serve-<n>.log) and its last lines are kept for errors.
type server struct {
	proc    *subprocess.Process
	base    string // http://127.0.0.1:port, once it listens
	logPath string
}

var listeningLine = regexp.MustCompile(`listening on (http://\S+)`)

// startServer runs `bin serve --config cfgPath` on a free loopback port
// and returns at once; listen waits until it listens.
func startServer(bin string, env []string, cfgPath, logPath string) (*server, error) {
	lf, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("server log: %w", err)
	}
	cmd := exec.Command(bin, "serve", "--config", cfgPath, "--listen", "127.0.0.1:0")
	cmd.Env = env
	cmd.Dir = filepath.Dir(cfgPath)
	cmd.Stdout = lf
	proc, err := subprocess.Start(cmd, subprocess.Options{Log: lf, Match: listeningLine})
	if err != nil {
		return nil, err
	}
	return &server{proc: proc, logPath: logPath}, nil
}

// listen waits until the server listens and sets its base URL.
func (s *server) listen(ctx context.Context) error {
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	m, err := s.proc.WaitMatch(wctx)
	if err != nil {
		s.kill()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err // it names the server, the cause and its last lines
	}
	s.base = m[1]
	return nil
}

// waitReady polls /readyz until every object type has a generation to
// serve.
func (s *server) waitReady(ctx context.Context, hc *http.Client, timeout time.Duration) error {
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := s.proc.WaitHTTP(wctx, hc, s.base+"/readyz")
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// kill sends SIGKILL, the campaign's kill -9, and waits for the exit.
func (s *server) kill() { s.proc.Kill() }

// terminate sends SIGTERM: the server starts its graceful stop.
func (s *server) terminate() error { return s.proc.Signal(syscall.SIGTERM) }

// stop shuts the server down gracefully (SIGTERM) and reports an exit
// other than 0; it kills a server that takes longer than its own
// shutdown budget.
func (s *server) stop() error { return s.proc.Stop(syscall.SIGTERM, 45*time.Second) }

// exitCode waits until the server exits by itself (it is killed after
// timeout) and returns its exit status.
func (s *server) exitCode(ctx context.Context, timeout time.Duration) (int, error) {
	select {
	case <-s.proc.Exited():
		return s.proc.ExitCode(), nil
	case <-ctx.Done():
		s.kill()
		return -1, ctx.Err()
	case <-time.After(timeout):
		s.kill()
		return -1, fmt.Errorf("indexer serve did not exit within %s:\n%s", timeout, s.tail())
	}
}

// logged is what the server wrote to stderr so far: the lines are in its
// log file in the order it wrote them, so a line it wrote before it
// listened is there once listen returns.
func (s *server) logged() (string, error) {
	b, err := os.ReadFile(s.logPath)
	if err != nil {
		return "", fmt.Errorf("server log: %w", err)
	}
	return string(b), nil
}

// alive reports whether the process still runs.
func (s *server) alive() bool {
	select {
	case <-s.proc.Exited():
		return false
	default:
		return true
	}
}

// tail is the last lines the server printed on stderr.
func (s *server) tail() string { return s.proc.Tail() }
