package indexer

import (
	"context"
	"fmt"

	"github.com/ontoindex/ontoindex/cowguard"
)

// Check returns the write-mode report of the table behind an object type.
func (ix *Indexer) Check(ctx context.Context, name string) (cowguard.Report, error) {
	ts, err := ix.state(name)
	if err != nil {
		return cowguard.Report{ObjectType: name}, err
	}
	r := cowguard.Report{ObjectType: name, Table: ts.spec.Table}
	tbl, err := ix.loadTable(ctx, ts.spec.Table)
	if err != nil {
		return r, &tableError{fmt.Errorf("object type %s: %w", name, err)}
	}
	r, err = cowguard.Inspect(ctx, tbl, ts.spec.Table)
	r.ObjectType = name
	if err != nil {
		return r, &tableError{fmt.Errorf("object type %s: table %s: %w", name, ts.spec.Table, err)}
	}
	return r, nil
}

// Status is where an object type stands.
type Status struct {
	ObjectType string      `json:"objectType"`
	Table      string      `json:"table"`
	Building   bool        `json:"building"`
	Checkpoint *Checkpoint `json:"checkpoint,omitempty"`
	LastError  *ErrorInfo  `json:"lastError,omitempty"`
}

// Status reports an object type's checkpoint, whether it is building, and
// the error of its last build, if that failed.
func (ix *Indexer) Status(name string) (Status, error) {
	ts, err := ix.state(name)
	if err != nil {
		return Status{ObjectType: name}, err
	}
	ts.mu.RLock()
	defer ts.mu.RUnlock()
	return Status{ObjectType: name, Table: ts.spec.Table, Building: ts.building, Checkpoint: ts.cp, LastError: ts.lastErr}, nil
}

// NotReady lists the object types that have no generation to serve yet,
// in config order; the indexer is ready when it is empty.
func (ix *Indexer) NotReady() []string {
	var out []string
	for _, name := range ix.Types() {
		if cp, err := ix.Checkpoint(name); err == nil && cp == nil {
			out = append(out, name)
		}
	}
	return out
}
