package config

import (
	"strings"
	"testing"
)

// backendBase is a valid config with one backend that no type uses.
const backendBase = `
catalogs: {w: {type: hadoop, warehouse: ./wh}}
objectTypes:
  - apiName: Flight
    table: w.ops.flights
backends:
  cluster:
    type: opensearch
    urls: [http://127.0.0.1:9200]
`

func TestConfig_backends(t *testing.T) {
	t.Setenv("OS_USER", "indexer")
	t.Setenv("OS_PASSWORD", "s3cret-pass")
	t.Run("defaults", func(t *testing.T) {
		cfg, err := Parse([]byte(backendBase), "/etc/onto")
		if err != nil {
			t.Fatal(err)
		}
		b := cfg.Backends["cluster"]
		if b.Type != BackendOpenSearch || b.IndexPrefix != DefaultIndexPrefix || b.Shards != DefaultShards || b.Replicas == nil || *b.Replicas != DefaultReplicas || b.EmbeddedIndex != EmbeddedIndexFull || b.ConnectionsPerNode != DefaultConnectionsPerNode {
			t.Errorf("backend = %+v, want the defaults", b)
		}
		if err := cfg.Validate(); err != nil {
			t.Errorf("validates once, not twice: %v", err)
		}
	})
	t.Run("every key, with env", func(t *testing.T) {
		cfg, err := Parse([]byte(backendBase+`    indexPrefix: onto-
    shards: 3
    replicas: 0
    username: ${OS_USER}
    password: ${OS_PASSWORD}
    embeddedIndex: none
    connectionsPerNode: 12
`), "/etc/onto")
		if err != nil {
			t.Fatal(err)
		}
		b := cfg.Backends["cluster"]
		if b.IndexPrefix != "onto-" || b.Shards != 3 || *b.Replicas != 0 || b.Username != "indexer" || b.Password != "s3cret-pass" || b.EmbeddedIndex != EmbeddedIndexNone || b.ConnectionsPerNode != 12 {
			t.Errorf("backend = %+v", b)
		}
		if got := cfg.Redact("auth failed for s3cret-pass"); strings.Contains(got, "s3cret-pass") {
			t.Errorf("the backend's password is not redacted: %q", got)
		}
	})
	t.Run("https with caFile", func(t *testing.T) {
		yaml := strings.Replace(backendBase, "http://", "https://", 1) + "    caFile: ca.pem\n"
		cfg, err := Parse([]byte(yaml), "/etc/onto")
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.Path(cfg.Backends["cluster"].CAFile); got != "/etc/onto/ca.pem" {
			t.Errorf("caFile resolves to %s", got)
		}
	})

	t.Run("a type in the backend", func(t *testing.T) {
		cfg, err := Parse([]byte(strings.Replace(backendBase, "table: w.ops.flights", "table: w.ops.flights\n    backend: cluster", 1)), "/etc/onto")
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.ObjectTypes[0].Backend; got != "cluster" {
			t.Errorf("backend = %q, want cluster", got)
		}
	})

	tests := []struct {
		name, yaml, want string
	}{
		{"unknown key", backendBase + "    shard: 2\n", `backends.cluster.shard: unknown key "shard"; did you mean shards?`},
		{"no type", strings.Replace(backendBase, "    type: opensearch\n", "", 1), "backends.cluster.type: is required"},
		{"unknown type", strings.Replace(backendBase, "type: opensearch", "type: elastic", 1), `backends.cluster.type: "elastic" is not a backend type`},
		{"no urls", strings.Replace(backendBase, "urls: [http://127.0.0.1:9200]", "urls: []", 1), "backends.cluster.urls: at least one URL"},
		{"bad url", strings.Replace(backendBase, "http://127.0.0.1:9200", "127.0.0.1:9200", 1), "backends.cluster.urls[0]"},
		{"ftp url", strings.Replace(backendBase, "http://", "ftp://", 1), "backends.cluster.urls[0]: \"ftp://127.0.0.1:9200\" must be an http or https URL"},
		{"no host", strings.Replace(backendBase, "http://127.0.0.1:9200", "http://", 1), "backends.cluster.urls[0]: \"http://\" has no host"},
		{"credentials in url", strings.Replace(backendBase, "http://", "http://u:p@", 1), "backends.cluster.urls[0]: must not hold credentials"},
		{"negative shards", backendBase + "    shards: -1\n", "backends.cluster.shards: must not be negative"},
		{"negative replicas", backendBase + "    replicas: -2\n", "backends.cluster.replicas: must not be negative"},
		{"upper-case prefix", backendBase + "    indexPrefix: Onto-\n", "backends.cluster.indexPrefix"},
		{"prefix with a star", backendBase + "    indexPrefix: onto*\n", "backends.cluster.indexPrefix"},
		{"prefix starting with _", backendBase + "    indexPrefix: _onto\n", "backends.cluster.indexPrefix"},
		{"negative connectionsPerNode", backendBase + "    connectionsPerNode: -1\n", "backends.cluster.connectionsPerNode: must be at least 1 (0: 64)"},
		{"username alone", backendBase + "    username: u\n", "backends.cluster.password: username and password go together"},
		{"caFile with http", backendBase + "    caFile: ca.pem\n", "backends.cluster.caFile: is for https URLs"},
		{"bad embeddedIndex", backendBase + "    embeddedIndex: keys\n", `backends.cluster.embeddedIndex: "keys" is neither full nor none`},
		{"unset password env", backendBase + "    username: u\n    password: ${ONTOINDEX_TEST_UNSET}\n", "ONTOINDEX_TEST_UNSET is not set"},
		{"unknown backend", strings.Replace(backendBase, "table: w.ops.flights", "table: w.ops.flights\n    backend: clutser", 1), `objectTypes[0].backend: backend "clutser" is not configured (backends: cluster)`},
		{"no backends", "catalogs: {w: {type: hadoop, warehouse: ./wh}}\nobjectTypes: [{apiName: A, table: w.a.b, backend: cluster}]\n", `objectTypes[0].backend: backend "cluster" is not configured (there is no backends section)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml), "/tmp")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}
