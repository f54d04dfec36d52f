package catalogs

import (
	"context"
	"fmt"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/indexer/config"
)

// Open opens catalog name, configured by cc, through iceberg-go's catalog
// registry with the properties cc.Props(dir) gives (dir is the directory a
// relative hadoop warehouse is resolved against).
//
// The catalog's LoadTable asks storage again when the metadata file is
// reported missing, so that a store that is down is not said to have lost
// the file (see changelog.RecheckNotFound).
func Open(ctx context.Context, name string, cc config.Catalog, dir string) (catalog.Catalog, error) {
	props := cc.Props(dir)
	cat, err := catalog.Load(ctx, name, iceberg.Properties(props))
	if err != nil {
		return nil, fmt.Errorf("open catalog %s (type %s): %w", name, cc.Type, explainREST(name, props, err))
	}
	return &rechecking{Catalog: cat, name: name, props: props}, nil
}

// rechecking is a catalog whose table loads recheck "not found".
type rechecking struct {
	catalog.Catalog
	name  string
	props map[string]string
}

func (c *rechecking) LoadTable(ctx context.Context, ident table.Identifier) (*table.Table, error) {
	tbl, err := c.Catalog.LoadTable(ctx, ident)
	if err != nil {
		return nil, changelog.RecheckNotFound(ctx, c.props, explainREST(c.name, c.props, err))
	}
	return tbl, nil
}

// Close closes the catalog's connections (a sql catalog's database).
func (c *rechecking) Close() error {
	if cl, ok := c.Catalog.(catalog.Closer); ok {
		return cl.Close()
	}
	return nil
}

// OpenConfigured opens a catalog of the config.
func OpenConfigured(ctx context.Context, cfg *config.Config, name string) (catalog.Catalog, error) {
	cc, ok := cfg.Catalogs[name]
	if !ok {
		return nil, fmt.Errorf("catalog %q is not configured", name)
	}
	return Open(ctx, name, cc, cfg.Dir)
}

// LoadTable loads a table from an open catalog.
func LoadTable(ctx context.Context, cat catalog.Catalog, ref config.TableRef) (*table.Table, error) {
	tbl, err := cat.LoadTable(ctx, ref.Ident)
	if err != nil {
		return nil, fmt.Errorf("load table %s: %w", ref, err)
	}
	return tbl, nil
}

// LoadConfigured loads a table reference through the config's catalogs
// without opening the data dir, for commands that run next to a daemon.
func LoadConfigured(ctx context.Context, cfg *config.Config, ref string) (*table.Table, error) {
	r, err := config.ParseTableRef(ref)
	if err != nil {
		return nil, err
	}
	cat, err := OpenConfigured(ctx, cfg, r.Catalog)
	if err != nil {
		return nil, err
	}
	return LoadTable(ctx, cat, r)
}
