package opensearch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	opensearchgo "github.com/opensearch-project/opensearch-go/v4"
	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"

	"github.com/ontoindex/ontoindex/indexer/config"
)

// Options configure a Cluster. Zero values mean the defaults below.
type Options struct {
	// Name is the backend's name in the config, which errors name.
	Name        string
	URLs        []string
	IndexPrefix string
	// Shards default to config.DefaultShards; Replicas is taken as it is
	// (OptionsFrom fills in the config's default).
	Shards, Replicas   int
	Username, Password string
	// CACert is the PEM of the CAs that sign the cluster's certificate
	// (nil: the system's).
	CACert []byte
	// GCDeletes is how long a delete's tombstone refuses older writes of
	// its document (index.gc_deletes; doc.go).
	GCDeletes time.Duration
	// BulkBytes bounds the body of one bulk request.
	BulkBytes int
	// Retries is how many times an item the cluster refused for load (429)
	// is sent again, the first after RetryWait, doubling.
	Retries   int
	RetryWait time.Duration
	// ConnectionsPerNode is how many connections the client opens to each
	// node at most, and keeps when idle (default
	// config.DefaultConnectionsPerNode). net/http's default transport
	// keeps 2 idle: under more concurrent reads than that, every request
	// past the second closed its connection after use and the next opened
	// one, a TCP handshake and a new channel in the node each time (the
	// search bench's OpenSearch rows, at 8 clients, opened about one
	// connection a 6 requests). The bound: requests hold no admission slot
	// while they wait on the cluster (package backend), so without it a
	// flood of clients would be as many connections and requests at once
	// in the nodes; past it, requests wait for a connection, each at most
	// as long as its context.
	ConnectionsPerNode int
}

// Defaults.
const (
	DefaultGCDeletes = 24 * time.Hour
	DefaultBulkBytes = 5 << 20
	DefaultRetries   = 6
	DefaultRetryWait = 100 * time.Millisecond
)

func (o Options) withDefaults() Options {
	o.IndexPrefix = cmp.Or(o.IndexPrefix, config.DefaultIndexPrefix)
	o.Shards = cmp.Or(o.Shards, config.DefaultShards)
	o.GCDeletes = cmp.Or(o.GCDeletes, DefaultGCDeletes)
	o.BulkBytes = cmp.Or(o.BulkBytes, DefaultBulkBytes)
	o.Retries = cmp.Or(o.Retries, DefaultRetries)
	o.RetryWait = cmp.Or(o.RetryWait, DefaultRetryWait)
	o.ConnectionsPerNode = cmp.Or(o.ConnectionsPerNode, config.DefaultConnectionsPerNode)
	return o
}

// OptionsFrom are the options of backend name of cfg, its CA file read.
func OptionsFrom(cfg *config.Config, name string) (Options, error) {
	b, ok := cfg.Backends[name]
	if !ok {
		return Options{}, fmt.Errorf("backend %q is not configured", name)
	}
	b = b.WithDefaults()
	o := Options{Name: name, URLs: b.URLs, IndexPrefix: b.IndexPrefix, Shards: b.Shards,
		Replicas: *b.Replicas, Username: b.Username, Password: b.Password,
		ConnectionsPerNode: b.ConnectionsPerNode}
	if b.CAFile != "" {
		pem, err := os.ReadFile(cfg.Path(b.CAFile))
		if err != nil {
			return Options{}, fmt.Errorf("backends.%s.caFile: %w", name, err)
		}
		o.CACert = pem
	}
	return o, nil
}

// Cluster is a connection to one OpenSearch cluster.
type Cluster struct {
	opts   Options
	client *opensearchapi.Client
	log    *slog.Logger
}

// New returns a client of the cluster; it sends no request.
func New(o Options, log *slog.Logger) (*Cluster, error) {
	o = o.withDefaults()
	if len(o.URLs) == 0 {
		return nil, fmt.Errorf("opensearch cluster %q: no URLs", o.Name)
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxConnsPerHost = o.ConnectionsPerNode
	transport.MaxIdleConnsPerHost = o.ConnectionsPerNode
	transport.MaxIdleConns = o.ConnectionsPerNode * len(o.URLs)
	// Answers uncompressed: net/http's transport would ask for gzip, which
	// a node grants by default (http.compression), and the answers the
	// backend reads are small (keys and sort values, bulk items,
	// aggregation buckets): compressing and inflating each cost the node
	// and the indexer more CPU than the bytes saved (the search bench's
	// sorted search: inflating was a tenth of the indexer's CPU).
	transport.DisableCompression = true
	client, err := opensearchapi.NewClient(opensearchapi.Config{Client: opensearchgo.Config{
		Transport: transport,
		Addresses: o.URLs,
		Username:  o.Username,
		Password:  o.Password,
		CACert:    o.CACert,
		// 429 is the cluster shedding load: worth another try, like the
		// gateway errors the client retries by default.
		RetryOnStatus: []int{http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout},
		// A request that got no answer (a node killed: connection refused
		// or reset) goes to the next URL, and the node that did not answer
		// is skipped for a while: the client's default, which keeps builds
		// and reads going while a node of several is down
		// (TestIndexer_Build_openSearchNodeKilled). A bulk request sent
		// again is safe: its external versions make a replay change
		// nothing.
		MaxRetries: 3,
	}})
	if err != nil {
		return nil, fmt.Errorf("opensearch cluster %q: %w", o.Name, err)
	}
	return &Cluster{opts: o, client: client, log: log.With("backend", o.Name)}, nil
}

// Close releases the client's connections.
func (c *Cluster) Close() error { return c.client.Close() }

// Name is the backend's name.
func (c *Cluster) Name() string { return c.opts.Name }

// inspector is every response of the client.
type inspector interface {
	Inspect() opensearchapi.Inspect
}

// status is the HTTP status of a response, 0 when the request got none.
func status(resp inspector) int {
	if resp == nil {
		return 0
	}
	if r := resp.Inspect().Response; r != nil {
		return r.StatusCode
	}
	return 0
}

// check turns the error of a request into the package's: an
// *UnreachableError when the cluster did not answer, else the cluster's
// error with what was asked.
func (c *Cluster) check(ctx context.Context, what string, resp inspector, err error) error {
	if err == nil {
		return nil
	}
	if status(resp) == 0 {
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w", what, ctx.Err())
		}
		return &UnreachableError{Cluster: c.opts.Name, URLs: c.opts.URLs, Err: err}
	}
	return fmt.Errorf("opensearch cluster %q: %s: %w", c.opts.Name, what, err)
}

// isStatus reports whether the request got an answer with the status.
func isStatus(resp inspector, err error, code int) bool {
	return err != nil && status(resp) == code
}

// errorType is the error type of the cluster's answer ("" for none).
func errorType(err error) string {
	var se *opensearchgo.StructError
	if errors.As(err, &se) {
		return se.Err.Type
	}
	return ""
}
