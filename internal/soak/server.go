package soak

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

// server is one `indexer serve` child process. Its stderr goes to a log
// file of the run (serve-<n>.log) and its last lines are kept for errors.
type server struct {
	cmd       *exec.Cmd
	base      string        // http://127.0.0.1:port, once it listens
	listening chan string   // the base URL, once
	exited    chan struct{} // closed once the process has exited
	waitErr   error         // set before exited closes
	tail      *lineTail
	log       *os.File
	logPath   string
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
	cmd.SysProcAttr = childAttr()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		lf.Close()
		return nil, err
	}
	cmd.Stdout = lf
	if err := cmd.Start(); err != nil {
		lf.Close()
		return nil, fmt.Errorf("start %s serve: %w", bin, err)
	}
	s := &server{cmd: cmd, exited: make(chan struct{}), listening: make(chan string, 1), tail: &lineTail{max: 40}, log: lf, logPath: logPath}
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			s.tail.add(line)
			fmt.Fprintln(lf, line)
			if m := listeningLine.FindStringSubmatch(line); m != nil {
				select {
				case s.listening <- m[1]:
				default:
				}
			}
		}
		_, _ = io.Copy(lf, stderr)
		s.waitErr = cmd.Wait() // only once the pipe is read to its end
		lf.Close()
		close(s.exited)
	}()
	return s, nil
}

// listen waits until the server listens and sets its base URL.
func (s *server) listen(ctx context.Context) error {
	select {
	case s.base = <-s.listening:
		return nil
	case <-s.exited:
		return fmt.Errorf("indexer serve exited (%v) before it listened:\n%s", s.waitErr, s.tail)
	case <-ctx.Done():
		s.kill()
		return ctx.Err()
	case <-time.After(2 * time.Minute):
		s.kill()
		return fmt.Errorf("indexer serve did not listen within 2 minutes:\n%s", s.tail)
	}
}

// waitReady polls /readyz until every object type has a generation to
// serve.
func (s *server) waitReady(ctx context.Context, hc *http.Client, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/readyz", nil)
		if err != nil {
			return err
		}
		if resp, err := hc.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-s.exited:
			return fmt.Errorf("indexer serve exited (%v) before it was ready:\n%s", s.waitErr, s.tail)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("indexer serve not ready after %s:\n%s", timeout, s.tail)
		}
	}
}

// kill sends SIGKILL and waits for the exit.
func (s *server) kill() {
	_ = s.cmd.Process.Kill()
	<-s.exited
}

// terminate sends SIGTERM: the server starts its graceful stop.
func (s *server) terminate() error {
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return fmt.Errorf("signal indexer serve: %w", err)
	}
	return nil
}

// stop shuts the server down gracefully (SIGTERM) and reports an exit
// other than 0; it kills a server that takes longer than its own
// shutdown budget.
func (s *server) stop() error {
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		s.kill()
		return fmt.Errorf("signal indexer serve: %w", err)
	}
	select {
	case <-s.exited:
	case <-time.After(45 * time.Second):
		s.kill()
		return fmt.Errorf("indexer serve did not stop within 45 s of SIGTERM:\n%s", s.tail)
	}
	if s.waitErr != nil {
		return fmt.Errorf("indexer serve stopped with %v:\n%s", s.waitErr, s.tail)
	}
	return nil
}

// exitCode waits until the server exits by itself (it is killed after
// timeout) and returns its exit status.
func (s *server) exitCode(ctx context.Context, timeout time.Duration) (int, error) {
	select {
	case <-s.exited:
		return s.cmd.ProcessState.ExitCode(), nil
	case <-ctx.Done():
		s.kill()
		return -1, ctx.Err()
	case <-time.After(timeout):
		s.kill()
		return -1, fmt.Errorf("indexer serve did not exit within %s:\n%s", timeout, s.tail)
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
	case <-s.exited:
		return false
	default:
		return true
	}
}

// lineTail keeps the last lines a process printed, for error messages.
type lineTail struct {
	mu    sync.Mutex
	max   int
	lines []string
}

func (t *lineTail) add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, line)
	if len(t.lines) > t.max {
		t.lines = t.lines[len(t.lines)-t.max:]
	}
}

func (t *lineTail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}
