// Package peopletest is the scaffold the daemon, ops and serve tests share:
// a copy-on-write table ns.people and a merge-on-read table ns.planes
// (format-version 2, merge-on-read deletes) of people rows (id, a long
// identifier field; name; city), written with icebergtest, and the object
// types People and Plane that map them. It is for tests only; nothing in
// the indexer binary imports it.
package peopletest
