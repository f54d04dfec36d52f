// Package objects is the ontology model of ontoindex: object types and
// their properties, data types and search roles, the validation of object
// type specs against a table's columns, primary-key encoding, the exact
// in-store encoding of property values, and the conversion of Arrow rows to
// objects.
//
// It depends on Arrow and the standard library only; the Iceberg side of
// things (schemas, files, snapshots) lives in changelog and indexer.
package objects
