package config

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/ontoindex/ontoindex/internal/spelling"
	"go.yaml.in/yaml/v3"
)

// Unknown keys: yaml.v3's strict decoding names the line, the key and
// the Go type it is not a field of. The error a user reads names the
// key's path in the file and the key that was most likely meant.

var unknownField = regexp.MustCompile(`line (\d+): field (\S+) not found in type (\S+)`)

// friendlyYAMLError rewrites yaml.v3's unknown-field errors to name the
// key, its path and the closest known key; doc is the YAML decoded.
func friendlyYAMLError(err error, doc string) error {
	msg := err.Error()
	m := unknownField.FindAllStringSubmatch(msg, -1)
	if m == nil {
		return errors.New(strings.TrimPrefix(msg, "yaml: "))
	}
	var root yaml.Node
	if yaml.Unmarshal([]byte(doc), &root) != nil {
		root = yaml.Node{}
	}
	keys := yamlKeys(reflect.TypeFor[Config]())
	var parts []string
	for _, x := range m {
		line, key, typeName := x[1], x[2], x[3]
		part := fmt.Sprintf("line %s: unknown key %q", line, key)
		if n, err := strconv.Atoi(line); err == nil {
			if path := keyPath(&root, n, key, ""); path != "" {
				part = fmt.Sprintf("line %s: %s: unknown key %q", line, path, key)
			}
		}
		if known := keys[typeName]; len(known) > 0 {
			if meant := spelling.Meant(key, known); meant != "" {
				part += fmt.Sprintf("; did you mean %s?", meant)
			} else {
				part += "; the keys here are " + strings.Join(known, ", ")
			}
		}
		parts = append(parts, part)
	}
	return errors.New(strings.Join(parts, "; "))
}

// keyPath is the path (objectTypes[0].titleProperty) of the mapping key
// named key on the given line under n, or "" if there is none.
func keyPath(n *yaml.Node, line int, key, prefix string) string {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if p := keyPath(c, line, key, prefix); p != "" {
				return p
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			path := k.Value
			if prefix != "" {
				path = prefix + "." + k.Value
			}
			if k.Line == line && k.Value == key {
				return path
			}
			if p := keyPath(v, line, key, path); p != "" {
				return p
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if p := keyPath(c, line, key, fmt.Sprintf("%s[%d]", prefix, i)); p != "" {
				return p
			}
		}
	}
	return ""
}

// yamlKeys maps the name of every struct type reachable from t, as
// yaml.v3 names it in its errors (objects.TypeSpec), to the keys the
// type takes, in field order.
func yamlKeys(t reflect.Type) map[string][]string {
	out := map[string][]string{}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return
		}
		if _, seen := out[t.String()]; seen {
			return
		}
		out[t.String()] = nil // marks it seen while its fields are walked
		var keys []string
		var fields func(reflect.Type)
		fields = func(t reflect.Type) {
			for f := range t.Fields() {
				if !f.IsExported() {
					continue
				}
				name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
				if name == "-" {
					continue
				}
				if strings.Contains(opts, "inline") {
					fields(f.Type)
					continue
				}
				if name == "" {
					name = strings.ToLower(f.Name)
				}
				keys = append(keys, name)
				walk(f.Type)
			}
		}
		fields(t)
		out[t.String()] = keys
	}
	walk(t)
	return out
}
