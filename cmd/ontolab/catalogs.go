package main

// Catalog types and file systems iceberg-go supports, and the
// database/sql drivers of the sql catalog, as indexer has them.
import _ "github.com/ontoindex/ontoindex/internal/catalogdrivers"
