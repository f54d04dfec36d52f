// Package apidemo builds the demo warehouse the API tests, the end-to-end
// test and the examples run against: real Iceberg tables written with
// iceberg-go in a hadoop catalog, and the object types that map them. It is
// for tests only (and the end-to-end test's seed command); the demo that
// `indexer demo` writes is the production package internal/demo.
//
//   - Employee (demo.employees): one row per employee, a long primary key,
//     every property type the API renders (text, keyword, integer, long
//     beyond 2^53, decimal, double, date, timestamp, boolean, array, a
//     property that is not searchable) and nulls.
//   - Assignment (demo.assignments): a composite primary key (employee,
//     project) whose project names hold "," and "%".
//   - Ghost (demo.ghost): a type that is never built.
//
// CreateShop and ShopSpecs (shop.go) add a linked part: Customer
// (demo.customers, a string key), Order (demo.orders, an integer key and a
// foreign key to Customer) and Tag (demo.tags), tagged through the join
// table demo.order_tags.
package apidemo
