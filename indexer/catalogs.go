package indexer

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// OpenCatalog opens a configured catalog through iceberg-go's catalog
// registry: its properties are passed through, and a relative hadoop
// warehouse is resolved against the config file's directory.
func (c *Config) OpenCatalog(ctx context.Context, name string) (catalog.Catalog, error) {
	cc, ok := c.Catalogs[name]
	if !ok {
		return nil, fmt.Errorf("catalog %q is not configured", name)
	}
	props := iceberg.Properties{}
	for k, v := range cc.Properties {
		props[k] = v
	}
	if cc.Type != "" {
		props["type"] = cc.Type
	}
	if w, ok := props["warehouse"]; ok && cc.Type == "hadoop" {
		props["warehouse"] = c.Path(w)
	}
	cat, err := catalog.Load(ctx, name, props)
	if err != nil {
		return nil, fmt.Errorf("open catalog %s (type %s): %w", name, cc.Type, err)
	}
	return cat, nil
}

// loadFrom loads <namespace...>.<table> from a catalog.
func loadFrom(ctx context.Context, cat catalog.Catalog, ref, rest string) (*table.Table, error) {
	tbl, err := cat.LoadTable(ctx, catalog.ToIdentifier(strings.Split(rest, ".")...))
	if err != nil {
		return nil, fmt.Errorf("load table %s: %w", ref, err)
	}
	return tbl, nil
}

// LoadTable loads a table reference (<catalog>.<namespace...>.<table>)
// through the configured catalogs without opening the data dir, for
// commands that run next to a daemon.
func (c *Config) LoadTable(ctx context.Context, ref string) (*table.Table, error) {
	catName, rest, _ := strings.Cut(ref, ".")
	cat, err := c.OpenCatalog(ctx, catName)
	if err != nil {
		return nil, err
	}
	return loadFrom(ctx, cat, ref, rest)
}
