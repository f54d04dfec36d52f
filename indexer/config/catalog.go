package config

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"strings"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// TableRef is a table reference of the config file,
// <catalog>.<namespace...>.<table>, split once.
type TableRef struct {
	Catalog string
	Ident   table.Identifier // namespace levels, then the table name
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

// Props are the properties the catalog is opened with: its own, passed
// through, its type, and a relative hadoop warehouse resolved against dir
// (the config file's directory). Comparing them tells whether a catalog
// changed between two configs.
func (cc Catalog) Props(dir string) iceberg.Properties {
	props := iceberg.Properties(maps.Clone(cc.Properties))
	if props == nil {
		props = iceberg.Properties{}
	}
	if cc.Type != "" {
		props["type"] = cc.Type
	}
	if w, ok := props["warehouse"]; ok && cc.Type == "hadoop" {
		props["warehouse"] = resolve(dir, w)
	}
	return props
}

// Open opens the catalog through iceberg-go's catalog registry. It is the
// one way ontoindex opens a catalog, from a config file or from flags.
func (cc Catalog) Open(ctx context.Context, name, dir string) (catalog.Catalog, error) {
	cat, err := catalog.Load(ctx, name, cc.Props(dir))
	if err != nil {
		return nil, fmt.Errorf("open catalog %s (type %s): %w", name, cc.Type, err)
	}
	return cat, nil
}

// OpenCatalog opens a configured catalog.
func (c *Config) OpenCatalog(ctx context.Context, name string) (catalog.Catalog, error) {
	cc, ok := c.Catalogs[name]
	if !ok {
		return nil, fmt.Errorf("catalog %q is not configured", name)
	}
	return cc.Open(ctx, name, c.Dir)
}

// LoadTable loads a table from an open catalog.
func LoadTable(ctx context.Context, cat catalog.Catalog, ref TableRef) (*table.Table, error) {
	tbl, err := cat.LoadTable(ctx, ref.Ident)
	if err != nil {
		return nil, fmt.Errorf("load table %s: %w", ref, err)
	}
	return tbl, nil
}

// LoadTable loads a table reference through the configured catalogs
// without opening the data dir, for commands that run next to a daemon.
func (c *Config) LoadTable(ctx context.Context, ref string) (*table.Table, error) {
	r, err := ParseTableRef(ref)
	if err != nil {
		return nil, err
	}
	cat, err := c.OpenCatalog(ctx, r.Catalog)
	if err != nil {
		return nil, err
	}
	return LoadTable(ctx, cat, r)
}

// resolve resolves a path of the config against its directory; absolute
// paths and URLs stay as they are.
func resolve(dir, p string) string {
	if p == "" || filepath.IsAbs(p) || strings.Contains(p, "://") || dir == "" {
		return p
	}
	return filepath.Join(dir, p)
}
