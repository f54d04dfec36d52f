package peopletest

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/cowguard"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

// The tables, as icebergtest names them and as object types name them in
// the catalog "warehouse" (the one of indexertest.Config).
const (
	People      = "ns.people"
	Planes      = "ns.planes"
	PeopleTable = "warehouse." + People
	PlanesTable = "warehouse." + Planes
)

// PeopleType and PlaneType are the object types People (title name, city
// a keyword) and Plane (every column) as items of a config's objectTypes
// list.
const (
	PeopleType = "  - {apiName: People, table: " + PeopleTable + ", titleProperty: name, properties: {id: {column: id}, name: {column: name}, city: {column: city, search: keyword}}}\n"
	PlaneType  = "  - {apiName: Plane, table: " + PlanesTable + "}\n"
)

// Cities are the cities of the rows: row id lives in Cities[id%len(Cities)].
var Cities = []string{"Lisbon", "Oslo", "Quito", "Perth"}

// Schema returns the schema of people rows: id (long, required, the
// identifier field), name and city (strings).
func Schema() *iceberg.Schema {
	return iceberg.NewSchemaWithIdentifiers(1, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "city", Type: iceberg.PrimitiveTypes.String})
}

// MergeOnRead returns the properties of a table whose deletes are
// merge-on-read: format-version 2 and write.delete.mode merge-on-read.
func MergeOnRead() iceberg.Properties {
	return iceberg.Properties{"format-version": "2", cowguard.DeleteModeKey: cowguard.MergeOnRead}
}

// Row returns the row of id named "<tag> <id>".
func Row(id int, tag string) icebergtest.Row {
	return icebergtest.Row{"id": id, "name": fmt.Sprintf("%s %d", tag, id), "city": Cities[id%len(Cities)]}
}

// Person returns the row of id named "person <id>".
func Person(id int) icebergtest.Row { return Row(id, "person") }

// Rows returns the n rows from id from on, named "<tag> <id>".
func Rows(from, n int, tag string) []icebergtest.Row {
	out := make([]icebergtest.Row, n)
	for i := range out {
		out[i] = Row(from+i, tag)
	}
	return out
}

// Files returns files appends of perFile Person rows, ids 0 up.
func Files(files, perFile int) [][]icebergtest.Row {
	out := make([][]icebergtest.Row, files)
	for f := range out {
		out[f] = Rows(f*perFile, perFile, "person")
	}
	return out
}

// MustTable creates table ident with schema sc and properties props, and
// commits each of appends as one append.
func MustTable(tb testing.TB, w *icebergtest.Warehouse, ident string, sc *iceberg.Schema, props iceberg.Properties, appends ...[]icebergtest.Row) *icebergtest.Table {
	tb.Helper()
	tbl, err := w.WriteTable(context.Background(), ident, sc, props, appends...)
	if err != nil {
		tb.Fatal(err)
	}
	return tbl
}

// MustPeople creates a table ident of people rows holding files*perFile
// Person rows, one append per file (see Files).
func MustPeople(tb testing.TB, w *icebergtest.Warehouse, ident string, props iceberg.Properties, files, perFile int) *icebergtest.Table {
	tb.Helper()
	return MustTable(tb, w, ident, Schema(), props, Files(files, perFile)...)
}

// MustOtherWriter opens a table through a second catalog on the same
// warehouse, as another process writing to it would.
func MustOtherWriter(tb testing.TB, w *icebergtest.Warehouse, ident string) *icebergtest.Table {
	tb.Helper()
	ow, err := w.Reopen(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	tbl, err := ow.LoadTable(context.Background(), ident)
	if err != nil {
		tb.Fatal(err)
	}
	return tbl
}

// Options say what the two tables of Must hold.
type Options struct {
	// Schema is the schema of both tables (nil: Schema()).
	Schema *iceberg.Schema
	// People are committed to ns.people, one append each (see Files).
	People [][]icebergtest.Row
	// Planes are committed to ns.planes in one append.
	Planes []icebergtest.Row
}

// Tables are the tables Must writes.
type Tables struct {
	People *icebergtest.Table // ns.people, copy-on-write
	Planes *icebergtest.Table // ns.planes, merge-on-read deletes
}

// Must creates ns.people (copy-on-write) and then ns.planes (MergeOnRead
// properties) in w, holding what o says.
func Must(tb testing.TB, w *icebergtest.Warehouse, o Options) Tables {
	tb.Helper()
	sc := o.Schema
	if sc == nil {
		sc = Schema()
	}
	var planes [][]icebergtest.Row
	if len(o.Planes) > 0 {
		planes = [][]icebergtest.Row{o.Planes}
	}
	people := MustTable(tb, w, People, sc, nil, o.People...)
	return Tables{People: people, Planes: MustTable(tb, w, Planes, sc, MergeOnRead(), planes...)}
}
