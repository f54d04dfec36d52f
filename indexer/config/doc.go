// Package config loads the ontoindex config file: the defaults (Default,
// in one place), then the file with ${ENV} expansion, then Validate, which
// fills in section defaults and names every bad field. It holds the
// engine's sections (ontology, dataDir, catalogs, objectTypes, build,
// daemon) and decodes the server and auth sections into the types of
// package api/serverconfig, which owns them.
//
// Table references are split by ParseTableRef; catalogs and tables are
// opened by the sub-package catalogs, which holds everything that needs
// iceberg-go, so that parsing a config (and its fuzz target) links none of
// it. Errors of catalogs and storage leave ontoindex in one way,
// Config.Explain (explain.go): a failed S3 request said as a
// *StorageError, and the config's secrets (redact.go) redacted.
package config
