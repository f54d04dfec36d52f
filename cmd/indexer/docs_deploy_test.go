package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/config"
)

// TestDocs_deployments: the catalogs of docs/deployments.md are a valid
// config, and every credential they take from the environment is one that
// errors and logs redact.
func TestDocs_deployments(t *testing.T) {
	sec := docSection(t, "../../docs/deployments.md", "## Catalog examples")
	_, block, ok := strings.Cut(sec, "```yaml\n")
	if !ok {
		t.Fatal("docs/deployments.md has no yaml block under ## Catalog examples")
	}
	block, _, _ = strings.Cut(block, "```")
	secrets := map[string]bool{}
	for _, m := range regexp.MustCompile(`\$\{([A-Z0-9_]+)\}`).FindAllStringSubmatch(block, -1) {
		v := "docs-value-of-" + m[1]
		t.Setenv(m[1], v)
		if strings.Contains(m[1], "SECRET") || strings.Contains(m[1], "PASSWORD") || strings.Contains(m[1], "TOKEN") {
			secrets[v] = true
		}
	}
	cfg, err := config.Parse([]byte(block+"dataDir: ./data\nobjectTypes: [{apiName: Customer, table: lake.sales.customers, primaryKey: [id]}]\n"), t.TempDir())
	if err != nil {
		t.Fatalf("the catalogs of docs/deployments.md: %v", err)
	}
	types := map[string]string{"lake": "sql", "local": "sql", "polaris": "rest", "lakekeeper": "rest", "nessie": "rest", "gluerest": "rest", "glue": "glue", "hive": "hive"}
	for name, typ := range types {
		if cfg.Catalogs[name].Type != typ {
			t.Errorf("catalog %s: type %q, want %q", name, cfg.Catalogs[name].Type, typ)
		}
	}
	if len(secrets) < 5 {
		t.Fatalf("only %d secrets in the catalogs of docs/deployments.md", len(secrets))
	}
	all := strings.Join(cfg.Secrets(), "\n")
	for s := range secrets {
		if !strings.Contains(all, s) {
			t.Errorf("%s is not redacted", s)
		}
	}
}
