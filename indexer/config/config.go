package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/ontoindex/ontoindex/api/serverconfig"
	"github.com/ontoindex/ontoindex/internal/memorylimit"
	"github.com/ontoindex/ontoindex/objects"
	"go.yaml.in/yaml/v3"
)

// Config is the ontoindex config file.
type Config struct {
	Ontology Ontology           `yaml:"ontology" json:"ontology"`
	DataDir  string             `yaml:"dataDir" json:"dataDir"`
	Catalogs map[string]Catalog `yaml:"catalogs" json:"catalogs"`
	// Backends are the search backends object types may index into
	// instead of the embedded index (backend.go).
	Backends    map[string]Backend `yaml:"backends" json:"backends,omitempty"`
	ObjectTypes []objects.TypeSpec `yaml:"objectTypes" json:"objectTypes"`
	// Interfaces are the interfaces object types implement.
	Interfaces []objects.InterfaceSpec `yaml:"interfaces" json:"interfaces,omitempty"`
	Build      Build                   `yaml:"build" json:"build"`
	Daemon     Daemon                  `yaml:"daemon" json:"daemon"`
	Server     serverconfig.Server     `yaml:"server" json:"server"`
	Auth       serverconfig.Auth       `yaml:"auth" json:"auth"`
	// MemoryLimit is the Go runtime's soft memory limit of the process
	// (package memorylimit): "80%" of the memory available, a size, or
	// "off". The environment's GOMEMLIMIT, when set, wins.
	MemoryLimit string `yaml:"memoryLimit" json:"memoryLimit"`

	// Dir is the directory relative paths in the file are resolved against
	// (the config file's directory).
	Dir string `yaml:"-" json:"-"`

	// interfaces is what Validate resolved of Interfaces.
	interfaces *objects.InterfaceSet
}

// Ontology names the ontology the object types belong to.
type Ontology struct {
	APIName     string `yaml:"apiName" json:"apiName"`
	DisplayName string `yaml:"displayName" json:"displayName"`
	Description string `yaml:"description" json:"description"`
	RID         string `yaml:"rid" json:"rid"`
}

// Catalog configures one Iceberg catalog: its type (any catalog type
// iceberg-go registers: hadoop, sql, rest, glue, hive) and properties that
// are passed through to the catalog.
type Catalog struct {
	Type       string
	Properties map[string]string
}

// UnmarshalYAML reads type plus pass-through properties.
func (c *Catalog) UnmarshalYAML(n *yaml.Node) error {
	var m map[string]string
	if err := n.Decode(&m); err != nil {
		return err
	}
	c.Type = m["type"]
	delete(m, "type")
	c.Properties = m
	return nil
}

// MarshalYAML writes the catalog back as one mapping.
func (c Catalog) MarshalYAML() (any, error) {
	m := map[string]string{"type": c.Type}
	for k, v := range c.Properties {
		m[k] = v
	}
	return m, nil
}

// Build tunes builds.
type Build struct {
	// BatchRows is the number of rows per record batch read from Parquet.
	BatchRows int `yaml:"batchRows" json:"batchRows"`
	// ChunkRows is the number of rows a full build commits at once.
	ChunkRows int `yaml:"chunkRows" json:"chunkRows"`
}

// Defaults.
const (
	DefaultOntologyAPIName = "default"
	DefaultChunkRows       = 20000
)

// Default returns a config with every default set.
func Default() *Config {
	return &Config{
		Ontology:    Ontology{APIName: DefaultOntologyAPIName, DisplayName: "Default Ontology"},
		DataDir:     "./data",
		Build:       Build{BatchRows: 8192, ChunkRows: DefaultChunkRows},
		MemoryLimit: memorylimit.Default,
	}
}

// Load reads a config file: defaults, then the file with ${ENV}
// expansion, then Validate. Unknown keys are errors.
func Load(path string) (*Config, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	cfg, err := Parse(raw, filepath.Dir(abs))
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return cfg, nil
}

// Parse parses config bytes; relative paths are resolved against dir.
func Parse(raw []byte, dir string) (*Config, error) {
	expanded, err := expandOutsideComments(string(raw), os.LookupEnv)
	if err != nil {
		return nil, err
	}
	cfg := Default()
	dec := yaml.NewDecoder(bytes.NewReader([]byte(expanded)))
	dec.KnownFields(true)
	if err := dec.Decode(cfg); err != nil && !errors.Is(err, io.EOF) {
		return nil, friendlyYAMLError(err, expanded)
	}
	cfg.Dir = dir
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// expandOutsideComments expands ${ENV} references (ExpandEnv) in every
// line of a YAML file but its comments, so that a commented-out line may
// name a variable that is not set. A comment starts at a # at the start of
// a line or after a blank, outside quotes.
func expandOutsideComments(s string, lookup func(string) (string, bool)) (string, error) {
	lines := strings.SplitAfter(s, "\n")
	var missing []error
	for i, line := range lines {
		code, comment := splitComment(line)
		exp, err := ExpandEnv(code, lookup)
		if err != nil {
			missing = append(missing, fmt.Errorf("line %d: %w", i+1, err))
			continue
		}
		lines[i] = exp + comment
	}
	if len(missing) > 0 {
		return "", errors.Join(missing...)
	}
	return strings.Join(lines, ""), nil
}

// splitComment splits a YAML line before its comment, if it has one.
func splitComment(line string) (code, comment string) {
	var quote byte
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' {
				i++
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return line[:i], line[i:]
		}
	}
	return line, ""
}

var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

// ExpandEnv replaces ${NAME} and ${NAME:-default}. An unset variable
// without a default is an error that names it; a bare $ is left alone.
func ExpandEnv(s string, lookup func(string) (string, bool)) (string, error) {
	var missing []string
	out := envRef.ReplaceAllStringFunc(s, func(ref string) string {
		m := envRef.FindStringSubmatch(ref)
		if v, ok := lookup(m[1]); ok {
			return v
		}
		if m[2] != "" {
			return m[3]
		}
		missing = append(missing, m[1])
		return ""
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("environment variable %s is not set (use ${%s:-default} for a default)", strings.Join(missing, ", "), missing[0])
	}
	return out, nil
}

// Validate checks the config and names the first bad fields.
func (c *Config) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, &objects.FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	if c.Ontology.APIName == "" {
		bad("ontology.apiName", "is required")
	} else if !objects.ValidAPIName(c.Ontology.APIName) && !strings.HasPrefix(c.Ontology.APIName, "ri.") {
		bad("ontology.apiName", "%q must start with a letter and hold only letters, digits and _", c.Ontology.APIName)
	}
	if c.Ontology.DisplayName == "" {
		c.Ontology.DisplayName = c.Ontology.APIName
	}
	if c.Ontology.RID == "" {
		c.Ontology.RID = "ri.ontology.main.ontology." + c.Ontology.APIName
	}
	if c.DataDir == "" {
		bad("dataDir", "is required")
	}
	if _, err := memorylimit.Parse(c.MemoryLimit); err != nil {
		bad("memoryLimit", "%v", err)
	}
	if len(c.Catalogs) == 0 {
		bad("catalogs", "at least one catalog is required")
	}
	for _, name := range slices.Sorted(maps.Keys(c.Catalogs)) {
		cat := c.Catalogs[name]
		if strings.Contains(name, ".") || name == "" {
			bad("catalogs."+name, "catalog names must not contain dots")
		}
		if cat.Type == "" && cat.Properties["uri"] == "" {
			bad("catalogs."+name+".type", "is required (hadoop, sql, rest, glue, hive)")
		}
		if cat.Type == "hadoop" && cat.Properties["warehouse"] == "" {
			bad("catalogs."+name+".warehouse", "is required for a hadoop catalog")
		}
	}
	if len(c.ObjectTypes) == 0 {
		bad("objectTypes", "at least one object type is required")
	}
	seen := map[string]int{}
	for i, ot := range c.ObjectTypes {
		field := fmt.Sprintf("objectTypes[%d]", i)
		if err := ot.Validate(field); err != nil {
			errs = append(errs, err)
			continue
		}
		if j, dup := seen[strings.ToLower(ot.APIName)]; dup {
			bad(field+".apiName", "%q is already used by objectTypes[%d]", ot.APIName, j)
		}
		seen[strings.ToLower(ot.APIName)] = i
		ref, err := ParseTableRef(ot.Table)
		if err != nil {
			bad(field+".table", "%v", err) // ot.Validate checks the form too
			continue
		}
		if _, ok := c.Catalogs[ref.Catalog]; !ok && len(c.Catalogs) > 0 {
			bad(field+".table", "catalog %q of table %q is not configured (catalogs: %s)", ref.Catalog, ot.Table, strings.Join(slices.Sorted(maps.Keys(c.Catalogs)), ", "))
		}
	}
	if len(errs) == 0 {
		errs = append(errs, objects.ValidateLinks(c.ObjectTypes)...)
		for i, ot := range c.ObjectTypes {
			for j, l := range ot.Links {
				if l.Through == nil {
					continue
				}
				ref, err := ParseTableRef(l.Through.Table)
				if err != nil {
					continue // ValidateLinks named it
				}
				if _, ok := c.Catalogs[ref.Catalog]; !ok {
					bad(fmt.Sprintf("objectTypes[%d].links[%d].through.table", i, j), "catalog %q of table %q is not configured", ref.Catalog, l.Through.Table)
				}
			}
		}
	}
	if len(errs) == 0 {
		set, ierrs := objects.ResolveInterfaces(c.Interfaces, c.ObjectTypes)
		errs = append(errs, ierrs...)
		c.interfaces = set
	}
	if c.Build.BatchRows < 0 {
		bad("build.batchRows", "must not be negative")
	}
	if c.Build.ChunkRows < 0 {
		bad("build.chunkRows", "must not be negative")
	}
	errs = append(errs, serverconfig.Validate(&c.Server, &c.Auth, func(name string) bool { _, ok := c.TypeSpec(name); return ok })...)
	errs = append(errs, c.validateBackends()...)
	errs = append(errs, c.validateDaemon()...)
	return errors.Join(errs...)
}

// InterfaceSet is the config's interfaces and their implementations, as
// Validate resolved them (resolved again for a config that was not
// validated; nil when they do not resolve).
func (c *Config) InterfaceSet() *objects.InterfaceSet {
	if c.interfaces != nil {
		return c.interfaces
	}
	set, _ := objects.ResolveInterfaces(c.Interfaces, c.ObjectTypes)
	return set
}

// Path resolves a path from the config against the config's directory.
func (c *Config) Path(p string) string { return resolve(c.Dir, p) }

// IndexedTypes are the types the engine indexes: every object type, then
// the link table of every many-to-many link (objects.LinkTableSpec), which
// the API does not serve as objects.
func (c *Config) IndexedTypes() []objects.TypeSpec {
	out := slices.Clone(c.ObjectTypes)
	for _, ot := range c.ObjectTypes {
		for _, l := range ot.Links {
			if l.Through != nil {
				out = append(out, l.LinkTableSpec(ot.APIName))
			}
		}
	}
	return out
}

// IndexedSpec returns the spec of an object type or of a link table.
func (c *Config) IndexedSpec(name string) (objects.TypeSpec, bool) {
	for _, s := range c.IndexedTypes() {
		if s.APIName == name {
			return s, true
		}
	}
	return objects.TypeSpec{}, false
}

// Links are the outgoing link sides of every object type (objects.Links).
func (c *Config) Links() map[string][]objects.LinkSide { return objects.Links(c.ObjectTypes) }

// TypeSpec returns the spec of an object type.
func (c *Config) TypeSpec(apiName string) (*objects.TypeSpec, bool) {
	for i := range c.ObjectTypes {
		if c.ObjectTypes[i].APIName == apiName {
			return &c.ObjectTypes[i], true
		}
	}
	return nil, false
}
