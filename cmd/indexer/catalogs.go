package main

// Catalog types and file systems iceberg-go supports, registered with its
// catalog and IO registries, and the database/sql drivers of the sql
// catalog: sql.driver "pgx" (PostgreSQL, with sql.dialect "postgres") and
// "sqliteshim" (SQLite, with sql.dialect "sqlite").
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
