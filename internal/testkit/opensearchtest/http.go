package opensearchtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Do sends a request to the first node: body, when not nil, is JSON
// (a []byte as it is, anything else marshalled), or NDJSON when path is a
// _bulk endpoint. It returns the status and the body of the answer; only a
// request that got no answer is an error.
func (c *Cluster) Do(ctx context.Context, method, path string, body any) (int, []byte, error) {
	return c.DoNode(ctx, 0, method, path, body)
}

// MustDoNode sends a request to node i (Do), fails the test unless it is
// answered with status, and decodes the answer into out when out is not
// nil.
func (c *Cluster) MustDoNode(tb testing.TB, i int, method, path string, body any, status int, out any) {
	tb.Helper()
	code, b, err := c.DoNode(tb.Context(), i, method, path, body)
	if err != nil {
		tb.Fatal(err)
	}
	if code != status {
		tb.Fatalf("%s %s: %d %s, want %d", method, path, code, b, status)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			tb.Fatalf("%s %s: decode %s: %v", method, path, b, err)
		}
	}
}

// DoNode is Do sent to node i.
func (c *Cluster) DoNode(ctx context.Context, i int, method, path string, body any) (int, []byte, error) {
	var r io.Reader
	contentType := "application/json"
	if body != nil {
		b, ok := body.([]byte)
		if !ok {
			var err error
			if b, err = json.Marshal(body); err != nil {
				return 0, nil, fmt.Errorf("OpenSearch %s %s: %w", method, path, err)
			}
		}
		if u, err := url.Parse(path); err == nil && strings.HasSuffix(u.Path, "/_bulk") {
			contentType = "application/x-ndjson"
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.URLs()[i]+path, r)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("OpenSearch %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, fmt.Errorf("OpenSearch %s %s: read the answer: %w", method, path, err)
	}
	return resp.StatusCode, b, nil
}

// Health is the part of _cluster/health the tests look at.
type Health struct {
	Status           string `json:"status"`
	NumberOfNodes    int    `json:"number_of_nodes"`
	ActiveShards     int    `json:"active_shards"`
	UnassignedShards int    `json:"unassigned_shards"`
	TimedOut         bool   `json:"timed_out"`
}

// WaitHealth waits until the cluster has all its nodes and is at least
// status (green, or yellow: yellow or green), asking any node that
// answers. It fails when ctx is done or a node's JVM exits; a killed node
// (Kill) is not asked.
func (c *Cluster) WaitHealth(ctx context.Context, status string) error {
	path := "/_cluster/health?wait_for_status=" + url.QueryEscape(status) +
		"&wait_for_nodes=" + strconv.Itoa(len(c.nodes)) + "&timeout=2s"
	var last string
	for {
		for i, n := range c.nodes {
			proc := n.process()
			if proc == nil {
				continue // killed (Kill): its node count is missing until Restart
			}
			select {
			case <-proc.Exited():
				return fmt.Errorf("OpenSearch node %s exited (%v):\n%s", n.name, proc.Err(), n.logTail())
			default:
			}
			code, body, err := c.DoNode(ctx, i, http.MethodGet, path, nil)
			if err != nil {
				last = err.Error()
				continue
			}
			var h Health
			if code == http.StatusOK && json.Unmarshal(body, &h) == nil && !h.TimedOut {
				return nil
			}
			last = fmt.Sprintf("%d %s", code, body)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("OpenSearch cluster %s not %s with %d nodes: %w; last answer: %s\n%s",
				c.name, status, len(c.nodes), ctx.Err(), last, c.nodes[0].logTail())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
