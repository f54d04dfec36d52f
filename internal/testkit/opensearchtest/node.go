package opensearchtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ontoindex/ontoindex/internal/subprocess"
)

// launcherClass is the launcher's main class (launcher/OpenSearchNode.java).
const launcherClass = "OpenSearchNode"

// modules are the plugin classes of the distribution's modules that the
// launcher loads from the classpath (pom.xml's artifacts).
func modules() []string {
	return []string{
		"org.opensearch.transport.Netty4Plugin",
		"org.opensearch.analysis.common.CommonAnalysisPlugin",
		"org.opensearch.index.reindex.ReindexPlugin",
		"org.opensearch.index.mapper.MapperExtrasPlugin",
		"org.opensearch.painless.PainlessPlugin",
		"org.opensearch.geo.GeoModulePlugin",
	}
}

// node is one node of a cluster: a JVM running the launcher over a home
// directory of its own.
type node struct {
	name string
	home string

	mu   sync.Mutex
	proc *subprocess.Process // nil before start and once killed

	http      string // host:port of its HTTP API, once started
	transport string // host:port of its transport, once started
}

// setting is one line of opensearch.yml.
type setting struct {
	key   string
	value any
}

// writeConfig lays out the node's home: config/opensearch.yml, a
// log4j2.properties that logs to stdout, and the empty modules and plugins
// directories the node looks into.
func (n *node) writeConfig(settings []setting) error {
	for _, d := range []string{"config", "data", "logs", "modules", "plugins"} {
		if err := os.MkdirAll(filepath.Join(n.home, d), 0o755); err != nil {
			return err
		}
	}
	var yml strings.Builder
	for _, s := range settings {
		// JSON is YAML: values quoted and escaped the same way.
		v, err := json.Marshal(s.value)
		if err != nil {
			return fmt.Errorf("opensearch.yml %s: %w", s.key, err)
		}
		fmt.Fprintf(&yml, "%s: %s\n", s.key, v)
	}
	if err := os.WriteFile(filepath.Join(n.home, "config", "opensearch.yml"), []byte(yml.String()), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(n.home, "config", "log4j2.properties"), []byte(log4j2), 0o644)
}

// log4j2 sends the node's log to stdout, which goes to logs/node.log.
const log4j2 = `status = error
appender.console.type = Console
appender.console.name = console
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d{ISO8601}][%-5p][%-25c{1.}] [%node_name]%marker %m%n
rootLogger.level = info
rootLogger.appenderRef.console.ref = console
`

func (n *node) logFile() string { return filepath.Join(n.home, "logs", "node.log") }

// jvm is how a node's JVM starts.
type jvm struct {
	java, classpath string
	heapMB          int
	profile         Profile
	cpus            string // taskset's list of processors; "": every one
}

// command is the command that runs the JVM with args, on j.cpus alone
// when set: taskset sets the mask before the JVM starts (which counts its
// processors once, at its start) and runs it in its own place, so the
// process is the JVM's.
func (j jvm) command(args []string) *exec.Cmd {
	if j.cpus == "" {
		return exec.Command(j.java, args...)
	}
	return exec.Command("taskset", append([]string{"--cpu-list", j.cpus, j.java}, args...)...)
}

// start starts the node's JVM and returns at once.
func (n *node) start(j jvm) error {
	logf, err := os.OpenFile(n.logFile(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close() // the child holds its own descriptor
	heap := "-Xmx" + strconv.Itoa(j.heapMB) + "m"
	args := append([]string{"-Xms" + strconv.Itoa(j.heapMB) + "m", heap, "-Xss1m"}, j.profile.jvmArgs()...)
	args = append(args,
		"-XX:-OmitStackTraceInFastThrow",
		// As the distribution's jvm.options: log4j without JMX and its
		// own shutdown hook (the launcher's closes the node, logging).
		"-Dlog4j2.disable.jmx=true", "-Dlog4j.shutdownHookEnabled=false",
		"-Dio.netty.noUnsafe=true", "-Dio.netty.noKeySetOptimization=true",
		"-Dio.netty.recycler.maxCapacityPerThread=0",
		"-Djava.io.tmpdir="+filepath.Join(n.home, "tmp"),
		"-cp", j.classpath, launcherClass, n.home,
	)
	if err := os.MkdirAll(filepath.Join(n.home, "tmp"), 0o755); err != nil {
		return err
	}
	cmd := j.command(append(args, modules()...))
	cmd.Dir = n.home
	cmd.Stdout, cmd.Stderr = logf, logf
	proc, err := subprocess.Start(cmd, subprocess.Options{Group: true})
	if err != nil {
		return fmt.Errorf("start OpenSearch node %s: %w", n.name, err)
	}
	n.mu.Lock()
	n.proc = proc
	n.mu.Unlock()
	return nil
}

// process is the node's running JVM; nil when it is not running.
func (n *node) process() *subprocess.Process {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.proc
}

// waitPorts waits until the node has written its ports files (it does
// once its HTTP server listens) and reads them.
func (n *node) waitPorts(ctx context.Context) error {
	proc := n.process()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		httpAddr, err1 := n.readPorts("http.ports")
		transportAddr, err2 := n.readPorts("transport.ports")
		if err1 == nil && err2 == nil {
			n.http, n.transport = httpAddr, transportAddr
			return nil
		}
		if err := errors.Join(err1, err2); !errors.Is(err, os.ErrNotExist) {
			return err
		}
		select {
		case <-proc.Exited():
			return fmt.Errorf("OpenSearch node %s exited during startup (%v):\n%s", n.name, proc.Err(), n.logTail())
		case <-ctx.Done():
			return fmt.Errorf("OpenSearch node %s did not listen in time: %w\n%s", n.name, ctx.Err(), n.logTail())
		case <-tick.C:
		}
	}
}

// readPorts reads a ports file of the node's logs directory: one bound
// address a line, the first is taken (the node binds 127.0.0.1 only).
func (n *node) readPorts(name string) (string, error) {
	b, err := os.ReadFile(filepath.Join(n.home, "logs", name))
	if err != nil {
		return "", err
	}
	addr, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	if addr == "" {
		return "", fmt.Errorf("OpenSearch node %s: %s is empty", n.name, name)
	}
	return addr, nil
}

// stop closes the node (SIGTERM: the launcher's shutdown hook closes it)
// and kills it after grace.
func (n *node) stop(grace time.Duration) error {
	proc := n.process()
	if proc == nil {
		return nil
	}
	err := proc.Stop(syscall.SIGTERM, grace)
	// The JVM exits with 128+SIGTERM once its shutdown hooks ran: the node
	// closed as asked.
	if err != nil && proc.ExitCode() == 128+int(syscall.SIGTERM) {
		err = nil
	}
	if err != nil {
		return fmt.Errorf("stop OpenSearch node %s: %w\n%s", n.name, err, n.logTail())
	}
	return nil
}

// logTail is the end of the node's log.
func (n *node) logTail() string {
	return subprocess.FileTail(n.logFile(), 4000)
}
