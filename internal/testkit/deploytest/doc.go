// Package deploytest stands up the deployments ontoindex is tested in,
// where users run it: a catalog and a warehouse of each kind, real
// servers included.
//
//	hadoop+local      the hadoop catalog, tables on local disk
//	sql/postgres+s3   iceberg-go's sql catalog on PostgreSQL (pgserver,
//	                  sql.driver pgx, sql.dialect postgres), tables in S3
//	                  (s3test: versitygw on loopback)
//	sql/sqlite+local  the sql catalog on SQLite (sqliteshim), tables on disk
//
// A Deployment gives the catalog entry of a config file, with the secrets
// (the S3 secret key, the PostgreSQL password) as ${ENV} references and
// the environment that sets them, the test's own handle on the catalog
// (writing as an application does), and Write, which commits from another
// process: the test binary run again, whose TestMain must call
// RunWriterIfAsked first.
//
// The package links the sql catalog, the pgx and SQLite drivers and
// iceberg-go's S3 FileIO, as cmd/indexer does.
package deploytest
