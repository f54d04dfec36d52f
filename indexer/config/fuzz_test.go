package config_test

import (
	"os"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/internal/testkit/leaktest"
)

// fuzzToken is the token the fuzzer's environment holds: a config that
// names it with ${FUZZ_TOKEN} must keep only its digest.
const fuzzToken = "fuzz-token-0123456789"

// configSeeds are configs of every section, good and bad.
var configSeeds = []string{
	`
ontology: {apiName: default, displayName: Default Ontology}
dataDir: ./data
catalogs:
  warehouse: {type: hadoop, warehouse: "${WH_DIR:-./warehouse}"}
objectTypes:
  - apiName: Customer
    table: warehouse.sales.customers
    primaryKey: [customer_id]
    titleProperty: name
    properties:
      customerId: {column: customer_id}
      name: {column: name, search: text}
    pollInterval: 30s
    readMode: appendOnly
    onInvalidRow: fail
  - apiName: Order
    table: warehouse.sales.orders
    links:
      - {apiName: customer, target: Customer, foreignKey: customerId, reverseApiName: orders}
      - apiName: tags
        target: Tag
        through: {table: warehouse.sales.order_tags, sourceKey: order_id, targetKey: tag_code}
  - {apiName: Tag, table: warehouse.sales.tags}
build: {batchRows: 100, chunkRows: 1000}
daemon: {pollInterval: 50ms, retryBackoff: 1s, maxRetryBackoff: 1m, maxConcurrentBuilds: 2}
server: {listen: "0.0.0.0:8080", maxPageSize: 100, requestTimeout: 5s}
auth:
  tokens:
    - {name: app, token: "${FUZZ_TOKEN}", objectTypes: ["*"]}
    - {name: ops, sha256: 0000000000000000000000000000000000000000000000000000000000000000, objectTypes: [Customer], admin: true}
`,
	"catalogs: {w: {type: sql, uri: 'sqlite:///tmp/x.db'}}\nobjectTypes: [{apiName: A, table: w.a.b}]\n",
	"objectTypes: [{apiName: A, table: w.a.b}]\n",
	"catalogs: {w: {type: hadoop, warehouse: x}}\nobjectTypes: [{apiName: A, table: w.a.b}]\nbackends: {c: {type: opensearch, urls: ['https://h:9200'], shards: 2, replicas: 0, username: u, password: p, caFile: ca.pem}}\n",
	"catalogs: {w: {type: hadoop, warehouse: x}}\nobjectTypes: [{apiName: A, table: w.a.b, backend: c}]\nbackends: {c: {type: opensearch, urls: ['http://h:9200']}}\n",
	"dataDir: ''\n",
	"dataDir: '${FUZZ_TOKEN}'\ncatalogs: {w: {type: hadoop, warehouse: x}}\nobjectTypes: [{apiName: A, table: w.a.b}]\n",
	"a: &a [*a]\n",
	"x: &x {y: *x}\n",
	"- - - - -\n",
	"${UNSET_FOR_FUZZ}\n",
	"# ${UNSET_FOR_FUZZ}\ndataDir: x # ${UNSET_FOR_FUZZ}\n",
	"server: {listen: 'nope'}\n",
	"\xff\xfe",
	"",
}

// FuzzParse parses arbitrary config files: every one is a config or an
// error, never a panic; a config validates again as it is (Validate is
// idempotent), and its auth section holds the token of its environment
// only as a digest.
func FuzzParse(f *testing.F) {
	f.Setenv("FUZZ_TOKEN", fuzzToken)
	if raw, err := os.ReadFile("../../etc/indexer/ontology.yaml"); err == nil {
		f.Add(raw)
	}
	for _, s := range configSeeds {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, raw []byte) {
		cfg, err := config.Parse(raw, dir)
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatalf("an error without a message for %q", raw)
			}
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("a parsed config does not validate again: %v\n%s", err, raw)
		}
		for i, tok := range cfg.Auth.Tokens {
			if tok.Token != "" {
				t.Fatalf("auth.tokens[%d] kept in plain text:\n%s", i, raw)
			}
		}
		// Only the auth section: a fuzzed file may put ${FUZZ_TOKEN} in
		// any field (a data dir, a catalog property, a backend's
		// password), which then holds it as written, as it should.
		if path := leaktest.Find(cfg.Auth, fuzzToken); path != "" {
			t.Fatalf("the auth section holds the token at %s:\n%s", path, raw)
		}
	})
}
