package config

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/ontoindex/ontoindex/objects"
)

// Backend configures one search backend that object types may index into
// instead of the embedded index (YAML section `backends`, by name; an
// object type names it with `backend:`).
//
//	backends:
//	  cluster:
//	    type: opensearch
//	    urls: [http://127.0.0.1:9200]
//	    indexPrefix: ontoindex-     # every index and alias name starts with it
//	    shards: 1                   # primary shards of each index
//	    replicas: 1                 # replicas of each shard
//	    username: ${OS_USER}        # optional, HTTP basic auth
//	    password: ${OS_PASSWORD}
//	    caFile: /etc/indexer/os-ca.pem   # optional, PEM CAs of https URLs
//	    embeddedIndex: full         # full (default) or none
//	    connectionsPerNode: 64      # requests in a node at once, from this indexer
type Backend struct {
	Type        string   `yaml:"type" json:"type"`
	URLs        []string `yaml:"urls" json:"urls"`
	IndexPrefix string   `yaml:"indexPrefix" json:"indexPrefix,omitempty"`
	Shards      int      `yaml:"shards" json:"shards,omitempty"`
	// Replicas is a pointer because 0 (no replica, a one-node cluster) is
	// a value, not the default.
	Replicas *int   `yaml:"replicas" json:"replicas,omitempty"`
	Username string `yaml:"username" json:"username,omitempty"`
	Password string `yaml:"password" json:"-"`
	// CAFile is a PEM file of the CAs that sign the cluster's certificate
	// (relative paths: to the config file); empty: the system's CAs.
	CAFile string `yaml:"caFile" json:"caFile,omitempty"`
	// EmbeddedIndex is what the indexer keeps of the embedded index for
	// the object types of the backend: EmbeddedIndexFull, the whole
	// in-memory index beside the backend (reads the backend refuses fall
	// back to it), or EmbeddedIndexNone, none of it (memory that does not
	// grow with the objects; those reads are refused).
	EmbeddedIndex string `yaml:"embeddedIndex" json:"embeddedIndex,omitempty"`
	// ConnectionsPerNode bounds the connections the indexer opens to each
	// node, and so the requests it has in a node at once: reads hold no
	// admission slot while they wait on the cluster, so this is what
	// keeps a flood of clients from being as many requests in the nodes.
	// Past it, a request waits for a connection, at most until its
	// deadline.
	ConnectionsPerNode int `yaml:"connectionsPerNode" json:"connectionsPerNode,omitempty"`
}

// Backend types.
const (
	BackendOpenSearch = "opensearch"
)

// Backend defaults.
const (
	DefaultIndexPrefix = "ontoindex-"
	DefaultShards      = 1
	DefaultReplicas    = 1 // OpenSearch's own default
	// DefaultEmbeddedIndex keeps every read answered: the backend refuses
	// relevance order, vectors and a few filters and aggregations, which
	// the embedded index answers then.
	DefaultEmbeddedIndex = EmbeddedIndexFull
	// DefaultConnectionsPerNode holds the search bench's 50 clients, whose
	// backend rows were measured with it (benchmarks.md, issue 30).
	DefaultConnectionsPerNode = 64
)

// Values of Backend.EmbeddedIndex.
const (
	EmbeddedIndexFull = "full"
	EmbeddedIndexNone = "none"
)

// WithDefaults returns the backend with every unset key replaced by its
// default.
func (b Backend) WithDefaults() Backend {
	if b.IndexPrefix == "" {
		b.IndexPrefix = DefaultIndexPrefix
	}
	if b.Shards == 0 {
		b.Shards = DefaultShards
	}
	if b.Replicas == nil {
		r := DefaultReplicas
		b.Replicas = &r
	}
	if b.EmbeddedIndex == "" {
		b.EmbeddedIndex = DefaultEmbeddedIndex
	}
	if b.ConnectionsPerNode == 0 {
		b.ConnectionsPerNode = DefaultConnectionsPerNode
	}
	return b
}

// backendServesTypes reports whether the daemon writes the object types
// of a backend of type t into it (and reads them from it): a type that
// names a backend that does not is refused rather than silently served by
// the embedded index.
func backendServesTypes(t string) bool { return t == BackendOpenSearch }

// indexNameForbidden are the characters OpenSearch refuses in index names.
const indexNameForbidden = `\/*?"<>| ,#:`

// validateBackends checks the backends section and the backend: of every
// object type, and fills in the backends' defaults.
func (c *Config) validateBackends() []error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, &objects.FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	names := slices.Sorted(maps.Keys(c.Backends))
	for _, name := range names {
		field := "backends." + name
		b := c.Backends[name].WithDefaults()
		c.Backends[name] = b
		if name == "" || strings.Contains(name, ".") {
			bad(field, "backend names must not be empty or contain dots")
		}
		switch b.Type {
		case BackendOpenSearch:
		case "":
			bad(field+".type", "is required (opensearch)")
			continue
		default:
			bad(field+".type", "%q is not a backend type (opensearch)", b.Type)
			continue
		}
		if len(b.URLs) == 0 {
			bad(field+".urls", "at least one URL is required (http://host:9200)")
		}
		https := false
		for i, raw := range b.URLs {
			u, err := url.Parse(raw)
			switch {
			case err != nil:
				bad(fmt.Sprintf("%s.urls[%d]", field, i), "%q is not a URL: %v", raw, err)
			case u.Scheme != "http" && u.Scheme != "https":
				bad(fmt.Sprintf("%s.urls[%d]", field, i), "%q must be an http or https URL", raw)
			case u.Host == "":
				bad(fmt.Sprintf("%s.urls[%d]", field, i), "%q has no host", raw)
			case u.User != nil:
				bad(fmt.Sprintf("%s.urls[%d]", field, i), "must not hold credentials: use username and password")
			default:
				https = https || u.Scheme == "https"
			}
		}
		if p := b.IndexPrefix; p != strings.ToLower(p) || strings.ContainsAny(p, indexNameForbidden) || strings.ContainsAny(p[:1], "-_+.") {
			bad(field+".indexPrefix", "%q must be lower case, must not start with -, _, + or . and must not hold any of %s", p, indexNameForbidden)
		}
		if b.Shards < 0 {
			bad(field+".shards", "must not be negative")
		}
		if *b.Replicas < 0 {
			bad(field+".replicas", "must not be negative")
		}
		if b.ConnectionsPerNode < 0 {
			bad(field+".connectionsPerNode", "must be at least 1 (0: %d)", DefaultConnectionsPerNode)
		}
		if (b.Username == "") != (b.Password == "") {
			bad(field+".password", "username and password go together")
		}
		if b.EmbeddedIndex != EmbeddedIndexFull && b.EmbeddedIndex != EmbeddedIndexNone {
			bad(field+".embeddedIndex", "%q is neither %s nor %s", b.EmbeddedIndex, EmbeddedIndexFull, EmbeddedIndexNone)
		}
		if b.CAFile != "" && !https {
			bad(field+".caFile", "is for https URLs, and every URL is http")
		}
	}
	for i, ot := range c.ObjectTypes {
		if ot.Backend == "" {
			continue
		}
		field := fmt.Sprintf("objectTypes[%d].backend", i)
		b, ok := c.Backends[ot.Backend]
		switch {
		case !ok && len(names) == 0:
			bad(field, "backend %q is not configured (there is no backends section)", ot.Backend)
		case !ok:
			bad(field, "backend %q is not configured (backends: %s)", ot.Backend, strings.Join(names, ", "))
		case !backendServesTypes(b.Type):
			bad(field, "the %s backend does not serve object types: remove backend: to index %s in the embedded index", b.Type, ot.APIName)
		}
	}
	return errs
}
