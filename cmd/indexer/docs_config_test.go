package main

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/ontoindex/ontoindex/indexer/config"
)

// TestDocs_configuration: the config file of docs/configuration.md decodes
// as a config with no unknown key, and names every key the config takes.
func TestDocs_configuration(t *testing.T) {
	sec := docSection(t, "../../docs/configuration.md", "## The file")
	_, block, ok := strings.Cut(sec, "```yaml\n")
	if !ok {
		t.Fatal("docs/configuration.md has no yaml block under ## The file")
	}
	block, _, _ = strings.Cut(block, "```")
	dec := yaml.NewDecoder(strings.NewReader(block))
	dec.KnownFields(true)
	if err := dec.Decode(new(config.Config)); err != nil {
		t.Fatalf("the config of docs/configuration.md: %v", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(block), &doc); err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	documentedKeys(doc.Content[0], reflect.TypeFor[config.Config](), "", documented)
	keys := configKeys(reflect.TypeFor[config.Config](), "")
	if len(keys) < 50 {
		t.Fatalf("found %d keys in config.Config, want its many", len(keys))
	}
	for _, key := range keys {
		if !documented[key] {
			t.Errorf("docs/configuration.md does not name the config key %s", key)
		}
	}
}

// TestConfigKeys checks the key walkers of TestDocs_configuration on a
// fixed type and text, so that a walker that finds nothing cannot pass it.
func TestConfigKeys(t *testing.T) {
	type leaf struct {
		Column string `yaml:"column"`
		Hidden string `yaml:"-"`
	}
	type root struct {
		Name  string          `yaml:"name,omitempty"`
		Items []leaf          `yaml:"items"`
		Named map[string]leaf `yaml:"named"`
		Plain int
	}
	typ := reflect.TypeFor[root]()
	want := []string{"items", "items.column", "name", "named", "named.*.column", "plain"}
	if got := configKeys(typ, ""); !slices.Equal(got, want) {
		t.Errorf("configKeys = %q, want %q", got, want)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("name: x\nitems: [{column: c}]\nnamed: {a: {column: d}}\n"), &doc); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	documentedKeys(doc.Content[0], typ, "", got)
	for _, key := range []string{"name", "items", "items.column", "named", "named.*.column"} {
		if !got[key] {
			t.Errorf("documentedKeys missed %s: %v", key, got)
		}
	}
	if got["plain"] {
		t.Errorf("documentedKeys found plain, which the text does not name")
	}
}

var unmarshaler = reflect.TypeFor[yaml.Unmarshaler]()

// configKeys returns the dotted paths of every key a config type takes:
// struct fields by their yaml names, the entries of a list under the
// list's key, the values of a map under "*". A type that decodes itself
// (yaml.Unmarshaler) is one key.
func configKeys(typ reflect.Type, path string) []string {
	var keys []string
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if reflect.PointerTo(typ).Implements(unmarshaler) {
		return nil
	}
	switch typ.Kind() {
	case reflect.Struct:
		for field := range typ.Fields() {
			name := yamlName(field)
			if name == "" {
				continue
			}
			keys = append(keys, join(path, name))
			keys = append(keys, configKeys(field.Type, join(path, name))...)
		}
	case reflect.Slice:
		keys = configKeys(typ.Elem(), path)
	case reflect.Map:
		keys = configKeys(typ.Elem(), join(path, "*"))
	}
	slices.Sort(keys)
	return keys
}

// documentedKeys adds to keys the dotted paths (as configKeys writes them)
// of the keys a yaml node of the type names.
func documentedKeys(node *yaml.Node, typ reflect.Type, path string, keys map[string]bool) {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if reflect.PointerTo(typ).Implements(unmarshaler) {
		return
	}
	switch {
	case typ.Kind() == reflect.Struct && node.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(node.Content); i += 2 {
			for field := range typ.Fields() {
				if name := yamlName(field); name != "" && name == node.Content[i].Value {
					keys[join(path, name)] = true
					documentedKeys(node.Content[i+1], field.Type, join(path, name), keys)
				}
			}
		}
	case typ.Kind() == reflect.Slice && node.Kind == yaml.SequenceNode:
		for _, item := range node.Content {
			documentedKeys(item, typ.Elem(), path, keys)
		}
	case typ.Kind() == reflect.Map && node.Kind == yaml.MappingNode:
		for i := 1; i < len(node.Content); i += 2 {
			documentedKeys(node.Content[i], typ.Elem(), join(path, "*"), keys)
		}
	}
}

// yamlName is the key of a struct field in yaml ("" for none), as yaml.v3
// names it: its tag, else its name in lower case.
func yamlName(field reflect.StructField) string {
	if !field.IsExported() {
		return ""
	}
	tag, _, _ := strings.Cut(field.Tag.Get("yaml"), ",")
	switch tag {
	case "-":
		return ""
	case "":
		return strings.ToLower(field.Name)
	}
	return tag
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
