// Package catalogs opens the Iceberg catalogs and tables a config names,
// through iceberg-go's catalog registry: Open is the one way ontoindex
// opens a catalog, whether it comes from a config file (OpenConfigured) or
// from command-line flags, and LoadTable the one way it loads a table
// reference (config.TableRef) from one.
//
// It is apart from package config so that parsing a config links none of
// iceberg-go and the clients behind it (arrow, parquet, gocloud, the AWS
// SDK, gRPC): the config's fuzz target runs as fast as its code is small,
// because the fuzzing engine scans the coverage counters of the whole test
// binary after every execution.
package catalogs
