package config

import (
	"fmt"
	"maps"
	"path/filepath"
	"strings"
)

// TableRef is a table reference of the config file,
// <catalog>.<namespace...>.<table>, split once.
type TableRef struct {
	Catalog string
	// Ident is the namespace levels, then the table name: an iceberg-go
	// table.Identifier (an alias of []string), spelled as []string so that
	// parsing a config links none of iceberg-go.
	Ident []string
}

// ParseTableRef splits a table reference. It needs a catalog, at least one
// namespace level and a table name, none of them empty.
func ParseTableRef(s string) (TableRef, error) {
	parts := strings.Split(s, ".")
	if len(parts) < 3 {
		return TableRef{}, fmt.Errorf("%q is not <catalog>.<namespace>.<table>", s)
	}
	for _, p := range parts {
		if p == "" {
			return TableRef{}, fmt.Errorf("%q has an empty part", s)
		}
	}
	return TableRef{Catalog: parts[0], Ident: parts[1:]}, nil
}

// String is the reference as the config writes it.
func (r TableRef) String() string { return r.Catalog + "." + strings.Join(r.Ident, ".") }

// Props are the properties the catalog is opened with (catalogs.Open): its
// own, passed through, its type, and a relative hadoop warehouse resolved
// against dir (the config file's directory). Comparing them tells whether
// a catalog changed between two configs.
func (cc Catalog) Props(dir string) map[string]string {
	props := maps.Clone(cc.Properties)
	if props == nil {
		props = map[string]string{}
	}
	if cc.Type != "" {
		props["type"] = cc.Type
	}
	if w, ok := props["warehouse"]; ok && cc.Type == "hadoop" {
		props["warehouse"] = resolve(dir, w)
	}
	return props
}

// resolve resolves a path of the config against its directory; absolute
// paths and URLs stay as they are.
func resolve(dir, p string) string {
	if p == "" || filepath.IsAbs(p) || strings.Contains(p, "://") || dir == "" {
		return p
	}
	return filepath.Join(dir, p)
}
