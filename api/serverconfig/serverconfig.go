package serverconfig

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ontoindex/ontoindex/objects"
)

// Server configures the HTTP server of `indexer serve` (the search
// API and the ops endpoints). Owned by the API. Zero values take the
// defaults below (Validate fills them in).
type Server struct {
	// Listen is the address to listen on (host:port).
	Listen string `yaml:"listen" json:"listen"`
	// MaxBodyBytes bounds request bodies; larger ones get 413.
	MaxBodyBytes int64 `yaml:"maxBodyBytes" json:"maxBodyBytes"`
	// DefaultPageSize is the page size when a request names none.
	DefaultPageSize int `yaml:"defaultPageSize" json:"defaultPageSize"`
	// MaxPageSize is the largest pageSize a request may ask for.
	MaxPageSize int `yaml:"maxPageSize" json:"maxPageSize"`
	// RequestTimeout bounds the time a request may take.
	RequestTimeout time.Duration `yaml:"requestTimeout" json:"requestTimeout"`
	// ShutdownTimeout bounds the wait for running requests on shutdown.
	ShutdownTimeout time.Duration `yaml:"shutdownTimeout" json:"shutdownTimeout"`
	// MaxWhereDepth bounds the nesting of where clauses and object sets.
	MaxWhereDepth int `yaml:"maxWhereDepth" json:"maxWhereDepth"`
	// MaxWhereClauses bounds the number of clauses (nodes) of one where
	// clause or object set, and the values of in queries and static sets.
	MaxWhereClauses int `yaml:"maxWhereClauses" json:"maxWhereClauses"`
	// MaxQueryTerms bounds the index terms one prefix or fuzzy text query
	// may expand to (ranges do not expand; wildcards and regexes that
	// match more values scan them instead).
	MaxQueryTerms int `yaml:"maxQueryTerms" json:"maxQueryTerms"`
	// MaxAggregationGroups bounds the groups one aggregation may return.
	MaxAggregationGroups int `yaml:"maxAggregationGroups" json:"maxAggregationGroups"`
	// MaxConcurrentRequests bounds the ontology API requests that run at
	// once; the others wait in turn (0: DefaultRequestsPerCPU per CPU the
	// process may use; -1: no bound). A request waiting on a search
	// backend's answer does not count (api/admit.go).
	MaxConcurrentRequests int `yaml:"maxConcurrentRequests" json:"maxConcurrentRequests"`
	// MaxDerivedObjects bounds the objects that the derived property
	// evaluations in flight read into memory, over all requests: each
	// evaluation is weighed, before it reads, by the objects of its set
	// and those its links may reach; the others wait in turn, and one
	// heavier than the whole bound runs alone (0: DefaultMaxDerivedObjects;
	// -1: no bound).
	MaxDerivedObjects int64 `yaml:"maxDerivedObjects" json:"maxDerivedObjects"`
	// TLS, when its certFile is set, serves HTTPS (and HTTP/2) instead of
	// cleartext HTTP/1.1 (tls.go).
	TLS TLS `yaml:"tls" json:"tls"`
	// ReadHeaderTimeout bounds reading a request's headers, from the
	// accept (or the end of the TLS handshake) for a connection's first
	// request and from its first byte for the next ones.
	ReadHeaderTimeout time.Duration `yaml:"readHeaderTimeout" json:"readHeaderTimeout"`
	// ReadTimeout bounds reading a whole request, headers and body.
	ReadTimeout time.Duration `yaml:"readTimeout" json:"readTimeout"`
	// WriteTimeout bounds a request from the end of its headers to the
	// last byte of its response: reading the body, the request's work and
	// writing the response (it must exceed RequestTimeout).
	WriteTimeout time.Duration `yaml:"writeTimeout" json:"writeTimeout"`
	// IdleTimeout closes a kept-alive connection that sends no next
	// request for this long.
	IdleTimeout time.Duration `yaml:"idleTimeout" json:"idleTimeout"`
	// MaxHeaderBytes bounds the request line and headers of a request.
	MaxHeaderBytes int `yaml:"maxHeaderBytes" json:"maxHeaderBytes"`
	// Subscriptions configures live object set subscriptions
	// (subscriptions.go).
	Subscriptions Subscriptions `yaml:"subscriptions" json:"subscriptions"`
	// TemporaryObjectSets configures the object sets createTemporary
	// stores (temporary_sets.go).
	TemporaryObjectSets TemporaryObjectSets `yaml:"temporaryObjectSets" json:"temporaryObjectSets"`
	// SnapshotListings configures the snapshots held for listings with
	// snapshot: true (snapshot_listings.go).
	SnapshotListings SnapshotListings `yaml:"snapshotListings" json:"snapshotListings"`
}

// Server defaults.
const (
	DefaultListen               = "127.0.0.1:8080"
	DefaultMaxBodyBytes         = 1 << 20
	DefaultPageSize             = 1000
	DefaultMaxPageSize          = 10000
	DefaultRequestTimeout       = 30 * time.Second
	DefaultShutdownTimeout      = 10 * time.Second
	DefaultMaxWhereDepth        = 32
	DefaultMaxWhereClauses      = 1000
	DefaultMaxQueryTerms        = 100_000
	DefaultMaxAggregationGroups = 10_000
	DefaultRequestsPerCPU       = 4 // maxConcurrentRequests per GOMAXPROCS
	DefaultReadHeaderTimeout    = 10 * time.Second
	DefaultReadTimeout          = 60 * time.Second
	DefaultIdleTimeout          = 60 * time.Second
	DefaultMaxHeaderBytes       = 64 << 10
	// DefaultWriteMargin is what the default writeTimeout leaves for
	// writing a response, beyond reading the body (readTimeout) and the
	// request's work (requestTimeout): net/http's write deadline runs from
	// the end of the headers, so a shorter one could cut a response the
	// request was allowed to compute.
	DefaultWriteMargin = 30 * time.Second
	// DefaultMaxDerivedObjects is two evaluations over a 10M-object type
	// and the 10M objects of one link: about 32 bytes an object of weight
	// (docs/benchmarks.md), so 1.3 GB.
	DefaultMaxDerivedObjects = 40_000_000
)

// Auth configures bearer-token authentication. With no tokens the
// server serves anonymously, and only on a loopback address.
type Auth struct {
	Tokens []Token `yaml:"tokens" json:"tokens"`
}

// Token is one API token: the token itself, or the hex SHA-256 digest
// of it, the object types it may see ("*" for all) and whether it may call
// the ops POST endpoints. Validate replaces a token given in plain text by
// its digest, so that the config a server keeps never holds the token.
type Token struct {
	Name        string   `yaml:"name" json:"name"`
	Token       string   `yaml:"token" json:"-"`
	SHA256      string   `yaml:"sha256" json:"-"`
	ObjectTypes []string `yaml:"objectTypes" json:"objectTypes"`
	Admin       bool     `yaml:"admin" json:"admin"`
}

// Digest returns the SHA-256 digest the token is compared against.
func (t Token) Digest() ([sha256.Size]byte, error) {
	var d [sha256.Size]byte
	if t.SHA256 != "" {
		b, err := hex.DecodeString(strings.TrimSpace(t.SHA256))
		if err != nil || len(b) != sha256.Size {
			return d, fmt.Errorf("must be the 64 hex digits of a SHA-256 digest")
		}
		copy(d[:], b)
		return d, nil
	}
	return sha256.Sum256([]byte(t.Token)), nil
}

// AllTypes reports whether the token may see every object type.
func (t Token) AllTypes() bool { return slices.Contains(t.ObjectTypes, "*") }

// LoopbackAddr reports whether a listen address (host:port) binds only to
// a loopback interface: localhost, 127.0.0.0/8 or ::1. An empty host binds
// every interface and is not loopback.
func LoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// Validate checks the server and auth sections, fills in the defaults
// of zero values and replaces each valid token by its digest (Token).
// isType tells whether a token's object type is one of the config's.
func Validate(s *Server, a *Auth, isType func(apiName string) bool) []error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, &objects.FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	if s.Listen == "" {
		s.Listen = DefaultListen
	}
	if err := checkListen(s.Listen); err != nil {
		bad("server.listen", "%v", err)
	}
	defaults := []struct {
		field string
		v     *int
		def   int
	}{
		{"server.maxPageSize", &s.MaxPageSize, DefaultMaxPageSize},
		{"server.maxWhereDepth", &s.MaxWhereDepth, DefaultMaxWhereDepth},
		{"server.maxWhereClauses", &s.MaxWhereClauses, DefaultMaxWhereClauses},
		{"server.maxQueryTerms", &s.MaxQueryTerms, DefaultMaxQueryTerms},
		{"server.maxAggregationGroups", &s.MaxAggregationGroups, DefaultMaxAggregationGroups},
	}
	for _, d := range defaults {
		switch {
		case *d.v < 0:
			bad(d.field, "must not be negative")
		case *d.v == 0:
			*d.v = d.def
		}
	}
	switch {
	case s.DefaultPageSize < 0:
		bad("server.defaultPageSize", "must not be negative")
	case s.DefaultPageSize == 0:
		s.DefaultPageSize = min(DefaultPageSize, s.MaxPageSize)
	case s.MaxPageSize > 0 && s.DefaultPageSize > s.MaxPageSize:
		bad("server.defaultPageSize", "%d is larger than server.maxPageSize (%d)", s.DefaultPageSize, s.MaxPageSize)
	}
	switch {
	case s.MaxConcurrentRequests < -1:
		bad("server.maxConcurrentRequests", "must be positive, 0 for the default or -1 for no bound")
	case s.MaxConcurrentRequests == 0:
		s.MaxConcurrentRequests = DefaultRequestsPerCPU * runtime.GOMAXPROCS(0)
	}
	switch {
	case s.MaxDerivedObjects < -1:
		bad("server.maxDerivedObjects", "must be positive, 0 for the default or -1 for no bound")
	case s.MaxDerivedObjects == 0:
		s.MaxDerivedObjects = DefaultMaxDerivedObjects
	}
	switch {
	case s.MaxBodyBytes < 0:
		bad("server.maxBodyBytes", "must not be negative")
	case s.MaxBodyBytes == 0:
		s.MaxBodyBytes = DefaultMaxBodyBytes
	}
	switch {
	case s.RequestTimeout < 0:
		bad("server.requestTimeout", "must not be negative")
	case s.RequestTimeout == 0:
		s.RequestTimeout = DefaultRequestTimeout
	}
	switch {
	case s.ShutdownTimeout < 0:
		bad("server.shutdownTimeout", "must not be negative")
	case s.ShutdownTimeout == 0:
		s.ShutdownTimeout = DefaultShutdownTimeout
	}
	errs = append(errs, validateConnection(s)...)
	errs = append(errs, s.Subscriptions.validate()...)
	errs = append(errs, s.TemporaryObjectSets.validate()...)
	errs = append(errs, s.SnapshotListings.validate()...)

	names := map[string]int{}
	digests := map[[sha256.Size]byte]int{}
	for i, t := range a.Tokens {
		field := fmt.Sprintf("auth.tokens[%d]", i)
		if t.Name == "" {
			bad(field+".name", "is required (it names the token in logs)")
		} else if j, dup := names[t.Name]; dup {
			bad(field+".name", "%q is already used by auth.tokens[%d]", t.Name, j)
		} else {
			names[t.Name] = i
		}
		switch {
		case t.Token != "" && t.SHA256 != "":
			bad(field, "set either token or sha256, not both")
			continue
		case t.Token == "" && t.SHA256 == "":
			bad(field+".token", "is required (or sha256: the hex SHA-256 digest of the token); an empty value usually means its environment variable is empty")
			continue
		case t.Token != "" && len(t.Token) < 8:
			bad(field+".token", "is too short: use at least 8 characters")
			continue
		}
		d, err := t.Digest()
		if err != nil {
			bad(field+".sha256", "%v", err)
			continue
		}
		// From here on the config holds only the digest: it lives as long
		// as the server, and a heap dump or a stray log of it must not
		// give the token away.
		a.Tokens[i].Token, a.Tokens[i].SHA256 = "", hex.EncodeToString(d[:])
		if j, dup := digests[d]; dup {
			bad(field, "has the same token as auth.tokens[%d]", j)
		}
		digests[d] = i
		if len(t.ObjectTypes) == 0 {
			bad(field+".objectTypes", `is required: a list of object type apiNames, or ["*"] for all`)
		}
		for k, name := range t.ObjectTypes {
			if name == "*" {
				continue
			}
			if !isType(name) {
				bad(fmt.Sprintf("%s.objectTypes[%d]", field, k), "%q is not an object type of the config", name)
			}
		}
	}
	if len(a.Tokens) == 0 && s.Listen != "" && checkListen(s.Listen) == nil && !LoopbackAddr(s.Listen) {
		bad("auth.tokens", "no tokens are configured, so the server may only listen on a loopback address (127.0.0.1, ::1, localhost), not %q; configure auth.tokens to serve on other addresses", s.Listen)
	}
	return errs
}

// checkListen checks a host:port listen address.
func checkListen(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not host:port: %v", addr, err)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("%q: port %q is not a number from 0 to 65535", addr, port)
	}
	return nil
}
