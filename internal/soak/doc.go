// Package soak is the reliability campaign that `ontolab soak` runs: real
// `indexer serve` processes over real Iceberg tables (a hadoop warehouse
// written with iceberg-go) while a writer commits every second, and
// figures of what they survived.
//
// The writer changes two tables, items (20,000 rows by default) and
// groups (each item links to one), by copy-on-write updates, inserts,
// copy-on-write deletes, compactions of small files, schema additions
// (which make the next build full: the added column is a property) and
// group updates. Every row carries the number of the commit that wrote it
// (its stamp), and every other value is a function of the key and the
// stamp, so a served object says which version of its row it is. The
// writer records each commit in a model (model.go) before it makes it:
// for each key the commits that wrote or deleted it, and for each commit
// its snapshot and the counts of the items after it.
//
// The campaign, in order:
//
//   - Kills (kills.go): SIGKILL of the server at random moments, a third
//     of them during a full rebuild into a new generation asked for with
//     POST /api/indexer/v1/objectTypes/Item/rebuild. After each, the data
//     dir the dead server left is opened as a restart does and checked
//     for invariant 1 (the stored objects are exactly the rows of the
//     checkpoint snapshot, read with iceberg-go's scan, and the index is
//     the one the store makes); then the server restarts, catches up with
//     the writer paused, and what it serves (every object, gets, a search
//     per category, counts by category, links both ways) is compared with
//     the tables read at its checkpoints (check.go).
//   - Table faults (faults.go): a data file, a manifest, the manifest list
//     or the table metadata missing or corrupt, the warehouse moved away
//     (the catalog unreachable): the server starts on the fault, must
//     keep serving what it served, with an error that names the table and
//     the file, and must catch up once the fault is removed. The items
//     table dropped and created again under the same name (a new uuid):
//     the next build is full, in a new generation.
//   - Data-dir faults (datadir.go, datadir_store.go, diskfull.go): the
//     index file of Item's served generation cut short, emptied, with
//     bits flipped, or with a length that claims more than the file,
//     while the server is down and the warehouse is moved away: the
//     server must start, warn of the file with its path, serve what it
//     served (rebuilt from state.db: it can read no table), write the
//     file again, and build nothing once the warehouse is back. state.db
//     with both meta pages zeroed: the start must exit with status 1 and
//     a message that names the file and says to move the data dir aside;
//     the campaign does that and starts again, and every type must be
//     built in full and serve the tables. The disk full (as root on
//     Linux, package tmpfs; else skipped): a server whose data dir is on
//     a small tmpfs that a ballast fills before an incremental build and
//     during a full rebuild must fail them with NO_SPACE naming state.db,
//     keep serving its last good state, and finish them once the space
//     returns.
//   - Load (load.go): closed-loop clients mix gets, searches and their
//     next pages, aggregations, loadObjects (unions, searchArounds) and
//     lists while the writer commits. Each answer must be of one state of
//     the table: the intervals of the states in which each object's
//     version is current must meet (else the page mixes snapshots), every
//     property must be the version's (else the object is partial), the
//     state must not be older than one the server already served (stale
//     read), and totalCount and counts must be a state's. One first page
//     in ten is compared with the model's first page of each state it may
//     be of. A probe polls the status: the lag of a commit is the time
//     until a status serves it.
//
// Run returns a Report (figures, and the violations found: all must be 0).
package soak
