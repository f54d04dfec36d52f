package searchbench

import (
	"bufio"
	"context"
	"encoding/json"
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

	"github.com/ontoindex/ontoindex/internal/benchdata"
)

const (
	ontology   = "bench"
	objectType = "Customer"
)

// serverConfig is the config the ontoindex server runs with: the customers
// and orders tables of a hadoop warehouse next to it, and the index in
// ./data. Order.customer is the foreign-key link of the links row; its
// reverse side, Customer.orders, is what the searchAround follows.
const serverConfig = serverConfigHead + serverConfigTypes

// serverConfigHead ends inside the server section, so that another bench
// can add settings of its own there (configWith).
const serverConfigHead = `# written by indexer bench search
ontology: {apiName: ` + ontology + `}
dataDir: ./data
catalogs:
  warehouse: {type: hadoop, warehouse: ./warehouse}
server:
  # Under load a request may queue behind every other client; the bench
  # measures how long that takes rather than failing it.
  requestTimeout: 10m
`

const serverConfigTypes = `objectTypes:
  - apiName: ` + objectType + `
    table: warehouse.` + benchdata.CustomersIdent + `
    primaryKey: [id]
    titleProperty: name
    properties:
      id: {column: id, search: numeric}
      name: {column: name, search: text}
      city: {column: city, search: keyword}
      balance: {column: balance, search: numeric}
      visits: {column: visits, search: numeric}
      active: {column: active, search: boolean}
  - apiName: ` + orderType + `
    table: warehouse.` + benchdata.OrdersIdent + `
    primaryKey: [id]
    properties:
      id: {column: id, search: numeric}
      customerId: {column: customer_id, search: numeric}
      amount: {column: amount, search: numeric}
      status: {column: status, search: keyword}
      placedAt: {column: placed_at, search: date}
    links:
      - apiName: customer
        target: ` + objectType + `
        foreignKey: customerId
        reverseApiName: ` + aroundLink + `
`

// writeServerConfig writes the config into dir and returns its path.
func writeServerConfig(dir string) (string, error) {
	return writeConfig(dir, serverConfig)
}

// configWith is the server config with lines added to its server section
// (indented by two spaces) and a daemon section (its lines likewise);
// empty: none.
func configWith(server, daemon string) string {
	cfg := serverConfigHead + server
	if daemon != "" {
		cfg += "daemon:\n" + daemon
	}
	return cfg + serverConfigTypes
}

func writeConfig(dir, cfg string) (string, error) {
	path := filepath.Join(dir, "ontology.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		return "", fmt.Errorf("write server config: %w", err)
	}
	return path, nil
}

// ontoServer is an `indexer serve` child process.
type ontoServer struct {
	cmd     *exec.Cmd
	base    string        // http://127.0.0.1:port
	exited  chan struct{} // closed once the process has exited
	waitErr error         // set before exited closes
	tail    *lineTail
}

var listeningLine = regexp.MustCompile(`listening on (http://\S+)`)

// startOntoindex runs `bin serve --build` on a free loopback port and
// waits until it serves every object type. Lines the server prints go to
// progress. The process runs until stop.
func startOntoindex(ctx context.Context, bin string, env []string, cfgPath string, progress io.Writer) (*ontoServer, error) {
	cmd := exec.Command(bin, "serve", "--config", cfgPath, "--listen", "127.0.0.1:0", "--build")
	cmd.Env = env
	cmd.Dir = filepath.Dir(cfgPath)
	s, listening, err := startChild(cmd, "ontoindex", progress)
	if err != nil {
		return nil, err
	}
	if err := s.waitReady(ctx, listening); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

// startChild starts a server process; the address of its listening line
// comes on the channel. Lines it prints go to progress after label.
func startChild(cmd *exec.Cmd, label string, progress io.Writer) (*ontoServer, <-chan string, error) {
	cmd.SysProcAttr = childAttr()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	s := &ontoServer{cmd: cmd, exited: make(chan struct{}), tail: &lineTail{max: 30}}
	listening := make(chan string, 1)
	go func() {
		// Wait may only run once the pipe is read to its end.
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			s.tail.add(line)
			if m := listeningLine.FindStringSubmatch(line); m != nil {
				select {
				case listening <- m[1]:
				default:
				}
			}
			fmt.Fprintf(progress, "  %s: %s\n", label, line)
		}
		_, _ = io.Copy(io.Discard, stderr)
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()
	return s, listening, nil
}

// waitReady waits for the listening line, then polls /readyz until every
// object type has a generation to serve.
func (s *ontoServer) waitReady(ctx context.Context, listening <-chan string) error {
	select {
	case s.base = <-listening:
	case <-s.exited:
		return fmt.Errorf("ontoindex server exited (%v) before it listened:\n%s", s.waitErr, s.tail)
	case <-ctx.Done():
		return ctx.Err()
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/readyz", nil)
		if err != nil {
			return err
		}
		if resp, err := http.DefaultClient.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-s.exited:
			return fmt.Errorf("ontoindex server exited (%v) before it was ready:\n%s", s.waitErr, s.tail)
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// objects returns the number of objects the server reports for a type.
func (s *ontoServer) objects(ctx context.Context, typ string) (int64, error) {
	st, err := s.status(ctx, typ)
	return st.Objects, err
}

// typeStatus is what the benches read of a type's status.
type typeStatus struct {
	Objects int64 `json:"objects"`
	// CheckpointSnapshotID is the table snapshot the served index reflects.
	CheckpointSnapshotID int64 `json:"checkpointSnapshotId,string"`
	// RecentBuilds are the daemon's last builds, oldest first.
	RecentBuilds []Build `json:"recentBuilds"`
}

// Build is one build of the daemon, as its status shows it.
type Build struct {
	FinishedAt time.Time `json:"finishedAt"`
	To         int64     `json:"to,string"` // the snapshot it went to
	Error      string    `json:"error,omitempty"`
}

// status returns the server's status of a type.
func (s *ontoServer) status(ctx context.Context, typ string) (typeStatus, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/api/indexer/v1/status/"+typ, nil)
	if err != nil {
		return typeStatus{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return typeStatus{}, fmt.Errorf("status of %s: %w", typ, err)
	}
	defer resp.Body.Close()
	var st typeStatus
	if resp.StatusCode != http.StatusOK {
		return typeStatus{}, fmt.Errorf("status of %s: HTTP %d", typ, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return typeStatus{}, fmt.Errorf("status of %s: %w", typ, err)
	}
	return st, nil
}

// stop shuts the server down gracefully (SIGTERM), killing it if that takes
// longer than its own shutdown budget (or where there are no signals).
func (s *ontoServer) stop() {
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		_ = s.cmd.Process.Kill()
	}
	select {
	case <-s.exited:
	case <-time.After(45 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

func (s *ontoServer) pid() int { return s.cmd.Process.Pid }

// serverVersion returns the first line `bin version` prints.
func serverVersion(ctx context.Context, bin string, env []string) string {
	cmd := exec.CommandContext(ctx, bin, "version")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
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
