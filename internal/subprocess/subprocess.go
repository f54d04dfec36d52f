package subprocess

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Options configure Start. The zero value is usable.
type Options struct {
	// Group puts the child in a process group of its own: a Ctrl-C at the
	// terminal reaches the owner, which stops the child in order, rather
	// than the child, and Kill kills the whole group (the child's own
	// children too, such as PostgreSQL's backends). Unix only.
	Group bool
	// TailLines is how many of the last lines of stderr Tail keeps
	// (default 40).
	TailLines int
	// Log receives every line of stderr, before OnLine sees it; Start
	// owns it and closes it once the child has exited.
	Log io.WriteCloser
	// OnLine receives every line of stderr, in order, on the goroutine
	// that reads them.
	OnLine func(line string)
	// Match is the pattern of the line WaitMatch waits for.
	Match *regexp.Regexp
}

// Process is a started child process.
type Process struct {
	cmd     *exec.Cmd
	group   bool
	tail    *lineTail
	matched chan struct{} // closed once a line matched Options.Match
	match   []string      // that line's submatches, set before matched closes
	exited  chan struct{} // closed once the process has exited and been waited for
	waitErr error         // set before exited closes
}

// Start starts cmd. Unless the caller set cmd.Stderr, its stderr is read
// line by line as o says (Tail, Log, OnLine, Match); cmd.SysProcAttr
// gains the parent-death signal and, with o.Group, a process group.
func Start(cmd *exec.Cmd, o Options) (*Process, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	dieWithParent(cmd.SysProcAttr)
	if o.Group {
		newGroup(cmd.SysProcAttr)
	}
	if o.TailLines <= 0 {
		o.TailLines = 40
	}
	p := &Process{cmd: cmd, group: o.Group, tail: &lineTail{max: o.TailLines}, matched: make(chan struct{}), exited: make(chan struct{})}
	var stderr io.ReadCloser
	if cmd.Stderr == nil {
		var err error
		if stderr, err = cmd.StderrPipe(); err != nil {
			closeLog(o.Log)
			return nil, err
		}
	}
	if err := cmd.Start(); err != nil {
		closeLog(o.Log)
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	go func() {
		if stderr != nil {
			p.read(stderr, o) // Wait may only run once the pipe is read to its end
		}
		p.waitErr = cmd.Wait()
		closeLog(o.Log)
		close(p.exited)
	}()
	return p, nil
}

// read reads the child's stderr to its end.
func (p *Process) read(stderr io.Reader, o Options) {
	sc := bufio.NewScanner(stderr)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	matched := false
	for sc.Scan() {
		line := sc.Text()
		p.tail.add(line)
		if o.Log != nil {
			fmt.Fprintln(o.Log, line)
		}
		if o.OnLine != nil {
			o.OnLine(line)
		}
		if o.Match != nil && !matched {
			if m := o.Match.FindStringSubmatch(line); m != nil {
				p.match, matched = m, true
				close(p.matched)
			}
		}
	}
	// A line longer than the scanner's buffer ends the lines; the rest
	// still goes to the log.
	w := io.Discard
	if o.Log != nil {
		w = o.Log
	}
	_, _ = io.Copy(w, stderr)
}

func closeLog(log io.Closer) {
	if log != nil {
		_ = log.Close()
	}
}

// WaitMatch waits for the first line of stderr that matches Options.Match
// and returns its submatches. It fails when the child exits first (with
// the last lines it printed) or when ctx is done; the child runs on
// either way.
func (p *Process) WaitMatch(ctx context.Context) ([]string, error) {
	select {
	case <-p.matched:
		return p.match, nil
	case <-p.exited:
		select {
		case <-p.matched: // matched, then exited
			return p.match, nil
		default:
		}
		return nil, fmt.Errorf("%s exited (%v) before it printed the line awaited:\n%s", p.name(), p.waitErr, p.Tail())
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: %w; its last lines:\n%s", p.name(), ctx.Err(), p.Tail())
	}
}

// Signal sends sig to the child (not to its group).
func (p *Process) Signal(sig os.Signal) error {
	if err := p.cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("signal %s: %w", p.name(), err)
	}
	return nil
}

// Kill kills the child (its group with Options.Group) with SIGKILL and
// returns once it has exited.
func (p *Process) Kill() {
	if p.group {
		killGroup(p.cmd.Process)
	} else {
		_ = p.cmd.Process.Kill()
	}
	<-p.exited
}

// Stop sends sig (where signals other than kill exist; elsewhere it
// kills), waits until the child exits and kills it when that takes longer
// than grace. The error says when the child had to be killed or exited
// with an error, with the last lines it printed.
func (p *Process) Stop(sig os.Signal, grace time.Duration) error {
	if err := p.Signal(sig); err != nil {
		p.Kill()
		if errors.Is(err, os.ErrProcessDone) {
			return p.exitError()
		}
		return err
	}
	select {
	case <-p.exited:
	case <-time.After(grace):
		p.Kill()
		return fmt.Errorf("%s did not stop within %s of %s:\n%s", p.name(), grace, sig, p.Tail())
	}
	return p.exitError()
}

func (p *Process) exitError() error {
	if p.waitErr != nil {
		return fmt.Errorf("%s stopped with %v:\n%s", p.name(), p.waitErr, p.Tail())
	}
	return nil
}

// Exited is closed once the child has exited and been waited for.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Err is how the child exited (exec.Cmd.Wait's error); only once Exited
// is closed.
func (p *Process) Err() error {
	<-p.exited
	return p.waitErr
}

// ExitCode is the child's exit status (-1 when a signal ended it); only
// once Exited is closed.
func (p *Process) ExitCode() int {
	<-p.exited
	return p.cmd.ProcessState.ExitCode()
}

// PID is the child's process id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Tail is the last lines the child printed on stderr.
func (p *Process) Tail() string { return p.tail.String() }

// name is the command and its first argument, for errors: "indexer serve".
func (p *Process) name() string {
	args := p.cmd.Args
	if len(args) > 2 {
		args = args[:2]
	}
	if len(args) > 0 {
		args = append([]string{baseName(args[0])}, args[1:]...)
	}
	return strings.Join(args, " ")
}

func baseName(path string) string {
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		return path[i+1:]
	}
	return path
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
