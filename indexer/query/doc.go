// Package query is the engine's query model: filters over the properties
// of one object type, sorted pages with after-cursors, and aggregations.
//
// The API decodes its wire JSON (where clauses, object sets, orderBy,
// aggregation and groupBy) into these types; package index plans and runs
// them. Values in filters are typed as package objects types them: a long
// property takes int64, a decimal property objects.Decimal at the
// property's scale, a date objects.Date, a timestamp time.Time, and so on.
//
// Semantics, which every plan the engine picks must honour:
//
//   - Values compare exactly: strings by byte order, every other type by
//     the order of objects.AppendKey (numbers numerically, doubles in IEEE
//     total order, dates and timestamps chronologically, false < true).
//   - A null never matches a comparison. On arrays, an object matches when
//     any non-null element matches.
//   - Text queries (terms, phrases, prefixes) match the terms Analyze gives
//     for the value; phrases match within one array element.
//   - Wildcards and regular expressions match the whole exact value.
//   - Pages are ordered by the sort fields, nulls last in both directions,
//     then by primary key ascending: a total order, so an after-cursor
//     (the position of the last object of a page) continues exactly.
package query
