package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ontoindex/ontoindex/objects"
)

func TestParse(t *testing.T) {
	good := `
ontology: {apiName: default, displayName: Default Ontology}
dataDir: ./data
catalogs:
  warehouse:
    type: hadoop
    warehouse: ${WH_DIR:-./warehouse}
objectTypes:
  - apiName: Customer
    table: warehouse.sales.customers
    primaryKey: [customer_id]
    titleProperty: name
    properties:
      customerId: {column: customer_id}
      name: {column: name, search: text}
    pollInterval: 30s
`
	cfg, err := Parse([]byte(good), "/etc/onto")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Catalogs["warehouse"].Properties["warehouse"] != "./warehouse" || cfg.Catalogs["warehouse"].Type != "hadoop" {
		t.Errorf("catalog = %+v", cfg.Catalogs["warehouse"])
	}
	if cfg.Path(cfg.DataDir) != "/etc/onto/data" {
		t.Errorf("data dir = %s", cfg.Path(cfg.DataDir))
	}
	if m := cfg.ObjectTypes[0].Mode(); m != objects.ReadModeChangelog {
		t.Errorf("default readMode = %q, want changelog", m)
	}
	if c, err := Parse([]byte(good+"    readMode: appendOnly\n"), "/tmp"); err != nil || c.ObjectTypes[0].Mode() != objects.ReadModeAppendOnly {
		t.Errorf("readMode appendOnly: %v", err)
	}
	if cfg.ObjectTypes[0].PollInterval.Seconds() != 30 || cfg.Ontology.RID == "" || cfg.Build.ChunkRows != DefaultChunkRows || cfg.MemoryLimit != "80%" {
		t.Errorf("config = %+v", cfg)
	}

	tests := []struct {
		name, yaml, want string
	}{
		{"unknown key", strings.Replace(good, "titleProperty", "titelProperty", 1), `unknown key "titelProperty"`},
		{"unknown top-level key", good + "extra: 1\n", `unknown key "extra"`},
		{"unset env", strings.Replace(good, "${WH_DIR:-./warehouse}", "${ONTOINDEX_TEST_UNSET}", 1), "ONTOINDEX_TEST_UNSET is not set"},
		{"unknown catalog", strings.Replace(good, "table: warehouse.sales", "table: lake.sales", 1), `objectTypes[0].table: catalog "lake"`},
		{"bad readMode", strings.Replace(good, "pollInterval: 30s", "readMode: appendonly", 1), `objectTypes[0].readMode: "appendonly" must be changelog or appendOnly`},
		{"bad role", strings.Replace(good, "search: text", "search: fulltext", 1), "objectTypes[0].properties.name.search"},
		{"duplicate type", good + "  - apiName: customer\n    table: warehouse.a.b\n", "objectTypes[1].apiName"},
		{"no object types", "catalogs: {w: {type: hadoop, warehouse: x}}\n", "objectTypes: at least one"},
		{"bad memoryLimit", good + "memoryLimit: 12GB\n", `memoryLimit: "12GB": want a percentage`},
		{"hadoop without warehouse", strings.Replace(good, "    warehouse: ${WH_DIR:-./warehouse}\n", "", 1), "catalogs.warehouse.warehouse: is required"},
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

func TestExpandEnv(t *testing.T) {
	env := map[string]string{"A": "1", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct{ in, want string }{
		{"x${A}y", "x1y"},
		{"${EMPTY:-d}", ""},
		{"${B:-def}", "def"},
		{"$A and $$ stay", "$A and $$ stay"},
	}
	for _, tt := range tests {
		got, err := ExpandEnv(tt.in, lookup)
		if err != nil || got != tt.want {
			t.Errorf("ExpandEnv(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := ExpandEnv("${B} ${C}", lookup); err == nil || !strings.Contains(err.Error(), "B, C") {
		t.Errorf("missing vars: %v", err)
	}
}

func TestExpandOutsideComments(t *testing.T) {
	env := map[string]string{"A": "1"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct{ in, want, err string }{
		{"token: ${A}\n", "token: 1\n", ""},
		{"# token: ${UNSET}\ntoken: ${A}\n", "# token: ${UNSET}\ntoken: 1\n", ""},
		{"  token: ${A} # was ${UNSET}\n", "  token: 1 # was ${UNSET}\n", ""},
		{`token: "a#${A}"`, `token: "a#1"`, ""},
		{`token: 'it''s #${A}'`, `token: 'it''s #1'`, ""},
		{`url: http://h/#${A}`, `url: http://h/#1`, ""},
		{"a: 1\ntoken: ${UNSET}\n", "", "line 2: environment variable UNSET is not set"},
	}
	for _, tt := range tests {
		got, err := expandOutsideComments(tt.in, lookup)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%q: error %v, want %q", tt.in, err, tt.err)
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("%q = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestLoad_file(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(p, []byte("catalogs: {w: {type: hadoop, warehouse: wh}}\nobjectTypes: [{apiName: A, table: w.n.t}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Dir != dir {
		t.Errorf("dir = %s", cfg.Dir)
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Error("missing file accepted")
	}
}
