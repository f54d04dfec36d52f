// Package memorylimit decides the Go runtime's soft memory limit of an
// indexer process from its config: a share of the memory the process may
// use (its cgroup's limit, else the machine's), a size, or none.
//
// The index lives in the heap, and with the runtime's default (no limit,
// GOGC=100) the heap may grow to twice what was live at the last
// collection: a full build beside a served generation, which holds both,
// then needs up to twice its live memory. With a limit the collector
// runs more often as the heap nears it instead, so a machine needs about
// the live heap (docs/benchmarks.md, "how memory grows").
package memorylimit
