package serverconfig_test

import (
	"crypto/sha256"
	"encoding/hex"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/api/serverconfig"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/leaktest"
)

const serverBase = `
dataDir: ./data
catalogs:
  lake: {type: hadoop, warehouse: ./warehouse}
objectTypes:
  - {apiName: Person, table: lake.ns.people}
  - {apiName: Order, table: lake.ns.orders}
`

func TestValidate_defaults(t *testing.T) {
	cfg, err := config.Parse([]byte(serverBase), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	want := serverconfig.Server{
		Listen: "127.0.0.1:8080", MaxBodyBytes: 1 << 20, DefaultPageSize: 1000, MaxPageSize: 10000,
		RequestTimeout: 30 * time.Second, ShutdownTimeout: 10 * time.Second, MaxWhereDepth: 32, MaxWhereClauses: 1000,
		MaxQueryTerms: 100000, MaxAggregationGroups: 10000, MaxConcurrentRequests: 4 * runtime.GOMAXPROCS(0),
		MaxDerivedObjects: 40_000_000,
		ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 60 * time.Second, WriteTimeout: 2 * time.Minute,
		IdleTimeout: 60 * time.Second, MaxHeaderBytes: 64 << 10,
		Subscriptions: serverconfig.Subscriptions{MaxPerConnection: 1000, MaxTotal: 100_000, MaxConnections: 10_000,
			MaxMessageBytes: 8 << 20, QueueLength: 256, Heartbeat: 30 * time.Second, WriteTimeout: 30 * time.Second},
		TemporaryObjectSets: serverconfig.TemporaryObjectSets{Expiry: time.Hour, MaxSets: 10_000, MaxBytes: 64 << 20},
		SnapshotListings:    serverconfig.SnapshotListings{Retention: 5 * time.Minute, MaxListings: 1000},
	}
	if !reflect.DeepEqual(cfg.Server, want) {
		t.Fatalf("got %+v\nwant %+v", cfg.Server, want)
	}
}

func TestValidate(t *testing.T) {
	t.Setenv("APP_TOKEN", "app-token-0123456789")
	t.Setenv("EMPTY_TOKEN", "")
	digest := sha256.Sum256([]byte("other-token-0123"))
	hexDigest := hex.EncodeToString(digest[:])
	tests := []struct {
		name  string
		yaml  string
		field string // "" for a valid config
	}{
		{"set values", "server: {listen: '0.0.0.0:9000', maxBodyBytes: 2048, maxPageSize: 50, defaultPageSize: 10, requestTimeout: 5s, maxWhereDepth: 4, maxWhereClauses: 9, maxQueryTerms: 7, maxAggregationGroups: 3, maxConcurrentRequests: 5, maxDerivedObjects: 1000}\nauth: {tokens: [{name: app, token: '${APP_TOKEN}', objectTypes: ['*']}]}", ""},
		{"token by digest", "auth: {tokens: [{name: app, sha256: " + hexDigest + ", objectTypes: [Person]}]}", ""},
		{"ipv6 loopback", "server: {listen: '[::1]:8080'}", ""},
		{"localhost", "server: {listen: 'localhost:8080'}", ""},
		{"bad listen", "server: {listen: '8080'}", "server.listen"},
		{"bad port", "server: {listen: '127.0.0.1:http2'}", "server.listen"},
		{"negative body", "server: {maxBodyBytes: -1}", "server.maxBodyBytes"},
		{"negative page size", "server: {maxPageSize: -5}", "server.maxPageSize"},
		{"default above max", "server: {maxPageSize: 10, defaultPageSize: 11}", "server.defaultPageSize"},
		{"negative timeout", "server: {requestTimeout: -1s}", "server.requestTimeout"},
		{"negative depth", "server: {maxWhereDepth: -1}", "server.maxWhereDepth"},
		{"no bound on requests", "server: {maxConcurrentRequests: -1}", ""},
		{"bad bound on requests", "server: {maxConcurrentRequests: -2}", "server.maxConcurrentRequests"},
		{"no bound on derived objects", "server: {maxDerivedObjects: -1}", ""},
		{"bad bound on derived objects", "server: {maxDerivedObjects: -2}", "server.maxDerivedObjects"},
		{"anonymous on all interfaces", "server: {listen: ':8080'}", "auth.tokens"},
		{"anonymous on a public address", "server: {listen: '192.0.2.7:8080'}", "auth.tokens"},
		{"token without name", "auth: {tokens: [{token: '${APP_TOKEN}', objectTypes: ['*']}]}", "auth.tokens[0].name"},
		{"duplicate names", "auth: {tokens: [{name: a, token: '${APP_TOKEN}', objectTypes: ['*']}, {name: a, sha256: " + hexDigest + ", objectTypes: ['*']}]}", "auth.tokens[1].name"},
		{"same token twice", "auth: {tokens: [{name: a, token: other-token-0123, objectTypes: ['*']}, {name: b, sha256: " + hexDigest + ", objectTypes: ['*']}]}", "auth.tokens[1]"},
		{"empty token", "auth: {tokens: [{name: a, token: '${EMPTY_TOKEN}', objectTypes: ['*']}]}", "auth.tokens[0].token"},
		{"short token", "auth: {tokens: [{name: a, token: abc, objectTypes: ['*']}]}", "auth.tokens[0].token"},
		{"token and digest", "auth: {tokens: [{name: a, token: '${APP_TOKEN}', sha256: " + hexDigest + ", objectTypes: ['*']}]}", "auth.tokens[0]"},
		{"bad digest", "auth: {tokens: [{name: a, sha256: abc, objectTypes: ['*']}]}", "auth.tokens[0].sha256"},
		{"no object types", "auth: {tokens: [{name: a, token: '${APP_TOKEN}'}]}", "auth.tokens[0].objectTypes"},
		{"unknown object type", "auth: {tokens: [{name: a, token: '${APP_TOKEN}', objectTypes: [Person, Nope]}]}", "auth.tokens[0].objectTypes[1]"},
		{"unknown key", "server: {listen: '127.0.0.1:1', port: 2}", "port"},
		{"tls", "server: {tls: {certFile: c.pem, keyFile: k.pem, clientCAFile: ca.pem, clientAuth: verifyIfGiven, minVersion: '1.3'}}", ""},
		{"tls without key", "server: {tls: {certFile: c.pem}}", "server.tls.keyFile"},
		{"tls without cert", "server: {tls: {keyFile: k.pem}}", "server.tls.certFile"},
		{"tls client CA without cert", "server: {tls: {clientCAFile: ca.pem}}", "server.tls.certFile"},
		{"tls bad client auth", "server: {tls: {certFile: c.pem, keyFile: k.pem, clientCAFile: ca.pem, clientAuth: always}}", "server.tls.clientAuth"},
		{"tls client auth without CA", "server: {tls: {certFile: c.pem, keyFile: k.pem, clientAuth: require}}", "server.tls.clientCAFile"},
		{"tls bad version", "server: {tls: {certFile: c.pem, keyFile: k.pem, minVersion: '1.1'}}", "server.tls.minVersion"},
		{"timeouts", "server: {readHeaderTimeout: 1s, readTimeout: 2s, writeTimeout: 31s, idleTimeout: 3s, maxHeaderBytes: 4096}", ""},
		{"negative header timeout", "server: {readHeaderTimeout: -1s}", "server.readHeaderTimeout"},
		{"negative idle timeout", "server: {idleTimeout: -1s}", "server.idleTimeout"},
		{"read shorter than header", "server: {readHeaderTimeout: 5s, readTimeout: 2s}", "server.readTimeout"},
		{"write within request timeout", "server: {requestTimeout: 30s, writeTimeout: 30s}", "server.writeTimeout"},
		{"negative header bytes", "server: {maxHeaderBytes: -1}", "server.maxHeaderBytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := config.Parse([]byte(serverBase+tt.yaml+"\n"), t.TempDir())
			if tt.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				if tt.name == "set values" && (cfg.Server.MaxPageSize != 50 || cfg.Server.RequestTimeout != 5*time.Second || cfg.Server.MaxAggregationGroups != 3 || cfg.Server.MaxConcurrentRequests != 5 || cfg.Server.MaxDerivedObjects != 1000) {
					t.Fatalf("got %+v", cfg.Server)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.field+":") && !strings.Contains(err.Error(), tt.field) {
				t.Fatalf("err = %v, want one naming %s", err, tt.field)
			}
		})
	}
}

func TestToken_Digest(t *testing.T) {
	d1, err := serverconfig.Token{Token: "secret-token"}.Digest()
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("secret-token"))
	d2, err := serverconfig.Token{SHA256: strings.ToUpper(hex.EncodeToString(sum[:]))}.Digest()
	if err != nil || d1 != d2 || d1 != sum {
		t.Fatalf("digests differ: %x %x %v", d1, d2, err)
	}
}

func TestLoopbackAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true, "127.1.2.3:1": true, "[::1]:80": true, "localhost:0": true, "LOCALHOST:1": true,
		"0.0.0.0:8080": false, ":8080": false, "[::]:80": false, "10.0.0.1:80": false, "example.com:80": false, "garbage": false,
	} {
		if got := serverconfig.LoopbackAddr(addr); got != want {
			t.Errorf("LoopbackAddr(%q) = %v, want %v", addr, got, want)
		}
	}
}

// TestValidate_tokenDigests checks that a config, once parsed, holds a
// token given in plain text (here from the environment) only as its
// digest, that the digest authenticates the same token, and that
// validating again keeps it so.
func TestValidate_tokenDigests(t *testing.T) {
	const token = "plain-token-from-env-0123"
	t.Setenv("APP_TOKEN", token)
	sum := sha256.Sum256([]byte(token))
	cfg, err := config.Parse([]byte(serverBase+`auth:
  tokens:
    - {name: app, token: "${APP_TOKEN}", objectTypes: ["*"]}
`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		tok := cfg.Auth.Tokens[0]
		if tok.Token != "" || tok.SHA256 != hex.EncodeToString(sum[:]) {
			t.Fatalf("token %+v, want only its digest", tok)
		}
		if d, err := tok.Digest(); err != nil || d != sum {
			t.Fatalf("digest %x, %v", d, err)
		}
		if path := leaktest.Find(cfg, token); path != "" {
			t.Fatalf("the config holds the token at %s", path)
		}
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestValidate_tlsDefaults(t *testing.T) {
	cfg, err := config.Parse([]byte(serverBase+"server: {tls: {certFile: c.pem, keyFile: k.pem, clientCAFile: ca.pem}, requestTimeout: 90s}\n"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	want := serverconfig.TLS{CertFile: "c.pem", KeyFile: "k.pem", ClientCAFile: "ca.pem", ClientAuth: "require", MinVersion: "1.2"}
	if cfg.Server.TLS != want || !cfg.Server.TLS.Enabled() {
		t.Fatalf("tls = %+v, want %+v", cfg.Server.TLS, want)
	}
	// The default write timeout follows the request timeout: it must
	// leave the request its whole time and the response some.
	if got := cfg.Server.WriteTimeout; got != 60*time.Second+90*time.Second+serverconfig.DefaultWriteMargin {
		t.Fatalf("writeTimeout = %s", got)
	}
}
