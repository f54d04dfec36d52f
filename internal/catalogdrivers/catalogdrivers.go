// Package catalogdrivers registers, by being imported, the catalog types
// and file systems iceberg-go supports with its catalog and IO
// registries, and the database/sql drivers of the sql catalog: sql.driver
// "pgx" (PostgreSQL, with sql.dialect "postgres") and "sqliteshim"
// (SQLite, with sql.dialect "sqlite"). Both commands import it, indexer
// for the catalogs of a config and ontolab for the ones its benchmarks
// build from, so that they open the same catalogs.
package catalogdrivers

import (
	_ "github.com/apache/iceberg-go/catalog/glue"
	_ "github.com/apache/iceberg-go/catalog/hadoop"
	_ "github.com/apache/iceberg-go/catalog/hive"
	_ "github.com/apache/iceberg-go/catalog/rest"
	_ "github.com/apache/iceberg-go/catalog/sql"
	_ "github.com/apache/iceberg-go/io/gocloud"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "github.com/uptrace/bun/driver/sqliteshim"
)
