// Package wire holds the Ontology API v2's request vocabulary that needs
// no engine behind it: the Conjure errors the API returns (errors.go, the
// one table of error names, codes and statuses), where clauses
// (SearchJsonQueryV2) decoded into the engine's filter (where.go), the
// page tokens the API hands out (pagetoken.go), and the JSON scanner that
// splits request bodies in one pass (jsonscan.go).
//
// It is a leaf: it imports objects and the engine's query types, not the
// engine. That keeps its fuzz targets fast. Go's fuzzing engine clears,
// copies and scans the coverage counters of the whole test binary after
// every input, so a target's speed is set by the code linked into it: the
// api package's tests link the engine, Iceberg and Arrow (385,000
// counters, about 2,500 inputs a second on two cores), this package's do
// not.
//
// Every error a decoder returns is an *Error whose name has a row in the
// table with a 4xx status; the api package renders it.
package wire
