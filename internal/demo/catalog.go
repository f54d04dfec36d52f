package demo

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ontoindex/ontoindex/indexer/config"
)

// SQLCatalog is a catalog "demo" of iceberg-go's sql type for a demo in
// dir. uri is the catalog's database: "" for SQLite in dir/catalog.db,
// file:PATH for another SQLite file, postgres://user@host:port/db for
// PostgreSQL (sql.driver pgx; pgx takes a password the URI leaves out from
// $PGPASSWORD). warehouse is where the tables' files go: "" for
// dir/warehouse, else a URL, s3://bucket/prefix among them. An S3
// warehouse's connection is written as references to the environment
// iceberg-go's S3 client reads (AWS_S3_ENDPOINT, AWS_REGION,
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY), so that no secret lands in the
// config file.
func SQLCatalog(dir, uri, warehouse string) (config.Catalog, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return config.Catalog{}, err
	}
	p := map[string]string{}
	switch {
	case uri == "":
		// A busy timeout: the demo writer commits while serve reads.
		p["uri"] = "file:" + filepath.Join(abs, "catalog.db") + "?_pragma=busy_timeout(10000)"
		p["sql.driver"], p["sql.dialect"] = "sqliteshim", "sqlite"
	case strings.HasPrefix(uri, "file:"):
		p["uri"], p["sql.driver"], p["sql.dialect"] = uri, "sqliteshim", "sqlite"
	case strings.HasPrefix(uri, "postgres://"), strings.HasPrefix(uri, "postgresql://"):
		p["uri"], p["sql.driver"], p["sql.dialect"] = uri, "pgx", "postgres"
	default:
		return config.Catalog{}, fmt.Errorf("catalog URI %q: want postgres://user@host:port/db or file:PATH (SQLite)", uri)
	}
	switch scheme, _, _ := strings.Cut(warehouse, "://"); {
	case warehouse == "":
		p["warehouse"] = "file://" + filepath.Join(abs, WarehouseDir)
	case !strings.Contains(warehouse, "://"):
		return config.Catalog{}, fmt.Errorf("warehouse %q: want a URL, file:///path or s3://bucket/prefix", warehouse)
	case scheme == "s3" || scheme == "s3a":
		p["warehouse"] = warehouse
		p["s3.endpoint"] = "${AWS_S3_ENDPOINT:-}"
		p["s3.region"] = "${AWS_REGION:-us-east-1}"
		p["s3.access-key-id"] = "${AWS_ACCESS_KEY_ID:-}"
		p["s3.secret-access-key"] = "${AWS_SECRET_ACCESS_KEY:-}"
	default:
		p["warehouse"] = warehouse
	}
	return config.Catalog{Type: "sql", Properties: p}, nil
}
