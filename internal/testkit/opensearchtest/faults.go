package opensearchtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// Faults: a node of a running cluster killed the hard way and started
// again, as a machine that crashes and reboots.

// Kill kills node i with SIGKILL, which gives it no chance to close
// anything (no shard flushed, no goodbye to the cluster), and returns once
// its JVM has exited. Its data directory stays for Restart.
func (c *Cluster) Kill(i int) error {
	n := c.nodes[i]
	n.mu.Lock()
	proc := n.proc
	n.proc = nil
	n.mu.Unlock()
	if proc == nil {
		return fmt.Errorf("OpenSearch node %s is not running", n.name)
	}
	proc.Kill()
	return nil
}

// Restart starts node i again, after Kill, over its data directory and
// on the HTTP and transport ports it had, so that its URL and the other
// nodes' seed hosts still name it. It returns once the node has joined
// the cluster again (every node in it; the shards may still recover:
// WaitHealth green waits for them).
func (c *Cluster) Restart(ctx context.Context, i int) error {
	n := c.nodes[i]
	if n.process() != nil {
		return fmt.Errorf("OpenSearch node %s is running", n.name)
	}
	if err := n.writeConfig(c.settings(n, c.names())); err != nil {
		return fmt.Errorf("OpenSearch node %s: %w", n.name, err)
	}
	// The ports files of the last run would pass for the new run's.
	for _, f := range []string{"http.ports", "transport.ports"} {
		if err := os.Remove(filepath.Join(n.home, "logs", f)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if err := n.start(c.jvm); err != nil {
		return err
	}
	if err := n.waitPorts(ctx); err != nil {
		return err
	}
	return c.WaitHealth(ctx, "yellow")
}

// Manager is the index of the node elected cluster manager, asked of node
// i.
func (c *Cluster) Manager(ctx context.Context, i int) (int, error) {
	code, body, err := c.DoNode(ctx, i, http.MethodGet, "/_cat/cluster_manager?format=json&h=node", nil)
	if err != nil {
		return 0, err
	}
	var managers []struct {
		Node string `json:"node"`
	}
	if code != http.StatusOK || json.Unmarshal(body, &managers) != nil || len(managers) != 1 {
		return 0, fmt.Errorf("OpenSearch cluster manager: %d %s", code, body)
	}
	k, ok := c.Node(managers[0].Node)
	if !ok {
		return 0, fmt.Errorf("OpenSearch cluster manager %q is no node of the cluster", managers[0].Node)
	}
	return k, nil
}

// Node is the index of the node named name (node.name, as _cat APIs
// write it); false for none.
func (c *Cluster) Node(name string) (int, bool) {
	k := slices.IndexFunc(c.nodes, func(n *node) bool { return n.name == name })
	return k, k >= 0
}

// names are the names of the cluster's nodes.
func (c *Cluster) names() []string {
	names := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		names[i] = n.name
	}
	return names
}

// port is the port of a host:port address, 0 (the kernel chooses) for
// none.
func port(addr string) int {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(p)
	return n
}
