// Package serverconfig holds the server and auth sections of the config
// file: the HTTP server's limits and listen address, and the bearer tokens
// with their scopes. The config loader (package indexer/config) decodes
// them with the rest of the file; Validate fills in the defaults and names
// the bad fields.
package serverconfig
