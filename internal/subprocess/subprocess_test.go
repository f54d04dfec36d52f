//go:build unix

package subprocess

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary act as the children of the tests: the
// mode is in $SUBPROCESS_TEST_CHILD.
func TestMain(m *testing.M) {
	if mode := os.Getenv("SUBPROCESS_TEST_CHILD"); mode != "" {
		os.Exit(child(mode))
	}
	os.Exit(m.Run())
}

// child runs as a child process of a test.
func child(mode string) int {
	terms := make(chan os.Signal, 1)
	signal.Notify(terms, syscall.SIGTERM)
	switch mode {
	case "serve": // lines, the listening line, then until SIGTERM
		for i := range 50 {
			fmt.Fprintf(os.Stderr, "line %d\n", i)
		}
		fmt.Fprintln(os.Stderr, "listening on http://127.0.0.1:1")
		<-terms
		fmt.Fprintln(os.Stderr, "stopping")
		return 0
	case "fail-on-term": // exits 3 on SIGTERM
		fmt.Fprintln(os.Stderr, "ready")
		<-terms
		fmt.Fprintln(os.Stderr, "failing")
		return 3
	case "deaf": // ignores SIGTERM
		fmt.Fprintln(os.Stderr, "ready")
		select {}
	case "exit": // exits before any listening line
		fmt.Fprintln(os.Stderr, "cannot start: config error")
		return 2
	case "sleep":
		select {}
	case "http": // serves 503 on /readyz twice, then 200 (NEVER=1: 503 always)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		var calls atomic.Int32
		fmt.Fprintf(os.Stderr, "listening on http://%s\n", ln.Addr())
		_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/readyz" || calls.Add(1) <= 2 || os.Getenv("NEVER") == "1" {
				w.WriteHeader(http.StatusServiceUnavailable)
			}
		}))
		return 1
	case "parent": // starts a sleeping child, with Start or (PLAIN=1) os/exec alone, prints its pid, sleeps
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "SUBPROCESS_TEST_CHILD=sleep")
		var err error
		if os.Getenv("PLAIN") == "1" {
			err = cmd.Start()
		} else {
			_, err = Start(cmd, Options{})
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Fprintf(os.Stderr, "child %d\n", cmd.Process.Pid)
		<-terms
		return 0
	}
	return 1
}

// childCmd is the test binary as a child in mode.
func childCmd(mode string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(append(os.Environ(), "SUBPROCESS_TEST_CHILD="+mode), env...)
	return cmd
}

func mustStart(tb testing.TB, cmd *exec.Cmd, o Options) *Process {
	tb.Helper()
	p, err := Start(cmd, o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(p.Kill)
	return p
}

// recordingLog is a Log that records its lines and whether it was closed.
type recordingLog struct {
	mu     sync.Mutex
	text   strings.Builder
	closed bool
}

func (l *recordingLog) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.text.Write(b)
}

func (l *recordingLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	return nil
}

func TestStart_lines(t *testing.T) {
	log := &recordingLog{}
	var online []string
	p := mustStart(t, childCmd("serve"), Options{
		TailLines: 3, Log: log, Match: regexp.MustCompile(`listening on (http://\S+)`),
		OnLine: func(line string) { online = append(online, line) },
	})
	m, err := p.WaitMatch(context.Background())
	if err != nil || len(m) != 2 || m[1] != "http://127.0.0.1:1" {
		t.Fatalf("WaitMatch = %q, %v", m, err)
	}
	if m, err := p.WaitMatch(context.Background()); err != nil || m[1] != "http://127.0.0.1:1" {
		t.Errorf("a second WaitMatch = %q, %v", m, err)
	}
	if err := p.Stop(syscall.SIGTERM, time.Minute); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if got, want := p.Tail(), "line 49\nlistening on http://127.0.0.1:1\nstopping"; got != want {
		t.Errorf("Tail = %q, want %q", got, want)
	}
	if len(online) != 52 || online[0] != "line 0" || online[51] != "stopping" {
		t.Errorf("OnLine saw %d lines: %q", len(online), online)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if !log.closed || strings.Count(log.text.String(), "\n") != 52 || !strings.HasPrefix(log.text.String(), "line 0\nline 1\n") {
		t.Errorf("log closed %v, text:\n%s", log.closed, log.text.String())
	}
	if p.ExitCode() != 0 || p.Err() != nil {
		t.Errorf("exit code %d, err %v", p.ExitCode(), p.Err())
	}
}

func TestProcess_WaitMatch(t *testing.T) {
	listening := regexp.MustCompile(`listening on (\S+)`)
	t.Run("exits first", func(t *testing.T) {
		p := mustStart(t, childCmd("exit"), Options{Match: listening})
		_, err := p.WaitMatch(context.Background())
		if err == nil || !strings.Contains(err.Error(), "exit status 2") || !strings.Contains(err.Error(), "cannot start: config error") {
			t.Errorf("err = %v, want the exit and the last lines", err)
		}
		if p.ExitCode() != 2 {
			t.Errorf("exit code %d", p.ExitCode())
		}
	})
	t.Run("context done", func(t *testing.T) {
		p := mustStart(t, childCmd("deaf"), Options{Match: listening})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := p.WaitMatch(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		select {
		case <-p.Exited():
			t.Error("the child exited with the wait")
		default:
		}
	})
}

func TestProcess_Stop(t *testing.T) {
	// A child that stops gets a minute, one that never does a moment:
	// nothing here depends on how fast a child stops.
	tests := []struct {
		name, mode string
		grace      time.Duration
		error      string // "": none
		exitCode   int
	}{
		{"graceful", "serve", time.Minute, "", 0},
		{"fails on the signal", "fail-on-term", time.Minute, "stopped with exit status 3:\nready\nfailing", 3},
		{"ignores the signal: killed after the grace", "deaf", 200 * time.Millisecond, "did not stop within 200ms of terminated:\nready", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustStart(t, childCmd(tt.mode), Options{Match: regexp.MustCompile(`^(ready|listening)`)})
			if _, err := p.WaitMatch(context.Background()); err != nil {
				t.Fatal(err) // the child handles SIGTERM from here on
			}
			err := p.Stop(syscall.SIGTERM, tt.grace)
			if tt.error == "" && err != nil || tt.error != "" && (err == nil || !strings.Contains(err.Error(), tt.error)) {
				t.Errorf("Stop = %v, want %q", err, tt.error)
			}
			if p.ExitCode() != tt.exitCode {
				t.Errorf("exit code %d, want %d", p.ExitCode(), tt.exitCode)
			}
		})
	}
	t.Run("already exited", func(t *testing.T) {
		p := mustStart(t, childCmd("exit"), Options{})
		<-p.Exited()
		if err := p.Stop(syscall.SIGTERM, time.Minute); err == nil || !strings.Contains(err.Error(), "exit status 2") {
			t.Errorf("Stop = %v, want the exit status", err)
		}
	})
}

// mustChildPID starts the test binary as a parent (in a group of its own
// with group) of a sleeping child, which it starts with os/exec alone
// (plain) or with Start, and returns the parent and the child's pid.
func mustChildPID(t *testing.T, group, plain bool) (*Process, int) {
	t.Helper()
	env := "PLAIN=0"
	if plain {
		env = "PLAIN=1"
	}
	p := mustStart(t, childCmd("parent", env), Options{Group: group, Match: regexp.MustCompile(`^child (\d+)$`)})
	m, err := p.WaitMatch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(m[1])
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	return p, pid
}

// waitGone waits until no process pid runs (a zombie counts as gone); it
// fails after a minute, a bound for a broken kill rather than a timing.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; {
		if !running(pid) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// running reports whether pid is a process that is not a zombie (Linux's
// /proc).
func running(pid int) bool {
	f, err := os.Open(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	i := strings.LastIndexByte(line, ')')
	return i >= 0 && !strings.HasPrefix(line[i+1:], " Z")
}

// TestProcess_Kill checks that Kill with Group kills the child's own
// children too: a grandchild without a parent-death signal.
func TestProcess_Kill(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	p, grandchild := mustChildPID(t, true, true)
	if !running(grandchild) {
		t.Fatalf("the grandchild %d does not run", grandchild)
	}
	p.Kill()
	if p.ExitCode() != -1 {
		t.Errorf("exit code %d, want -1 (killed)", p.ExitCode())
	}
	waitGone(t, grandchild)
}

// TestStart_parentDeath kills a parent with SIGKILL, so that it cannot
// stop its child: the kernel kills the child (the parent-death signal).
func TestStart_parentDeath(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux has a parent-death signal")
	}
	// Without a group of its own, Kill kills the parent alone.
	p, orphan := mustChildPID(t, false, false)
	p.Kill()
	waitGone(t, orphan)
}

func TestProcess_WaitHTTP(t *testing.T) {
	readyz := func(t *testing.T, env ...string) (*Process, string) {
		p := mustStart(t, childCmd("http", env...), Options{Match: regexp.MustCompile(`listening on (\S+)`)})
		m, err := p.WaitMatch(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return p, m[1] + "/readyz"
	}
	t.Run("ready", func(t *testing.T) {
		p, url := readyz(t)
		if err := p.WaitHTTP(context.Background(), http.DefaultClient, url); err != nil {
			t.Fatalf("WaitHTTP: %v", err)
		}
	})
	t.Run("never ready", func(t *testing.T) {
		p, url := readyz(t, "NEVER=1")
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		if err := p.WaitHTTP(ctx, http.DefaultClient, url); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want the context's deadline: 503 is not ready", err)
		}
	})
	// Nothing listens on the URL: the child's exit or the context ends
	// the wait.
	url := "http://127.0.0.1:1/readyz"
	t.Run("exits first", func(t *testing.T) {
		p := mustStart(t, childCmd("exit"), Options{})
		err := p.WaitHTTP(context.Background(), http.DefaultClient, url)
		if err == nil || !strings.Contains(err.Error(), "exit status 2") || !strings.Contains(err.Error(), "cannot start: config error") {
			t.Errorf("err = %v, want the exit and the last lines", err)
		}
	})
	t.Run("context done", func(t *testing.T) {
		p := mustStart(t, childCmd("deaf"), Options{})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := p.WaitHTTP(ctx, http.DefaultClient, url); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}
