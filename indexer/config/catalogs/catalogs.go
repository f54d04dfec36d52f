package catalogs

import (
	"context"
	"fmt"
	"sync"

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

// rechecking is a catalog whose table loads recheck "not found", and, for
// a REST catalog with OAuth2 client credentials, open the catalog again
// when the server refuses its token (LoadTable).
type rechecking struct {
	catalog.Catalog
	name  string
	props map[string]string

	mu      sync.Mutex
	loader  catalog.Catalog   // what LoadTable asks: Catalog, or the one opened since
	retired []catalog.Catalog // loaders replaced, closed by Close (a load may still use one)
}

func (c *rechecking) LoadTable(ctx context.Context, ident table.Identifier) (*table.Table, error) {
	loader := c.currentLoader()
	tbl, err := loader.LoadTable(ctx, ident)
	if err != nil && c.props["type"] == "rest" && c.props["credential"] != "" && refusedToken(err) {
		// The OAuth2 client refreshes its token only when it expires: a
		// token the server stopped accepting before (revoked, or signed
		// with keys the catalog replaced on a restart) would fail every
		// load until then. A catalog opened again fetches a new one.
		fresh, oerr := catalog.Load(ctx, c.name, iceberg.Properties(c.props))
		if oerr != nil {
			return nil, changelog.RecheckNotFound(ctx, c.props, explainREST(c.name, c.props, oerr))
		}
		tbl, err = c.replaceLoader(loader, fresh).LoadTable(ctx, ident)
	}
	if err != nil {
		return nil, changelog.RecheckNotFound(ctx, c.props, explainREST(c.name, c.props, err))
	}
	return tbl, nil
}

func (c *rechecking) currentLoader() catalog.Catalog {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.loader == nil {
		return c.Catalog
	}
	return c.loader
}

// replaceLoader makes fresh the loader in place of old and returns the
// loader to use: fresh, or the one another load put in place first.
func (c *rechecking) replaceLoader(old, fresh catalog.Catalog) catalog.Catalog {
	c.mu.Lock()
	defer c.mu.Unlock()
	if current := c.loader; current != nil && current != old {
		c.retired = append(c.retired, fresh)
		return current
	}
	if old != c.Catalog {
		c.retired = append(c.retired, old)
	}
	c.loader = fresh
	return fresh
}

// Close closes the catalog's connections (a sql catalog's database).
func (c *rechecking) Close() error {
	c.mu.Lock()
	others := c.retired
	if c.loader != nil {
		others = append(others, c.loader)
	}
	c.loader, c.retired = nil, nil
	c.mu.Unlock()
	for _, o := range others {
		_ = closeCatalog(o)
	}
	return closeCatalog(c.Catalog)
}

func closeCatalog(cat catalog.Catalog) error {
	if cl, ok := cat.(catalog.Closer); ok {
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
