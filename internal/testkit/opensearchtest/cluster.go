package opensearchtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/internal/testkit/jvmtest"
)

// Version is the OpenSearch release of the nodes (pom.xml).
const Version = "2.19.6"

// classpathFile is the classpath .ci/install-opensearch writes into the
// JVM test cache: the launcher's classes, then the jars.
const classpathFile = "opensearch.classpath"

// Options configure Start. The zero value is one node.
type Options struct {
	// Nodes is 1 (the default) or 3.
	Nodes int
	// HeapMB is each node's heap in MiB (default 512).
	HeapMB int
	// StartTimeout bounds a start, the cluster's health included
	// (default 4m: three JVMs on a loaded two-core machine).
	StartTimeout time.Duration
	// Profile is how each node's JVM and thread pools are set up: the
	// zero value, ProfileTest, is the cheap one tests run.
	Profile Profile
	// CPUs, when set, is the processors the nodes' JVMs run on, a list as
	// taskset(1) reads it ("0", "2-3"): a node sees those alone, as one on
	// a machine of its own would, and the benches can keep the cluster off
	// the cores of the processes they measure beside it.
	CPUs string
}

// Cluster is a running OpenSearch cluster.
type Cluster struct {
	name  string
	dir   string
	nodes []*node
	jvm   jvm // how a node starts, again on Restart

	stopOnce sync.Once
	stopErr  error
}

// Start starts a cluster of o.Nodes nodes in a new temporary directory
// and returns once it is green with all of them. The error wraps
// jvmtest.ErrNotInstalled when the jars or java are missing. ctx bounds
// the start only; the nodes run until Stop.
func Start(ctx context.Context, o Options) (_ *Cluster, err error) {
	if o.Nodes == 0 {
		o.Nodes = 1
	}
	if o.Nodes != 1 && o.Nodes != 3 {
		return nil, fmt.Errorf("opensearchtest: %d nodes, want 1 or 3", o.Nodes)
	}
	if o.HeapMB <= 0 {
		o.HeapMB = 512
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 4 * time.Minute
	}
	cp, err := jvmtest.Classpath(classpathFile)
	if err != nil {
		return nil, fmt.Errorf("OpenSearch: %w", err)
	}
	java, err := jvmtest.Java()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "opensearch-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{name: "ontoindex-test-" + filepath.Base(dir), dir: dir,
		jvm: jvm{java: java, classpath: cp, heapMB: o.HeapMB, profile: o.Profile, cpus: o.CPUs}}
	defer func() {
		if err != nil {
			_ = c.Stop()
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, o.StartTimeout)
	defer cancel()

	names := make([]string, o.Nodes)
	for i := range names {
		names[i] = fmt.Sprintf("node-%d", i)
	}
	for _, name := range names {
		n := &node{name: name, home: filepath.Join(dir, name)}
		if err := n.writeConfig(c.settings(n, names)); err != nil {
			return nil, fmt.Errorf("OpenSearch node %s: %w", name, err)
		}
		c.nodes = append(c.nodes, n)
	}
	// The JVMs start side by side: their startup is most of the wait.
	for _, n := range c.nodes {
		if err := n.start(c.jvm); err != nil {
			return nil, err
		}
	}
	for _, n := range c.nodes {
		if err := n.waitPorts(ctx); err != nil {
			return nil, err
		}
	}
	if len(c.nodes) > 1 {
		if err := c.writeSeedHosts(); err != nil {
			return nil, err
		}
	}
	if err := c.WaitHealth(ctx, "green"); err != nil {
		return nil, err
	}
	return c, nil
}

// Must starts a cluster for a test and stops it when the test ends.
// Without the jars it skips the test, except on CI (CI=true), where it
// fails.
func Must(tb testing.TB, o Options) *Cluster {
	tb.Helper()
	c, err := Start(context.Background(), o)
	jvmtest.SkipUnlessInstalled(tb, "OpenSearch", err)
	tb.Cleanup(func() {
		if err := c.Stop(); err != nil {
			tb.Error(err)
		}
	})
	return c
}

// settings are node n's opensearch.yml in a cluster of the nodes named.
func (c *Cluster) settings(n *node, names []string) []setting {
	s := []setting{
		{"cluster.name", c.name},
		{"node.name", n.name},
		{"path.data", filepath.Join(n.home, "data")},
		{"path.logs", filepath.Join(n.home, "logs")},
		{"network.host", "127.0.0.1"},
		// Ports the kernel chooses, written to logs/http.ports and
		// logs/transport.ports once bound; a restarted node binds the
		// ones it had (Restart).
		{"http.port", port(n.http)},
		{"transport.port", port(n.transport)},
		{"node.portsfile", true},
		// A shared machine's disk may be fuller than the watermarks.
		{"cluster.routing.allocation.disk.threshold_enabled", false},
	}
	s = append(s, c.jvm.profile.settings()...)
	if len(names) == 1 {
		return append(s, setting{"discovery.type", "single-node"})
	}
	return append(s,
		// No seed hosts but the file's, written once every node bound
		// its transport port (not the default scan of ports 9300-9305).
		setting{"discovery.seed_hosts", []string{}},
		setting{"discovery.seed_providers", "file"},
		setting{"cluster.initial_cluster_manager_nodes", names},
		// Do not wait for the cluster before listening on HTTP: the ports
		// files are written after that wait, and the seed hosts after them.
		setting{"discovery.initial_state_timeout", "0s"},
	)
}

// writeSeedHosts writes every node's transport address into each node's
// config/unicast_hosts.txt, which the file-based seed hosts provider
// reads at every round of discovery.
func (c *Cluster) writeSeedHosts() error {
	var hosts strings.Builder
	for _, n := range c.nodes {
		hosts.WriteString(n.transport + "\n")
	}
	for _, n := range c.nodes {
		path := filepath.Join(n.home, "config", "unicast_hosts.txt")
		if err := os.WriteFile(path+".tmp", []byte(hosts.String()), 0o644); err != nil {
			return err
		}
		if err := os.Rename(path+".tmp", path); err != nil {
			return err
		}
	}
	return nil
}

// Stop stops every node (in parallel), waits for their JVMs to exit and
// removes the cluster's directory. It may be called more than once; later
// calls return the first result.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() {
		errs := make([]error, len(c.nodes))
		var wg sync.WaitGroup
		for i, n := range c.nodes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = n.stop(30 * time.Second)
			}()
		}
		wg.Wait()
		if err := os.RemoveAll(c.dir); err != nil {
			errs = append(errs, fmt.Errorf("remove the OpenSearch cluster's directory: %w", err))
		}
		c.stopErr = errors.Join(errs...)
	})
	return c.stopErr
}

// Name is the cluster's name (cluster.name).
func (c *Cluster) Name() string { return c.name }

// URL is the HTTP base URL of the first node.
func (c *Cluster) URL() string { return c.URLs()[0] }

// URLs are the HTTP base URLs of every node, in order.
func (c *Cluster) URLs() []string {
	urls := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		urls[i] = "http://" + n.http
	}
	return urls
}

// LogTail is the end of node i's log.
func (c *Cluster) LogTail(i int) string { return c.nodes[i].logTail() }
