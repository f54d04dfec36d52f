package searchbench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ontoindex/ontoindex/internal/benchdata"
	"github.com/ontoindex/ontoindex/internal/subprocess"
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
const serverConfigHead = `# written by ontolab bench search
ontology: {apiName: ` + ontology + `}
dataDir: ./data
catalogs:
  warehouse: {type: hadoop, warehouse: ./warehouse}
server:
  # Under load a request may queue behind every other client; the bench
  # measures how long that takes rather than failing it.
  requestTimeout: 10m
`

const serverConfigTypes = "objectTypes:\n" + customerTypeConfig + orderTypeConfig

// customerTypeConfig and orderTypeConfig are the two types' items of
// objectTypes.
const customerTypeConfig = `  - apiName: ` + objectType + `
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
`

const orderTypeConfig = `  - apiName: ` + orderType + `
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

// besideWarehouse is cfg, whose warehouse is below the server's
// directory, for a server whose directory sits beside the warehouse.
func besideWarehouse(cfg string) string {
	return strings.Replace(cfg, "warehouse: ./warehouse", "warehouse: ../warehouse", 1)
}

// writeSideConfig makes the directory name in work, beside the
// warehouse, for a server of its own, and writes cfg there; the caller
// removes dir.
func writeSideConfig(work, name, cfg string) (dir, path string, err error) {
	dir = filepath.Join(work, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	if path, err = writeConfig(dir, besideWarehouse(cfg)); err != nil {
		os.RemoveAll(dir)
		return "", "", err
	}
	return dir, path, nil
}

// ontoServer is a server child process: `indexer serve`, or the floor.
type ontoServer struct {
	proc *subprocess.Process
	base string // http://127.0.0.1:port
}

var listeningLine = regexp.MustCompile(`listening on (http://\S+)`)

// startOntoindex runs `bin serve --build` on a free loopback port and
// waits until it serves every object type. Lines the server prints go to
// progress. The process runs until stop.
func startOntoindex(ctx context.Context, bin string, env []string, cfgPath string, progress io.Writer) (*ontoServer, error) {
	return startServe(ctx, bin, env, cfgPath, "ontoindex", progress)
}

// serveCommand is `bin serve --build` of the config at cfgPath, on a free
// loopback port, in the config's directory.
func serveCommand(bin string, env []string, cfgPath string) *exec.Cmd {
	cmd := exec.Command(bin, "serve", "--config", cfgPath, "--listen", "127.0.0.1:0", "--build")
	cmd.Env = env
	cmd.Dir = filepath.Dir(cfgPath)
	return cmd
}

// startChild starts a server process and waits until it prints the
// address it listens on. Lines it prints go to progress after label.
func startChild(ctx context.Context, cmd *exec.Cmd, label string, progress io.Writer) (*ontoServer, error) {
	proc, err := subprocess.Start(cmd, subprocess.Options{
		TailLines: 30, Match: listeningLine,
		OnLine: func(line string) { fmt.Fprintf(progress, "  %s: %s\n", label, line) },
	})
	if err != nil {
		return nil, err
	}
	s := &ontoServer{proc: proc}
	m, err := proc.WaitMatch(ctx)
	if err != nil {
		s.stop()
		return nil, fmt.Errorf("%s server: %w", label, err)
	}
	s.base = m[1]
	return s, nil
}

// waitReady polls /readyz until every object type has a generation to
// serve.
func (s *ontoServer) waitReady(ctx context.Context) error {
	return s.proc.WaitHTTP(ctx, http.DefaultClient, s.base+"/readyz")
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
	var st typeStatus
	return st, s.statusInto(ctx, typ, &st)
}

// statusInto decodes the server's status of a type into out.
func (s *ontoServer) statusInto(ctx context.Context, typ string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/api/indexer/v1/status/"+typ, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("status of %s: %w", typ, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status of %s: HTTP %d", typ, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("status of %s: %w", typ, err)
	}
	return nil
}

// heapInuseMiB is the server's Go heap in use, as its /metrics reports it
// (go_memstats_heap_inuse_bytes); 0 when it cannot be read.
func (s *ontoServer) heapInuseMiB(ctx context.Context) float64 {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/metrics", nil)
	if err != nil {
		return 0
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return 0
	}
	for line := range strings.Lines(string(body)) {
		if v, ok := strings.CutPrefix(line, "go_memstats_heap_inuse_bytes "); ok {
			f, _ := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return f / (1 << 20)
		}
	}
	return 0
}

// stop shuts the server down gracefully (SIGTERM), killing it if that takes
// longer than its own shutdown budget (or where there are no signals).
// How it exited does not matter to the figures.
func (s *ontoServer) stop() { _ = s.proc.Stop(syscall.SIGTERM, 45*time.Second) }

func (s *ontoServer) pid() int { return s.proc.PID() }

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
